#!/usr/bin/env node
// Asks the real `codex app-server` (stdio) for hooks/list in one project and
// prints each OpenComms hook with its trust status and hash; the last line says
// whether all five are trusted. Used by scripts/check-hosts.sh (issue 25).
// With --toml it prints instead the config.toml lines that trust every hook
// of the project not trusted yet, as a person approving them would
// (scripts/check-hosts-deny.sh); trouble then goes to stderr, exit 1.
//   node scripts/codex-hooks-list.cjs PROJECT_DIR [--toml]
const path = require('node:path');

const project = process.argv[2];
const isToml = process.argv.includes('--toml');
let codex;
(async () => {
  const { startJsonLines } = await import(path.join(__dirname, 'lib', 'mcp-stdio.mjs'));
  codex = startJsonLines('codex', ['app-server'], { cwd: project, stderr: 'ignore', jsonrpc: false, replyMs: 60_000 });
  const init = await codex.request('initialize', { clientInfo: { name: 'opencomms-check-hosts', version: '0' } });
  if (init.error) throw new Error(`initialize: ${init.error.message}`);
  codex.send({ method: 'initialized' });
  const listed = await codex.request('hooks/list', { cwds: [project] });
  if (listed.error) throw new Error(`hooks/list: ${listed.error.message}`);
  const all = (listed.result?.data ?? []).flatMap((entry) => entry.hooks);
  if (isToml) {
    for (const h of all) if (h.trustStatus !== 'trusted') console.log(`[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`);
    codex.close();
    return;
  }
  const hooks = all.filter((h) => (h.command ?? '').includes('opencomms.js" hook'));
  for (const h of hooks) console.log(`${h.key} ${h.trustStatus} ${h.currentHash}`);
  console.log(hooks.length === 5 && hooks.every((h) => h.trustStatus === 'trusted') ? 'codex: every opencomms hook trusted' : 'codex: opencomms hooks NOT all trusted');
  codex.close();
})().catch((err) => {
  if (isToml) {
    console.error(err.message);
    process.exitCode = 1;
  } else {
    console.log(`codex: ${err.message}`);
  }
  codex?.child.kill();
});
