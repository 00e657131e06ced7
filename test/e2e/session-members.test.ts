// One member per agent session, with the event shapes each host really
// sends: Claude Code (CLAUDE_CODE_SESSION_ID for servers, session_id for
// hooks), Codex (`_meta.threadId` on tools/call, session_id for hooks) and a
// host that gives nothing (Gemini CLI: the host process). Two sessions of one
// host in one project are two members that never see each other's mail;
// a session that ends is away, its mail waits, and it gets it on resume.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DIST, startServer, tempProject, type Json, type ServerProcess } from '../helpers/server';
import { hook } from '../hooks/support';
import { memberEnv, ok } from './tools-support';

const SESSION_HOST = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'session-host.cjs');

async function claudeServer(t: TestContext, project: string, sessionId: string): Promise<ServerProcess> {
  const server = startServer(t, {
    project,
    args: ['--project', project, '--host', 'claude-code'],
    env: { ...memberEnv(undefined), CLAUDE_CODE_SESSION_ID: sessionId },
  });
  await server.initialize();
  return server;
}

/** A Claude Code hook event, as its hooks receive it. */
function claudeHook(project: string, name: string, sessionId: string): Promise<Json> {
  const event = { hook_event_name: name, session_id: sessionId, transcript_path: '/tmp/t.jsonl', cwd: project };
  return hook(project, event, { OPENCOMMS_HOST: 'claude-code' }).then((run) => run.answer);
}

function contextOf(answer: Json): string {
  return answer.hookSpecificOutput?.additionalContext ?? '';
}

async function memberIdOf(server: ServerProcess, meta?: Json): Promise<string> {
  return (await toolAs(server, 'opencomms_status', {}, meta)).data.member_id;
}

/** A tools/call with the host's `_meta` (Codex sends its thread there). */
async function toolAs(server: ServerProcess, name: string, args: Json, meta?: Json): Promise<Json> {
  const reply = await server.request('tools/call', meta ? { name, arguments: args, _meta: meta } : { name, arguments: args });
  assert.equal(reply.error, undefined, JSON.stringify(reply.error));
  return reply.result.structuredContent;
}

async function okAs(server: ServerProcess, name: string, args: Json, meta?: Json): Promise<Json> {
  const result = await toolAs(server, name, args, meta);
  assert.equal(result.ok, true, `${name}: ${JSON.stringify(result)}`);
  return result;
}

test('two Claude Code sessions in one project are two members: each hook delivers only its own session\'s mail', async (t) => {
  const project = tempProject(t);
  const writer = await claudeServer(t, project, 'claude-session-A');
  const reviewer = await claudeServer(t, project, 'claude-session-B');
  const writerId = await memberIdOf(writer);
  const reviewerId = await memberIdOf(reviewer);
  assert.notEqual(writerId, reviewerId);
  assert.match(writerId, /^sess_[0-9a-f]{32}$/);
  await okAs(writer, 'opencomms_create', { channel: 'c', role: 'writer', role_prompt: 'write' });
  await okAs(reviewer, 'opencomms_join', { channel: 'c', role: 'reviewer', role_prompt: 'review' });

  await okAs(reviewer, 'opencomms_send', { channel: 'c', content: 'for the writer only' });
  // Session B's hooks see nothing: the mail is the writer's.
  assert.deepEqual(await claudeHook(project, 'UserPromptSubmit', 'claude-session-B'), {});
  const toWriter = await claudeHook(project, 'UserPromptSubmit', 'claude-session-A');
  assert.match(contextOf(toWriter), /for the writer only/);
  assert.match(contextOf(toWriter), /from reviewer/);

  await okAs(writer, 'opencomms_send', { channel: 'c', content: 'for the reviewer only' });
  assert.deepEqual(await claudeHook(project, 'PostToolUse', 'claude-session-A'), {});
  assert.match(contextOf(await claudeHook(project, 'PostToolUse', 'claude-session-B')), /for the reviewer only/);
  // Nothing left over for either side, and neither pull sees the other's mail.
  assert.deepEqual((await okAs(writer, 'opencomms_pull', {})).data.message_ids, []);
  assert.deepEqual((await okAs(reviewer, 'opencomms_pull', {})).data.message_ids, []);
});

test('a Claude Code session that ends is away: a peer\'s send is accepted with data.away, and the resumed session gets the mail once', async (t) => {
  const project = tempProject(t);
  const writer = await claudeServer(t, project, 'claude-session-A');
  const reviewer = await claudeServer(t, project, 'claude-session-B');
  await okAs(writer, 'opencomms_create', { channel: 'c', role: 'writer', role_prompt: 'write' });
  await okAs(reviewer, 'opencomms_join', { channel: 'c', role: 'reviewer', role_prompt: 'review' });
  const writerId = await memberIdOf(writer);
  await writer.close();
  // Session B ending never touches A; A's own end makes A away.
  assert.deepEqual(await claudeHook(project, 'SessionEnd', 'claude-session-A'), {});

  const sent = await okAs(reviewer, 'opencomms_send', { channel: 'c', content: 'while you were away' });
  assert.equal(sent.data.away.length, 1);
  assert.equal(sent.data.away[0].member, writerId);
  assert.equal(typeof sent.data.away[0].since, 'number');
  assert.match(sent.message, /writer \(sess_[0-9a-f]{32}\) is away since .*The mail waits/);

  // `claude --resume` of session A: the same session id, so the same member, and its mail.
  const resumed = await claudeServer(t, project, 'claude-session-A');
  const start = await claudeHook(project, 'SessionStart', 'claude-session-A');
  assert.match(contextOf(start), /while you were away/);
  assert.equal(await memberIdOf(resumed), writerId);
  assert.deepEqual(await claudeHook(project, 'UserPromptSubmit', 'claude-session-A'), {}, 'delivered once');
  assert.deepEqual((await okAs(resumed, 'opencomms_pull', {})).data.message_ids, []);
  const status = await okAs(reviewer, 'opencomms_status', { channel: 'c' });
  assert.doesNotMatch(JSON.stringify(status.data), /"away_since":\d/, 'the resumed member is no longer away');
});

test('a SessionEnd of one Claude Code session never marks the other session\'s member away', async (t) => {
  const project = tempProject(t);
  const writer = await claudeServer(t, project, 'claude-session-A');
  const reviewer = await claudeServer(t, project, 'claude-session-B');
  await okAs(writer, 'opencomms_create', { channel: 'c', role: 'writer', role_prompt: 'write' });
  await okAs(reviewer, 'opencomms_join', { channel: 'c', role: 'reviewer', role_prompt: 'review' });
  await claudeHook(project, 'SessionEnd', 'claude-session-B');
  const sent = await okAs(reviewer, 'opencomms_send', { channel: 'c', content: 'still here?' });
  assert.equal(sent.data.away, undefined, 'the writer is not away');
});

test('two Codex threads on one server are two members, told apart by _meta.threadId, and their hooks match them', async (t) => {
  const project = tempProject(t);
  const server = startServer(t, { project, args: ['--project', project, '--host', 'codex'], env: memberEnv(undefined) });
  await server.initialize('2025-06-18');
  const one = { threadId: 'codex-thread-1', progressToken: 0 };
  const two = { threadId: 'codex-thread-2' };
  await okAs(server, 'opencomms_create', { channel: 'c', role: 'writer', role_prompt: 'write' }, one);
  await okAs(server, 'opencomms_join', { channel: 'c', role: 'reviewer', role_prompt: 'review' }, two);
  const oneId = await memberIdOf(server, one);
  const twoId = await memberIdOf(server, two);
  assert.notEqual(oneId, twoId);
  await okAs(server, 'opencomms_send', { channel: 'c', content: 'thread two, please' }, one);
  const codexHook = (sessionId: string): Promise<Json> => hook(project, {
    hook_event_name: 'UserPromptSubmit', session_id: sessionId, turn_id: 'turn-1', cwd: project, model: 'gpt-5',
  }, { OPENCOMMS_HOST: 'codex' }).then((run) => run.answer);
  assert.deepEqual(await codexHook('codex-thread-1'), {});
  assert.match(contextOf(await codexHook('codex-thread-2')), /thread two, please/);
  assert.deepEqual((await okAs(server, 'opencomms_pull', {}, one)).data.message_ids, []);
});

/** A server run by a fake host process that tells it no session id, as Gemini CLI does. */
async function hostedServer(t: TestContext, project: string): Promise<ServerProcess> {
  const server = startServer(t, {
    project,
    script: SESSION_HOST,
    args: [DIST, '--project', project, '--host', 'gemini-cli'],
    env: memberEnv(undefined),
  });
  await server.initialize('2025-06-18');
  return server;
}

let hookTag = 0;
/** Runs a Gemini CLI hook as a child of the fake host (through /bin/sh, as hosts do). */
async function hostedHook(server: ServerProcess, project: string, name: string): Promise<Json> {
  const tag = ++hookTag;
  const event = { hook_event_name: name, session_id: `gemini-${tag}`, cwd: project, timestamp: new Date().toISOString() };
  server.send({ fakeHost: 'hook', tag, event, env: { OPENCOMMS_HOST: 'gemini-cli', OPENCOMMS_MEMBER_ID: '' } });
  const reply = await server.waitFor(`hook answer ${tag}`, () => server.replies.find((r) => r.fakeHost === 'answer' && r.tag === tag));
  return reply.answer;
}

test('without a session id, each host process is its own member: two Gemini CLI processes, their servers and their hooks', async (t) => {
  const project = tempProject(t);
  const first = await hostedServer(t, project);
  const second = await hostedServer(t, project);
  const firstId = await memberIdOf(first);
  const secondId = await memberIdOf(second);
  assert.notEqual(firstId, secondId);
  await okAs(first, 'opencomms_create', { channel: 'c', role: 'writer', role_prompt: 'write' });
  await okAs(second, 'opencomms_join', { channel: 'c', role: 'tester', role_prompt: 'test' });
  await okAs(first, 'opencomms_send', { channel: 'c', content: 'run the tests' });
  assert.deepEqual(await hostedHook(first, project, 'BeforeAgent'), {}, 'the sender\'s own hook gets nothing');
  const delivered = await hostedHook(second, project, 'BeforeAgent');
  assert.match(contextOf(delivered), /run the tests/);
  assert.equal(await memberIdOf(second), secondId, 'the member stays the same for the life of the host process');
});
