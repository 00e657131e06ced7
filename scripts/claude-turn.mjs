#!/usr/bin/env node
// Runs one host turn for scripts/check-hosts.sh (`claude -p … --output-format
// stream-json --verbose`, or with --api responses `codex exec --json …`, with
// --api gemini `gemini -p … --output-format json`), times it, and reads back
// from the stub model's request log (scripts/stub-model.mjs) what the model
// was shown during it.
//
//   node scripts/claude-turn.mjs --name N --out DIR --stub-log FILE [--timeout S]
//        [--api anthropic|responses|gemini] [--find TEXT]... -- HOST ARGS...
//
// The child runs in the current folder with the current environment. Writes
// DIR/N.stream.jsonl (Claude Code's stdout), DIR/N.stderr and DIR/N.json:
//   { name, exit_code, signal, timed_out, wall_ms, result_ms, after_result_ms,
//     session_id, tool_results: [{ name, text }], hooks: [...], found: { TEXT: snippet|null },
//     shown_times: { TEXT: n } }
// where result_ms is when the `result` event (Codex: `turn.completed`; the end of the turn) came,
// after_result_ms how much longer the process took to exit, tool_results the
// tool results the model was sent in this turn, and found, for each --find
// TEXT, where the model was first shown it (or null), and shown_times how many
// content blocks of the turn's last request hold it. Prints a one-line summary.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
if (dash === -1 || dash === argv.length - 1) {
  process.stderr.write('usage: claude-turn.mjs --name N --out DIR --stub-log FILE [--timeout S] [--find TEXT]... -- claude ARGS...\n');
  process.exit(64);
}
const own = argv.slice(0, dash);
const command = argv.slice(dash + 1);
const option = (name, fallback) => {
  const at = own.indexOf(name);
  return at === -1 ? fallback : own[at + 1];
};
const finds = own.flatMap((value, i) => (own[i - 1] === '--find' ? [value] : []));
const name = option('--name', 'turn');
const outDir = option('--out', '.');
const stubLog = option('--stub-log');
const timeoutMs = Number(option('--timeout', '120')) * 1000;
const api = option('--api', 'anthropic');

function stubRequests() {
  if (!stubLog || !existsSync(stubLog)) return [];
  return readFileSync(stubLog, 'utf8').split('\n').filter(Boolean).flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

const seqBefore = stubRequests().reduce((max, r) => Math.max(max, r.seq ?? 0), 0);
const started = process.hrtime.bigint();
const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
const stdout = [];
const stderr = [];
let resultMs;
let pending = '';
child.stdout.setEncoding('utf8').on('data', (chunk) => {
  stdout.push(chunk);
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf('\n')) !== -1) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (resultMs === undefined && /"type":"(result|turn\.completed)"/.test(line)) resultMs = elapsed();
  }
});
child.stderr.setEncoding('utf8').on('data', (chunk) => stderr.push(chunk));
let timedOut = false;
const killer = setTimeout(() => {
  timedOut = true;
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
}, timeoutMs);
child.on('error', (err) => {
  stderr.push(`spawn failed: ${err.message}\n`);
});

const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, ms: elapsed() })));
// A grandchild holding our pipes must not hold up the report: give the pipes a moment after exit, no more.
const closed = new Promise((resolve) => child.on('close', resolve));

const { code, signal, ms } = await exited;
clearTimeout(killer);
await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);

const events = stdout.join('').split('\n').filter(Boolean).flatMap((line) => {
  try {
    return [JSON.parse(line)];
  } catch {
    return [];
  }
});
const sessionId = events.find((e) => e.type === 'system' && e.subtype === 'init')?.session_id
  ?? events.find((e) => e.type === 'result')?.session_id ?? events.find((e) => e.type === 'thread.started')?.thread_id
  ?? (() => {
    try {
      return JSON.parse(stdout.join('')).session_id ?? null; // gemini --output-format json: one object
    } catch {
      return null;
    }
  })();
const hooks = events.filter((e) => e.type === 'system' && e.subtype === 'hook_response')
  .map((e) => `${e.hook_name}${e.exit_code === 0 ? '' : ` exit ${e.exit_code}`}`);

// What the model was shown in this turn: the stub's main-loop requests since the turn began.
const PATHS = { anthropic: /^\/v1\/messages$/, responses: /^\/v1\/responses$/, gemini: /:(?:stream)?[gG]enerateContent$/ };
const requests = stubRequests().filter((r) => r.seq > seqBefore && PATHS[api].test(r.path));
const offersTools = (body) => (api === 'gemini'
  ? (body?.tools ?? []).some((t) => Array.isArray(t.functionDeclarations) && t.functionDeclarations.length > 0)
  : Array.isArray(body?.tools) && body.tools.length > 0);
const mainLoop = requests.filter((r) => offersTools(r.body));
const last = mainLoop[mainLoop.length - 1];
/** A request's conversation, one entry per message or item: { role, blocks }, blocks as the API has them. */
function messagesOf(body) {
  if (api === 'responses') {
    return (body?.input ?? []).map((item) => ({ role: item.role ?? item.type, blocks: item.type === 'message' ? (Array.isArray(item.content) ? item.content : [{ type: 'text', text: String(item.content) }]) : [item] }));
  }
  if (api === 'gemini') return (body?.contents ?? []).map((c) => ({ role: c.role, blocks: c.parts ?? [] }));
  return (body?.messages ?? []).map((m) => ({ role: m.role, blocks: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (Array.isArray(m.content) ? m.content : []) }));
}
// What a block shows the model; the model's own calls show it nothing.
const OWN_CALLS = new Set(['tool_use', 'function_call', 'custom_tool_call', 'local_shell_call']);
const blockText = (block) => (OWN_CALLS.has(block.type) || block.functionCall ? '' : typeof block.text === 'string' ? block.text : JSON.stringify(block));
/** The tool results of a conversation after its last prompt that names a stub tag: [{ name, text }]. */
function toolResultsOf(messages) {
  let from = 0;
  messages.forEach((m, i) => {
    if (m.role === 'user' && /\[stub:[A-Za-z0-9_-]+\]/.test(JSON.stringify(m.blocks))) from = i;
  });
  const names = new Map();
  const results = [];
  const outputText = (output) => (typeof output === 'string' ? output
    : Array.isArray(output) ? output.map((c) => c.text ?? JSON.stringify(c)).join('\n') : JSON.stringify(output));
  for (const m of messages.slice(from)) {
    for (const block of m.blocks) {
      if (block.type === 'tool_use') names.set(block.id, block.name);
      if (block.type === 'tool_result') {
        const text = typeof block.content === 'string' ? block.content
          : (block.content ?? []).map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n');
        results.push({ name: names.get(block.tool_use_id) ?? '?', text });
      }
      if (block.type === 'function_call' || block.type === 'custom_tool_call') names.set(block.call_id, block.name);
      if (block.type === 'function_call_output' || block.type === 'custom_tool_call_output') {
        results.push({ name: names.get(block.call_id) ?? '?', text: outputText(block.output?.content ?? block.output) });
      }
      if (block.functionResponse) {
        const r = block.functionResponse.response ?? {};
        results.push({ name: block.functionResponse.name ?? '?', text: typeof r.error === 'string' ? r.error : typeof r.output === 'string' ? r.output : JSON.stringify(r) });
      }
    }
  }
  return results;
}
const toolResults = last ? toolResultsOf(messagesOf(last.body)) : [];
const found = {};
for (const needle of finds) {
  found[needle] = null;
  // Where it was shown: the message's role and the start of the text that holds it (e.g. "SessionStart hook additional context: …").
  for (const r of mainLoop) {
    for (const m of messagesOf(r.body)) {
      for (const block of m.blocks) {
        const text = blockText(block);
        if (text.includes(needle)) {
          found[needle] = `${m.role} ${block.type ?? Object.keys(block)[0]}: ${text.slice(0, 100).replace(/\s+/g, ' ')}…`;
          break;
        }
      }
      if (found[needle] !== null) break;
    }
    if (found[needle] !== null) break;
  }
}

// How many times the last request (which holds the whole conversation) shows each --find TEXT: mail must come once.
const shownTimes = {};
for (const needle of finds) {
  shownTimes[needle] = 0;
  for (const m of last ? messagesOf(last.body) : []) {
    for (const block of m.blocks) if (blockText(block).includes(needle)) shownTimes[needle] += 1;
  }
}

const summary = {
  name, command: command.join(' '), exit_code: code, signal, timed_out: timedOut, wall_ms: ms,
  result_ms: resultMs ?? null, after_result_ms: resultMs === undefined ? null : ms - resultMs,
  session_id: sessionId, model_requests: requests.length, tool_results: toolResults, hooks, found, shown_times: shownTimes,
};
writeFileSync(join(outDir, `${name}.stream.jsonl`), stdout.join(''));
writeFileSync(join(outDir, `${name}.stderr`), stderr.join(''));
writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(summary, null, 2)}\n`);
const secs = (value) => (value === null ? '?' : `${(value / 1000).toFixed(2)} s`);
process.stdout.write(`turn ${name}: ${timedOut ? `TIMED OUT after ${secs(ms)}` : `exit ${code ?? signal} after ${secs(ms)}`}`
  + ` (turn ended at ${secs(summary.result_ms)}, exit ${secs(summary.after_result_ms)} later); session ${sessionId};`
  + ` ${requests.length} model request(s), tools: ${toolResults.map((t) => t.name.replace(/^mcp__.*?__/, '')).join(', ') || 'none'}\n`);
