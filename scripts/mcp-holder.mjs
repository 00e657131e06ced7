#!/usr/bin/env node
// The holder of scripts/check-hosts-deny.sh: one OpenComms MCP server
// (dist/opencomms.js) driven over stdio as an agent would drive it. It opens a
// channel, reserves paths exclusively and stays present (its server lives)
// until the go file appears; then it reads its inbox and releases. No
// dependencies.
//
//   node scripts/mcp-holder.mjs --dist FILE --project DIR --channel NAME --out FILE
//        --go FILE [--host ID] PATH...
//
// Writes FILE (JSON) twice: once the reservation holds
//   { member_id, channel, reserve: <reply text> }
// and once it is done, adding { inbox: <reply text>, release: <reply text> }.
import { existsSync, writeFileSync } from 'node:fs';
import { replyText, startMcpServer } from './lib/mcp-stdio.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const paths = args.filter((value, i) => !value.startsWith('--') && !args[i - 1]?.startsWith('--'));
const [dist, project, channel, out, go] = ['--dist', '--project', '--channel', '--out', '--go'].map((n) => option(n));
const host = option('--host', 'holder');
if (!dist || !project || !channel || !out || !go || paths.length === 0) {
  process.stderr.write('usage: mcp-holder.mjs --dist FILE --project DIR --channel NAME --out FILE --go FILE [--host ID] PATH...\n');
  process.exit(64);
}

const { request, initialize, close } = startMcpServer(dist, project, ['--project', project, '--host', host]);

async function tool(name, args) {
  const reply = await request('tools/call', { name, arguments: args });
  if (reply.error) throw new Error(`${name}: ${reply.error.message}`);
  return replyText(reply);
}

try {
  await initialize('check-hosts-holder');
  await tool('opencomms_create', { channel, role: 'holder', role_prompt: 'You hold the files under test.' });
  const status = await tool('opencomms_status', {});
  const memberId = /"member_id":"([^"]+)"/.exec(status)?.[1] ?? null;
  const reserve = await tool('opencomms_reserve', { channel, paths, reason: 'check-hosts: held while other hosts try to write', ttl_minutes: 60 });
  const record = { member_id: memberId, channel, reserve };
  writeFileSync(out, `${JSON.stringify(record)}\n`);
  // Present until told to finish (at most 20 minutes).
  const started = Date.now();
  while (!existsSync(go) && Date.now() - started < 20 * 60_000) await new Promise((r) => setTimeout(r, 100));
  record.inbox = await tool('opencomms_inbox', { channel });
  record.release = await tool('opencomms_release', { channel });
  writeFileSync(out, `${JSON.stringify(record)}\n`);
} catch (err) {
  writeFileSync(`${out}.error`, `${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  close();
}
