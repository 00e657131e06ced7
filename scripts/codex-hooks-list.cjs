#!/usr/bin/env node
// Asks the real `codex app-server` (stdio) for hooks/list in one project and
// prints each OpenComms hook with its trust status and hash; the last line says
// whether all five are trusted. Used by scripts/check-hosts.sh (issue 25).
//   node scripts/codex-hooks-list.cjs PROJECT_DIR
const { spawn } = require('node:child_process');
const project = process.argv[2];
const child = spawn('codex', ['app-server'], { cwd: project, stdio: ['pipe', 'pipe', 'ignore'] });
let buffered = '';
const waiters = new Map();
let nextId = 1;
child.stdout.setEncoding('utf8').on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) !== -1) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    try { const m = JSON.parse(line); if (waiters.has(m.id)) { waiters.get(m.id)(m); waiters.delete(m.id); } } catch {}
  }
});
const call = (method, params) => new Promise((resolve, reject) => {
  const id = nextId++;
  const timer = setTimeout(() => reject(new Error(`no reply to ${method} within 60 s`)), 60_000);
  waiters.set(id, (m) => { clearTimeout(timer); resolve(m); });
  child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
});
(async () => {
  await call('initialize', { clientInfo: { name: 'opencomms-check-hosts', version: '0' } });
  child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
  const listed = await call('hooks/list', { cwds: [project] });
  const hooks = (listed.result?.data ?? []).flatMap((entry) => entry.hooks).filter((h) => (h.command ?? '').includes('opencomms.js" hook'));
  for (const h of hooks) console.log(`${h.key} ${h.trustStatus} ${h.currentHash}`);
  console.log(hooks.length === 5 && hooks.every((h) => h.trustStatus === 'trusted') ? 'codex: every opencomms hook trusted' : 'codex: opencomms hooks NOT all trusted');
  child.stdin.end();
  setTimeout(() => child.kill(), 2_000).unref();
})().catch((err) => { console.log(`codex: ${err.message}`); child.kill(); });
