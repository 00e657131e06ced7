#!/usr/bin/env node
// A stand-in for the Anthropic Messages API on 127.0.0.1, so a real
// `claude -p` can run whole turns offline: it runs its MCP servers, calls
// their tools and runs its hooks as in real use, while the "model" answers
// from a script. No dependencies. Used by scripts/check-hosts.sh.
//
//   node scripts/stub-model.mjs --script FILE --log FILE [--port N]
//
// Prints `listening <port>` on stdout once it accepts connections, and runs
// until killed.
//
// The script FILE (read again on every request, so it may change between
// runs) maps a tag to the steps of one turn:
//   { "a1": [ { "tool": "mcp__opencomms__opencomms_status", "input": {} },
//             { "text": "done" } ] }
// A turn picks its steps with `[stub:TAG]` in the user's prompt. The stub keeps
// no state: the step to answer with is the number of assistant messages the
// request already holds after the last user message that names a tag. So a
// resumed session (whose history holds an older tag) follows its new prompt's
// tag, and extra rounds the host adds (a Stop hook's feedback) simply move on
// to the next step. Past the last step, or with no tag, the turn ends with a
// short text. A step may be { "text": "..." } (ends the turn) or
// { "tool": NAME, "input": {...}, "text"?: "..." } (asks for a tool call; NAME is
// a tool the request offers, such as Claude Code's own Edit, or an mcp__ name,
// or a short OpenComms tool name). A text step with "after_file": PATH is held
// back until PATH exists (at most 100 s), and PATH.waiting is created meanwhile,
// so a script can make something happen just before the turn would end.
//
// Only requests that offer at least one `mcp__` tool are treated as the
// main loop; the host's side requests (titles, summaries, quota probes)
// get a short text. POST /v1/messages/count_tokens answers a rough count.
//
// Every request is appended to the --log FILE as one JSON line
// { seq, at, method, path, headers, body, reply }, so a check can read what
// the model was shown: tool results, hook context, Stop hook feedback.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';

function argValue(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}

const scriptFile = argValue('--script');
const logFile = argValue('--log');
const port = Number(argValue('--port', '0'));
let seq = 0;

function readScript() {
  if (!scriptFile) return {};
  try {
    return JSON.parse(readFileSync(scriptFile, 'utf8'));
  } catch {
    return {};
  }
}

/** The text of a message's content (a string, or the text of its text blocks). */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block) => (block && block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('\n');
}

const TAG = /\[stub:([A-Za-z0-9_-]+)\]/g;

/** The step this request asks for: its tag's steps and how far the conversation is into them. */
function pickStep(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  let tagAt = -1;
  let tag;
  for (let i = messages.length - 1; i >= 0 && tagAt === -1; i--) {
    if (messages[i].role !== 'user') continue;
    const found = [...textOf(messages[i].content).matchAll(TAG)];
    if (found.length > 0) {
      tagAt = i;
      tag = found[found.length - 1][1];
    }
  }
  if (tag === undefined) return { tag, index: 0, step: undefined };
  const index = messages.slice(tagAt + 1).filter((m) => m.role === 'assistant').length;
  const steps = readScript()[tag];
  return { tag, index, step: Array.isArray(steps) ? steps[index] : undefined };
}

/** The main loop offers tools (MCP tools may be deferred behind a tool search); side requests offer none. */
function isMainLoop(body) {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

/** The content blocks and stop reason to answer with. */
function answerFor(body) {
  if (!isMainLoop(body)) return { blocks: [{ type: 'text', text: 'Stub session' }], stop: 'end_turn', why: 'side request' };
  const { tag, index, step } = pickStep(body);
  const why = `tag ${tag ?? '(none)'} step ${index}`;
  if (step === undefined) return { blocks: [{ type: 'text', text: 'Done.' }], stop: 'end_turn', why: `${why}: past the script` };
  const blocks = [];
  if (typeof step.text === 'string') blocks.push({ type: 'text', text: step.text });
  if (typeof step.tool === 'string') {
    // A host's own tool (Read, Edit, Write…) as named; any other short name is an OpenComms tool.
    const offered = body.tools.some((t) => t && t.name === step.tool);
    const name = step.tool.startsWith('mcp__') || offered ? step.tool : `mcp__opencomms__${step.tool}`;
    blocks.push({ type: 'tool_use', id: `toolu_stub_${String(seq).padStart(6, '0')}`, name, input: step.input ?? {} });
    return { blocks, stop: 'tool_use', why };
  }
  if (blocks.length === 0) blocks.push({ type: 'text', text: 'Done.' });
  return { blocks, stop: 'end_turn', why, afterFile: typeof step.after_file === 'string' ? step.after_file : undefined };
}

/** Answers once FILE exists (or after 100 s); says it is holding by creating FILE.waiting. */
function holdUntil(file, reply) {
  try {
    writeFileSync(`${file}.waiting`, '');
  } catch {
    // Only a signal for the script that drives the turn.
  }
  const started = Date.now();
  const tick = setInterval(() => {
    if (existsSync(file) || Date.now() - started > 100_000) {
      clearInterval(tick);
      reply();
    }
  }, 50);
}

function messageShell(model) {
  return {
    id: `msg_stub_${String(seq).padStart(6, '0')}`, type: 'message', role: 'assistant', model: model || 'stub-model',
    content: [], stop_reason: null, stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function sendStream(res, body, answer) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: messageShell(body.model) });
  answer.blocks.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason: answer.stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  event('message_stop', {});
  res.end();
}

function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function record(entry) {
  if (!logFile) return;
  try {
    appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
  } catch {
    // A log that cannot be written must not break the host's turn.
  }
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    seq += 1;
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = {};
    try {
      body = raw === '' ? {} : JSON.parse(raw);
    } catch {
      body = { unparsed: raw.slice(0, 2000) };
    }
    const path = (req.url || '').split('?')[0];
    const headers = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (!/^(authorization|x-api-key)$/i.test(key)) headers[key] = value;
    }
    const entry = { seq, at: Date.now(), method: req.method, path, headers, body };
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      record({ ...entry, reply: 'count_tokens' });
      sendJson(res, 200, { input_tokens: Math.max(1, Math.ceil(raw.length / 4)) });
      return;
    }
    if (req.method === 'POST' && path === '/v1/messages') {
      const answer = answerFor(body);
      const reply = () => {
        record({ ...entry, reply: { why: answer.why, stop: answer.stop, blocks: answer.blocks } });
        if (body.stream === true) {
          sendStream(res, body, answer);
        } else {
          sendJson(res, 200, { ...messageShell(body.model), content: answer.blocks, stop_reason: answer.stop });
        }
      };
      if (answer.afterFile === undefined) reply();
      else holdUntil(answer.afterFile, reply);
      return;
    }
    record({ ...entry, reply: 404 });
    sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `stub-model: no ${req.method} ${path}` } });
  });
});

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
