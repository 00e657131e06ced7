#!/usr/bin/env node
// A second member for scripts/check-hosts-doors.sh: one OpenComms MCP server
// (dist/opencomms.js serve) driven over stdio by a list of steps, the way a
// host would drive it. With --thread, every tools/call carries
// `_meta.threadId` as Codex sends it, so the server knows its member by that
// thread. No dependencies.
//
//   node scripts/mcp-send.mjs --dist FILE --project DIR --host ID --out FILE
//        --steps FILE [--thread ID]
//
// The steps FILE is a JSON list, run in order:
//   { "tool": NAME, "arguments": {...} }   calls a tool
//   { "wait_file": PATH, "timeout_s": N }  waits until PATH exists (default 300 s)
// Each finished step appends one JSON line to --out:
//   { step, tool, sent_at, reply_at, ok, text }   (times: epoch ms)
//   { step, waited: PATH, found, at }
// and a last line { done: true, at } (or { error, at }) once all ran.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { replyText, startMcpServer } from './lib/mcp-stdio.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const [dist, project, host, out, stepsFile] = ['--dist', '--project', '--host', '--out', '--steps'].map((n) => option(n));
const thread = option('--thread');
if (!dist || !project || !host || !out || !stepsFile) {
  process.stderr.write('usage: mcp-send.mjs --dist FILE --project DIR --host ID --out FILE --steps FILE [--thread ID]\n');
  process.exit(64);
}
const steps = JSON.parse(readFileSync(stepsFile, 'utf8'));
const write = (record) => appendFileSync(out, `${JSON.stringify(record)}\n`);

const { request, initialize, close } = startMcpServer(dist, project, ['serve', '--project', project, '--host', host]);

try {
  await initialize('check-hosts-sender');
  for (const [index, step] of steps.entries()) {
    if (typeof step.wait_file === 'string') {
      const deadline = Date.now() + (step.timeout_s ?? 300) * 1000;
      while (!existsSync(step.wait_file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      write({ step: index, waited: step.wait_file, found: existsSync(step.wait_file), at: Date.now() });
      continue;
    }
    const params = { name: step.tool, arguments: step.arguments ?? {} };
    if (thread) params._meta = { threadId: thread };
    const sentAt = Date.now();
    const reply = await request('tools/call', params);
    const replyAt = Date.now();
    const text = reply.error ? `error: ${reply.error.message}` : replyText(reply);
    write({ step: index, tool: step.tool, sent_at: sentAt, reply_at: replyAt, ok: !reply.error && reply.result?.isError !== true, text });
  }
  write({ done: true, at: Date.now() });
} catch (err) {
  write({ error: err instanceof Error ? err.message : String(err), at: Date.now() });
  process.exitCode = 1;
} finally {
  close();
}
