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
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';

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

const server = spawn(process.execPath, [dist, '--project', project, '--host', host], { cwd: project, stdio: ['pipe', 'pipe', 'inherit'] });
const waiters = new Map();
let buffered = '';
let nextId = 1;
server.stdout.setEncoding('utf8').on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) !== -1) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (message.id !== undefined && waiters.has(message.id)) {
      waiters.get(message.id)(message);
      waiters.delete(message.id);
    }
  }
});
server.on('exit', (code) => {
  for (const w of waiters.values()) w({ error: { message: `server exited (${code})` } });
});

function request(method, params) {
  const id = nextId++;
  server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to ${method} within 30 s`)), 30_000);
    waiters.set(id, (m) => {
      clearTimeout(timer);
      resolve(m);
    });
  });
}

async function tool(name, args) {
  const reply = await request('tools/call', { name, arguments: args });
  if (reply.error) throw new Error(`${name}: ${reply.error.message}`);
  return (reply.result?.content ?? []).map((c) => c.text ?? '').join('\n');
}

try {
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'check-hosts-holder', version: '0' } });
  server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
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
  server.stdin.end();
  setTimeout(() => server.kill(), 3_000).unref();
}
