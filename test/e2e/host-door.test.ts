// The host doors end to end (issue 27): a real recipient server, started with
// the environment its host gives it, wakes its idle session through the
// host's own door: the Claude Code inbox (a Unix-socket stand-in here) or
// `codex queue` (a stub recording its argv). The session's turn is written by
// the real hook CLI. "Nothing rang" is asserted only once the server has
// shown (opencomms_status, door.held_back or door.tries) that it looked.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, startServer, tempProject, type Json, type ServerProcess } from '../helpers/server';
import { until } from '../helpers/wait';
import { create, join, member, memberEnv, ok } from './tools-support';
import { hookEvent, parsed, startInbox, stderrCount, stubCodex, type InboxMode, type InboxStandIn } from './door-support';

const TOKEN = 'tok-123';
const CC_SESSION = 'cc-reviewer';
const THREAD = 'thr-reviewer';
const INBOX_FAILURE = 'could not wake the session through the Claude Code inbox';

interface Pair { project: string; writer: ServerProcess; reviewer: ServerProcess }

/** The reviewer's own view of its door, as opencomms_status shows it. */
async function doorOf(reviewer: ServerProcess, call = (name: string, args: Json) => reviewer.callTool(name, args)): Promise<Json> {
  const status = await call('opencomms_status', {});
  assert.equal(status.ok, true);
  return status.data.door;
}

/** A writer (plain MCP) and a Claude Code reviewer whose server has the inbox env; the reviewer's session idle. */
async function claudePair(t: TestContext, socket: string): Promise<Pair> {
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'review', 'writer');
  const reviewer = startServer(t, {
    project,
    args: ['--project', project, '--host', 'claude-code'],
    env: { ...memberEnv(undefined), CLAUDE_CODE_SESSION_ID: CC_SESSION, CLAUDE_CODE_MESSAGING_SOCKET: socket, CLAUDE_CODE_MESSAGING_TOKEN: TOKEN },
  });
  await reviewer.initialize();
  await join(reviewer, 'review', 'reviewer');
  await hookEvent(project, { hook_event_name: 'Stop', session_id: CC_SESSION });
  return { project, writer, reviewer };
}

async function inboxPair(t: TestContext, mode: InboxMode): Promise<Pair & { inbox: InboxStandIn }> {
  const inbox = await startInbox(t, mode);
  return { inbox, ...(await claudePair(t, inbox.path)) };
}

function pathOf(history: Json, messageId: string): Json[] {
  return history.data.messages.find((m: Json) => m.message_id === messageId).path;
}

test('idle Claude Code session: its own server writes the auth line, then one notice with the doorbell words, never the content', async (t) => {
  const { project, inbox, writer, reviewer } = await inboxPair(t, { kind: 'accept' });
  const secret = 'SECRET-parser-note-4711';
  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: `please look at ${secret}` });
  assert.equal(sent.data.arrivals[0].how, 'inbox', JSON.stringify(sent.data.arrivals));
  assert.match(sent.message, /How it arrives:\n- reviewer .*inbox/);

  const [auth, user] = parsed(await inbox.connection(1));
  assert.deepEqual(auth, { type: 'auth', token: TOKEN });
  assert.equal(user!.type, 'user');
  assert.equal(user!.message.role, 'user');
  assert.match(user!.message.content, /^1 OpenComms message waits for you: from writer on channel review \(newest ocm_\w+ sent [\d:]+ UTC\)\. Call opencomms_pull/);
  assert.equal(inbox.allLines().join('\n').includes(secret), false);

  // The ring is on record (status shows the path so far); the woken model pulls: delivered via the inbox.
  const waiting = await until('the ring on record', async () => {
    const status = await ok(reviewer, 'opencomms_status', {});
    const entry = status.data.mail_paths.find((m: Json) => m.message_id === sent.data.message_ids[0]);
    return entry?.path.some((s: Json) => s.step === 'rung') ? entry : undefined;
  });
  assert.equal(waiting.path[1].via, 'inbox');
  const cli = await runCli(['status', '--project', project]);
  assert.match(cli.stdout, new RegExp(`${sent.data.message_ids[0]} writer → reviewer on review: queued \\S+, rung via inbox \\S+`), cli.stdout);
  const pulled = await ok(reviewer, 'opencomms_pull', {});
  assert.equal(pulled.data.message_ids.length, 1);
  const id = sent.data.message_ids[0];
  const steps = await until('the pull committed', async () => {
    const path = pathOf(await ok(writer, 'opencomms_history', { channel: 'review' }), id);
    return path.some((s: Json) => s.step === 'delivered') ? path : undefined;
  });
  assert.deepEqual(steps.map((s: Json) => [s.step, s.via]), [['queued', undefined], ['rung', 'inbox'], ['delivered', 'inbox']]);
  // The answer completes the path.
  const reply = await ok(reviewer, 'opencomms_send', { channel: 'review', content: 'done', reply_to: id });
  const answered = pathOf(await ok(writer, 'opencomms_history', { channel: 'review' }), id);
  assert.deepEqual(answered[3], { step: 'answered', at: answered[3].at, by: reply.data.message_ids[0] });
  assert.equal(inbox.connections.length, 1);
});

test('one notice per batch: mail sent while a notice is outstanding waits for the session to run; own sends ring nothing', async (t) => {
  const { project, inbox, writer, reviewer } = await inboxPair(t, { kind: 'accept', authAnswer: '{"type":"auth_ok"}' });
  // The reviewer's own send rings the reviewer's inbox for nothing.
  await ok(reviewer, 'opencomms_send', { channel: 'review', content: 'my own note' });
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'first' });
  const first = parsed(await inbox.connection(1))[1]!;
  assert.match(first.message.content, /^1 OpenComms message waits for you: from writer/);

  await ok(writer, 'opencomms_send', { channel: 'review', content: 'second' });
  await until('the door held the second message back', async () => /outstanding/.test((await doorOf(reviewer)).held_back ?? ''));
  assert.equal(inbox.connections.length, 1);

  // The session runs (pull, its hooks), goes idle again; the next mail rings again, one notice.
  await ok(reviewer, 'opencomms_pull', {});
  await hookEvent(project, { hook_event_name: 'PostToolUse', session_id: CC_SESSION, tool_name: 'mcp__opencomms__opencomms_pull', tool_input: {} });
  await hookEvent(project, { hook_event_name: 'Stop', session_id: CC_SESSION });
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'third' });
  const third = parsed(await inbox.connection(2))[1]!;
  assert.match(third.message.content, /^1 OpenComms message waits for you: from writer/);
  assert.equal(inbox.connections.length, 2);
  assert.equal(inbox.allLines().some((l) => l.includes('my own note')), false);
});

test('a busy session gets no notice: its hooks bring the mail in; idle again, the next mail rings', async (t) => {
  const { project, inbox, writer, reviewer } = await inboxPair(t, { kind: 'accept' });
  await hookEvent(project, { hook_event_name: 'UserPromptSubmit', session_id: CC_SESSION, prompt: 'work' });
  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: 'while you work' });
  assert.equal(sent.data.arrivals[0].how, 'next_tool_call');
  await until('the door held back for a busy session', async () => /busy/.test((await doorOf(reviewer)).held_back ?? ''));
  assert.equal(inbox.connections.length, 0);

  const after = await hookEvent(project, { hook_event_name: 'PostToolUse', session_id: CC_SESSION, tool_name: 'Read', tool_input: { file_path: 'x' } });
  assert.match(after.hookSpecificOutput.additionalContext, /while you work/);
  const stop = await hookEvent(project, { hook_event_name: 'Stop', session_id: CC_SESSION });
  assert.deepEqual(stop, {});
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'now idle' });
  const notice = parsed(await inbox.connection(1))[1]!;
  assert.match(notice.message.content, /^1 OpenComms message waits/);
  assert.equal(inbox.connections.length, 1);
});

/** Sends twice; the first failure is said once on stderr and once in status errors; the mail stays pending, unrung. */
async function assertReportedOnce(pair: Pair & { inbox?: InboxStandIn }, problem: RegExp): Promise<void> {
  const { writer, reviewer } = pair;
  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: 'one' });
  await stderrCount(reviewer, INBOX_FAILURE);
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'two' });
  const door = await until('the second ring was tried', async () => {
    const d = await doorOf(reviewer);
    return d.tries >= 2 ? d : undefined;
  });
  assert.match(door.last_problem, problem);
  assert.equal(door.last_rung_at, null);
  assert.equal(reviewer.stderr.split(INBOX_FAILURE).length - 1, 1, reviewer.stderr);
  const status = await ok(reviewer, 'opencomms_status', {});
  const said = status.data.errors.filter((e: Json) => e.message.includes(INBOX_FAILURE));
  assert.equal(said.length, 1);
  assert.match(said[0].message, problem);
  assert.equal(status.data.your_pending, 2);
  const history = await ok(writer, 'opencomms_history', { channel: 'review' });
  assert.deepEqual(pathOf(history, sent.data.message_ids[0]).map((s: Json) => s.step), ['queued']);
}

test('an inbox that refuses the auth line: said once on stderr and in status, the mail waits unrung', async (t) => {
  const pair = await inboxPair(t, { kind: 'answer', afterAuth: '{"type":"error","error":"cross-session messages are refused here"}' });
  await assertReportedOnce(pair, /refused here/);
});

test('an inbox that holds the notice for a person to approve: said once, the mail waits', async (t) => {
  const pair = await inboxPair(t, { kind: 'answer', afterMessage: '{"type":"held","message":"waiting for approval"}' });
  await assertReportedOnce(pair, /waiting for approval/);
});

test('an inbox that hangs up at once: said once, the mail waits', async (t) => {
  const pair = await inboxPair(t, { kind: 'close' });
  await assertReportedOnce(pair, /closed|failed/);
});

test('no inbox at the socket path: said once, the mail waits', async (t) => {
  const pair = await claudePair(t, '/nonexistent-oc-dir/inbox.sock');
  await assertReportedOnce(pair, /refused the connection/);
});

test('an inbox that takes the notice without a word while the session never wakes: the ring is taken back after the confirmation window and said once; a hook after the next ring confirms it', async (t) => {
  // The real Claude Code inbox answers nothing, even to a wrong token: only the session waking proves a ring.
  const { project, inbox, writer, reviewer } = await inboxPair(t, { kind: 'accept' });
  const first = await ok(writer, 'opencomms_send', { channel: 'review', content: 'one' });
  await inbox.connection(1);
  await stderrCount(reviewer, INBOX_FAILURE);
  const door = await doorOf(reviewer);
  assert.match(door.last_problem, /no sign of waking within 5 s/);
  assert.equal(door.last_rung_at, null);
  assert.equal(door.confirmed_at, null);
  const history = await ok(writer, 'opencomms_history', { channel: 'review' });
  assert.deepEqual(pathOf(history, first.data.message_ids[0]).map((s: Json) => s.step), ['queued']);

  // The next batch rings again; this time the session wakes (its prompt hook runs): the ring stands.
  const second = await ok(writer, 'opencomms_send', { channel: 'review', content: 'two' });
  await inbox.connection(2);
  await hookEvent(project, { hook_event_name: 'UserPromptSubmit', session_id: CC_SESSION, prompt: 'wake' });
  const confirmed = await until('the ring confirmed', async () => {
    const d = await doorOf(reviewer);
    return d.confirmed_at !== null ? d : undefined;
  });
  assert.equal(confirmed.last_problem, null);
  // The prompt hook of the woken turn brought the mail in: rung through the inbox, in context through the hook, once.
  const after = await ok(writer, 'opencomms_history', { channel: 'review' });
  assert.deepEqual(pathOf(after, second.data.message_ids[0]).map((s: Json) => [s.step, s.via]), [['queued', undefined], ['rung', 'inbox'], ['delivered', 'hook']]);
  assert.equal(reviewer.stderr.split(INBOX_FAILURE).length - 1, 1, reviewer.stderr);
});

// ---- Codex: `codex queue --thread <id> --message NOTICE` --------------------------------

/** A tools/call as Codex makes it: `_meta.threadId` names the thread. */
function codexCall(server: ServerProcess) {
  return async (name: string, args: Json): Promise<Json> => {
    const reply = await server.request('tools/call', { name, arguments: args, _meta: { threadId: THREAD } });
    if (reply.error) throw new Error(`tools/call ${name}: ${JSON.stringify(reply.error)}`);
    return reply.result.structuredContent;
  };
}

async function codexPair(t: TestContext, exitCode = 0, stderr = '') {
  const project = tempProject(t);
  const codex = stubCodex(t, exitCode, stderr);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'review', 'writer');
  const reviewer = startServer(t, {
    project,
    args: ['--project', project, '--host', 'codex'],
    env: { ...memberEnv(undefined), OPENCOMMS_CODEX_BIN: codex.bin },
  });
  await reviewer.initialize();
  const call = codexCall(reviewer);
  assert.equal((await call('opencomms_join', { channel: 'review', role: 'reviewer', role_prompt: 'You review.' })).ok, true);
  await hookEvent(project, { hook_event_name: 'Stop', session_id: THREAD, turn_id: 'turn-1' });
  return { project, codex, writer, reviewer, call };
}

test('idle Codex thread: its own server runs codex queue with argv only, one notice per batch, at most one outstanding', async (t) => {
  const { project, codex, writer, reviewer, call } = await codexPair(t);
  const secret = 'SECRET-codex-99';
  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: `look ${secret}` });
  assert.equal(sent.data.arrivals[0].how, 'codex_queue', JSON.stringify(sent.data.arrivals));
  const [argv] = await until('codex queue ran', () => (codex.runs().length > 0 ? codex.runs() : undefined));
  assert.deepEqual(argv!.slice(0, 4), ['queue', '--thread', THREAD, '--message']);
  assert.equal(argv!.length, 5);
  assert.match(argv![4]!, /^1 OpenComms message waits for you: from writer on channel review \(newest ocm_\w+ sent [\d:]+ UTC\)\. Call opencomms_pull/);
  assert.equal(argv![4]!.includes(secret), false);

  // Queued, not delivered: the mail is still pending; a second message waits for the thread to run.
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'second' });
  await until('the door held the second back', async () => /outstanding/.test((await doorOf(reviewer, call)).held_back ?? ''));
  assert.equal(codex.runs().length, 1);
  assert.equal((await call('opencomms_status', {})).data.your_pending, 2);

  // The thread runs: the model pulls (delivered via codex_queue), its hooks say busy then idle.
  await call('opencomms_pull', {});
  await hookEvent(project, { hook_event_name: 'PostToolUse', session_id: THREAD, turn_id: 'turn-2', tool_name: 'mcp__opencomms__opencomms_pull', tool_input: {} });
  await hookEvent(project, { hook_event_name: 'Stop', session_id: THREAD, turn_id: 'turn-2' });
  const id = sent.data.message_ids[0];
  const steps = await until('the pull committed', async () => {
    const path = pathOf(await ok(writer, 'opencomms_history', { channel: 'review' }), id);
    return path.some((s: Json) => s.step === 'delivered') ? path : undefined;
  });
  assert.deepEqual(steps.map((s: Json) => [s.step, s.via]), [['queued', undefined], ['rung', 'codex_queue'], ['delivered', 'codex_queue']]);
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'third' });
  await until('codex queue ran again', () => (codex.runs().length === 2 ? true : undefined));
  assert.match(codex.runs()[1]![4]!, /^1 OpenComms message waits/);
});

test('a Codex thread running a turn is not queued to; its own sends never are', async (t) => {
  const { project, codex, writer, reviewer, call } = await codexPair(t);
  await call('opencomms_send', { channel: 'review', content: 'from the reviewer itself' });
  await hookEvent(project, { hook_event_name: 'UserPromptSubmit', session_id: THREAD, turn_id: 'turn-2', prompt: 'go' });
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'during the turn' });
  await until('the door held back for a running turn', async () => /busy/.test((await doorOf(reviewer, call)).held_back ?? ''));
  assert.deepEqual(codex.runs(), []);
});

test('a failing codex queue is said once on stderr and in status; the mail waits', async (t) => {
  const { writer, reviewer, call } = await codexPair(t, 3, 'no such thread');
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'one' });
  const failure = 'could not wake the session through codex queue';
  await stderrCount(reviewer, failure);
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'two' });
  await until('the second try', async () => (await doorOf(reviewer, call)).tries >= 2);
  assert.equal(reviewer.stderr.split(failure).length - 1, 1);
  const status = await call('opencomms_status', {});
  const said = status.data.errors.filter((e: Json) => e.message.includes(failure));
  assert.equal(said.length, 1);
  assert.match(said[0].message, /exit 3.*no such thread/);
  assert.equal(status.data.your_pending, 2);
});

test('a failing codex queue is reported by its Error line, not by a warning Codex printed first', async (t) => {
  const warning = 'WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir';
  const error = 'Error: failed to queue session message: thread/queue/add failed: no rollout found for thread id x (code -32603)';
  const { writer, reviewer, call } = await codexPair(t, 1, `${warning}\n${error}`);
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'one' });
  const problem: string = await until('the door said why', async () => (await doorOf(reviewer, call)).last_problem ?? undefined);
  assert.match(problem, /exit 1\): Error: failed to queue session message: .*no rollout found/);
  assert.equal(problem.includes('WARNING'), false, problem);
});

test('the instructions say when to use OpenComms and when the host\'s own messaging; no tool imitates the host\'s', async (t) => {
  const server = startServer(t, { env: memberEnv('sess_a') });
  const init = await server.initialize();
  const text: string = init.result.instructions;
  assert.match(text, /ListAgents\/SendMessage/);
  assert.match(text, /must be kept/);
  assert.match(text, /other hosts/);
  assert.match(text, /ended/);
  assert.match(text, /opencomms_pull/);
  const listed = await server.request('tools/list', {});
  for (const tool of listed.result.tools) assert.match(tool.name, /^opencomms_/);
});
