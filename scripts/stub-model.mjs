#!/usr/bin/env node
// A stand-in for a model API on 127.0.0.1, so a real host CLI can run whole
// turns offline: it runs its MCP servers, calls their tools and runs its hooks
// as in real use, while the "model" answers from a script. It speaks three
// APIs: Anthropic Messages (`claude -p`, ANTHROPIC_BASE_URL), OpenAI Responses
// (`codex exec`, a model provider whose base_url ends in /v1) and Gemini
// (`gemini -p`, GOOGLE_GEMINI_BASE_URL). No dependencies. Used by
// scripts/check-hosts.sh.
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
// no state: the step to answer with is the number of model replies the
// request already holds after the last user message that names a tag (a
// reply is a run of assistant items with nothing else between them). So a
// resumed session (whose history holds an older tag) follows its new prompt's
// tag, and extra rounds the host adds (a Stop hook's feedback) simply move on
// to the next step. A user message nobody typed (a host door's notice) can
// name a tag too: the script's "_when" list, [{ "text": "...", "tag": "..." }],
// makes a user message that holds a text name that text's tag (a [stub:TAG]
// in the same message wins). Past the last step, or with no tag, the turn ends with a
// short text. A step may be { "text": "..." } (ends the turn) or
// { "tool": NAME, "input": {...}, "text"?: "..." } (asks for a tool call; NAME is
// a tool the request offers, such as Claude Code's own Edit, Codex's
// apply_patch or Gemini's write_file, or an mcp__ name, or a short OpenComms
// tool name; on the Responses API a tool the request offers as `custom`, such
// as apply_patch, is called with "input" as its text). A text step with "after_file": PATH is held
// back until PATH exists (at most 100 s), and PATH.waiting is created meanwhile,
// so a script can make something happen just before the turn would end.
// A tool step may take values from the newest tool output the request holds:
// "from_output": { FIELD: REGEX } sets input FIELD to REGEX's first capture in
// that output (a number when it is all digits), e.g. Codex's write_stdin
// session_id from `Process running with session ID N`.
//
// Only requests that offer tools are treated as the main loop; the host's
// side requests (titles, summaries, quota probes, Gemini's next-speaker
// check) get a short text. POST /v1/messages/count_tokens and Gemini's
// :countTokens answer a rough count.
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

/** The text of a message's content (a string, or the text of its text blocks, any API's). */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block) => (block && typeof block.text === 'string' ? block.text : '')).join('\n');
}

// Each API's conversation as a list of { role: 'user' | 'assistant' | 'other', text }.
const RESPONSES_CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
// Codex's tool search (a call and its output) only finds the tool a step names: it is not a step of its own.
const SEARCH_ITEMS = new Set(['tool_search_call', 'tool_search_output']);
const CONVERSATION = {
  anthropic: (body) => (Array.isArray(body.messages) ? body.messages : [])
    .map((m) => ({ role: m.role === 'user' || m.role === 'assistant' ? m.role : 'other', text: textOf(m.content) })),
  responses: (body) => (Array.isArray(body.input) ? body.input : []).filter((item) => !SEARCH_ITEMS.has(item?.type)).map((item) => {
    if (RESPONSES_CALLS.has(item.type) || (item.type === 'message' && item.role === 'assistant')) return { role: 'assistant', text: '' };
    if (item.type === 'message' && item.role === 'user') return { role: 'user', text: textOf(item.content) };
    return { role: 'other', text: '' };
  }),
  gemini: (body) => (Array.isArray(body.contents) ? body.contents : [])
    .map((c) => ({ role: c.role === 'model' ? 'assistant' : c.role === 'user' ? 'user' : 'other', text: textOf(c.parts) })),
};

/** The tools a request offers: [{ name, custom }] (custom: a Responses API freeform tool). */
const OFFERED = {
  anthropic: (body) => (Array.isArray(body.tools) ? body.tools : []).map((t) => ({ name: t?.name, custom: false })),
  responses: (body) => {
    // Codex offers MCP tools in namespaces ({ type: 'namespace', name, tools }), up front or, when
    // deferred, in the output of its own tool_search; a call to one names the tool and its namespace.
    const offered = [];
    const add = (t, namespace) => {
      if (t?.type === 'namespace' && Array.isArray(t.tools)) t.tools.forEach((inner) => add(inner, t.name));
      else offered.push({ name: t?.name ?? t?.type, custom: t?.type === 'custom', namespace });
    };
    (Array.isArray(body.tools) ? body.tools : []).forEach((t) => add(t));
    (Array.isArray(body.input) ? body.input : []).filter((item) => item?.type === 'tool_search_output')
      .forEach((item) => (Array.isArray(item.tools) ? item.tools : []).forEach((t) => add(t)));
    return offered;
  },
  gemini: (body) => (Array.isArray(body.tools) ? body.tools : []).flatMap((t) => (Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : []))
    .map((f) => ({ name: f?.name, custom: false })),
};

const TAG = /\[stub:([A-Za-z0-9_-]+)\]/g;

/** The step this request asks for: its tag's steps and how far the conversation is into them. */
function pickStep(turns) {
  const script = readScript();
  const when = Array.isArray(script._when) ? script._when.filter((w) => typeof w?.text === 'string' && typeof w?.tag === 'string') : [];
  let tagAt = -1;
  let tag;
  for (let i = turns.length - 1; i >= 0 && tagAt === -1; i--) {
    if (turns[i].role !== 'user') continue;
    const found = [...turns[i].text.matchAll(TAG)];
    const trigger = when.find((w) => turns[i].text.includes(w.text));
    if (found.length > 0 || trigger) {
      tagAt = i;
      tag = found.length > 0 ? found[found.length - 1][1] : trigger.tag;
    }
  }
  if (tag === undefined) return { tag, index: 0, step: undefined };
  // One reply per run of assistant items: a Responses reply may be a message and a call.
  const index = turns.slice(tagAt + 1).filter((t, i, rest) => t.role === 'assistant' && (i === 0 || rest[i - 1].role !== 'assistant')).length;
  const steps = script[tag];
  return { tag, index, step: Array.isArray(steps) ? steps[index] : undefined };
}

/**
 * The offered tool a step names: the name itself; else, for a short name,
 * the offered tool that ends with it (Claude Code and Codex name an MCP tool
 * mcp__opencomms__NAME, Gemini CLI by its own name); else mcp__opencomms__NAME.
 */
function resolveTool(offered, wanted) {
  const exact = offered.find((t) => t.name === wanted || (t.namespace !== undefined && `${t.namespace}__${t.name}` === wanted));
  if (exact) return exact;
  const suffixed = offered.find((t) => typeof t.name === 'string' && (t.name.endsWith(`__${wanted}`) || t.name.endsWith(`_${wanted}`)));
  return suffixed ?? { name: wanted.startsWith('mcp__') ? wanted : `mcp__opencomms__${wanted}`, custom: false, missing: true };
}

/**
 * What to answer with: { blocks: [{ type: 'text', text } | { type: 'tool_use', id, name, input, custom }], stop, why, afterFile? }.
 * The main loop offers tools (MCP tools may be deferred behind a tool search); side requests offer none.
 */
function answerFor(api, body) {
  const offered = OFFERED[api](body);
  if (offered.length === 0) return { blocks: [{ type: 'text', text: 'Stub session' }], stop: 'end_turn', why: 'side request' };
  const { tag, index, step } = pickStep(CONVERSATION[api](body));
  const why = `tag ${tag ?? '(none)'} step ${index}`;
  if (step === undefined) return { blocks: [{ type: 'text', text: 'Done.' }], stop: 'end_turn', why: `${why}: past the script` };
  const blocks = [];
  if (typeof step.text === 'string') blocks.push({ type: 'text', text: step.text });
  if (typeof step.tool === 'string') {
    const tool = resolveTool(offered, step.tool);
    // Not offered yet, but Codex can look it up: search for it first (the search is no step of its own).
    // One search per step: when the last search did not find it either, call it anyway (the host says it is unknown).
    const input = Array.isArray(body.input) ? body.input : [];
    const justSearched = input.length > 0 && input[input.length - 1]?.type === 'tool_search_output';
    if (tool.missing && !justSearched && api === 'responses' && offered.some((t) => t.name === 'tool_search')) {
      const query = step.tool.replace(/^mcp__[^_]+(?:_[^_]+)*?__/, '');
      blocks.push({ type: 'tool_search', id: `tsc_stub_${String(seq).padStart(6, '0')}`, query });
      return { blocks: blocks.filter((b) => b.type !== 'text'), stop: 'tool_use', why: `${why}: searching for ${step.tool} (tool_search)` };
    }
    const callInput = withOutputValues(step.input ?? {}, step.from_output, newestToolOutput(api, body));
    blocks.push({ type: 'tool_use', id: `toolu_stub_${String(seq).padStart(6, '0')}`, name: tool.name, input: callInput, custom: tool.custom, namespace: tool.namespace });
    return { blocks, stop: 'tool_use', why: tool.missing ? `${why}: ${step.tool} is not among the offered tools (${offered.map((t) => t.name).join(', ')})` : why };
  }
  if (blocks.length === 0) blocks.push({ type: 'text', text: 'Done.' });
  return { blocks, stop: 'end_turn', why, afterFile: typeof step.after_file === 'string' ? step.after_file : undefined };
}

/** The text of the newest tool output in a request ('' when none). */
function newestToolOutput(api, body) {
  const texts = api === 'responses'
    ? (Array.isArray(body.input) ? body.input : []).filter((i) => i?.type === 'function_call_output' || i?.type === 'custom_tool_call_output')
      .map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output ?? '')))
    : api === 'anthropic'
      ? (Array.isArray(body.messages) ? body.messages : []).flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((c) => c?.type === 'tool_result').map((c) => (typeof c.content === 'string' ? c.content : JSON.stringify(c.content ?? '')))
      : (Array.isArray(body.contents) ? body.contents : []).flatMap((c) => (Array.isArray(c.parts) ? c.parts : []))
        .filter((p) => p?.functionResponse).map((p) => JSON.stringify(p.functionResponse));
  return texts.length === 0 ? '' : texts[texts.length - 1];
}

/** A step's input with each `from_output` field set from `output`. */
function withOutputValues(input, fromOutput, output) {
  if (fromOutput === null || typeof fromOutput !== 'object') return input;
  const filled = { ...input };
  for (const [field, pattern] of Object.entries(fromOutput)) {
    const match = new RegExp(pattern).exec(output);
    if (match) filled[field] = /^\d+$/.test(match[1] ?? '') ? Number(match[1]) : match[1] ?? match[0];
  }
  return filled;
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

/** Anthropic content blocks (a tool_use without the stub's own fields). */
function anthropicBlocks(blocks) {
  return blocks.map((b) => (b.type === 'text' ? b : { type: 'tool_use', id: b.id, name: b.name, input: b.input }));
}

/**
 * The Responses API items of an answer: an assistant message for text, a
 * function_call (arguments as JSON text) or, for a freeform tool, a
 * custom_tool_call (its input text: the step's "input" when a string, else its "input" field).
 */
function responsesItems(answer) {
  return answer.blocks.map((b, i) => {
    if (b.type === 'text') {
      return { type: 'message', id: `msg_stub_${seq}_${i}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: b.text, annotations: [] }] };
    }
    const callId = `call_stub_${String(seq).padStart(6, '0')}_${i}`;
    if (b.type === 'tool_search') {
      return { type: 'tool_search_call', id: b.id, call_id: callId, status: 'completed', execution: 'client', arguments: { query: b.query, limit: 8 } };
    }
    if (b.custom) {
      const input = typeof b.input === 'string' ? b.input : typeof b.input?.input === 'string' ? b.input.input : JSON.stringify(b.input);
      return { type: 'custom_tool_call', id: `ctc_stub_${seq}_${i}`, status: 'completed', call_id: callId, name: b.name, input };
    }
    const call = { type: 'function_call', id: `fc_stub_${seq}_${i}`, status: 'completed', call_id: callId, name: b.name, arguments: JSON.stringify(b.input ?? {}) };
    return b.namespace === undefined ? call : { ...call, namespace: b.namespace };
  });
}

function sendResponses(res, body, answer) {
  const id = `resp_stub_${String(seq).padStart(6, '0')}`;
  const items = responsesItems(answer);
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model || 'stub-model', status: 'completed' };
  if (body.stream !== true) {
    sendJson(res, 200, { ...response, output: items, usage });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('response.created', { response: { ...response, status: 'in_progress', output: [] } });
  items.forEach((item, index) => {
    event('response.output_item.added', { output_index: index, item });
    event('response.output_item.done', { output_index: index, item });
  });
  event('response.completed', { response: { ...response, output: items, usage } });
  res.end();
}

/** Gemini parts of an answer: text, or a functionCall with its args. */
function geminiChunk(body, answer) {
  const parts = answer.blocks.map((b) => (b.type === 'text' ? { text: b.text } : { functionCall: { name: b.name, args: b.input ?? {} } }));
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'stub-model',
  };
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
    // Gemini: /v1beta/models/MODEL:streamGenerateContent (?alt=sse), :generateContent, :countTokens.
    const gemini = /^\/v1(?:beta|alpha)?\/models\/[^/:]+:(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (req.method === 'POST' && gemini && gemini[1] === 'countTokens') {
      record({ ...entry, reply: 'count_tokens' });
      sendJson(res, 200, { totalTokens: Math.max(1, Math.ceil(raw.length / 4)) });
      return;
    }
    const api = req.method !== 'POST' ? undefined
      : path === '/v1/messages' ? 'anthropic' : path === '/v1/responses' ? 'responses' : gemini ? 'gemini' : undefined;
    if (api !== undefined) {
      const answer = answerFor(api, body);
      const reply = () => {
        record({ ...entry, api, reply: { why: answer.why, stop: answer.stop, blocks: answer.blocks } });
        if (api === 'responses') {
          sendResponses(res, body, answer);
        } else if (api === 'gemini' && gemini[1] === 'streamGenerateContent') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
          res.end(`data: ${JSON.stringify(geminiChunk(body, answer))}\r\n\r\n`);
        } else if (api === 'gemini') {
          sendJson(res, 200, geminiChunk(body, answer));
        } else if (body.stream === true) {
          sendStream(res, body, answer);
        } else {
          sendJson(res, 200, { ...messageShell(body.model), content: anthropicBlocks(answer.blocks), stop_reason: answer.stop });
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
