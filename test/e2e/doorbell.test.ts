// The in-process doorbell end to end: real server processes on one project,
// each its own member. A bell is a notifications/claude/channel line on the
// recipient's stdout. "No bell" is never asserted after a sleep: each test
// waits for a later bell that must come after the one that must not, and
// then counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, startServer, tempProject, type Json, type ServerProcess } from '../helpers/server';
import { create, join, member, memberEnv, ok } from './tools-support';

const BELL = 'notifications/claude/channel';

function bellsOf(server: ServerProcess): Json[] {
  return server.replies.filter((r) => r.method === BELL);
}

/** The n-th bell (1-based) this server has rung. */
function bell(server: ServerProcess, n: number): Promise<Json> {
  return server.waitFor(`bell #${n}`, () => bellsOf(server)[n - 1]);
}

/** A writer and a reviewer in channel "review", each in its own process. */
async function pair(t: Parameters<typeof member>[0]): Promise<{ project: string; writer: ServerProcess; reviewer: ServerProcess }> {
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  await create(writer, 'review', 'writer');
  await join(reviewer, 'review', 'reviewer');
  return { project, writer, reviewer };
}

test('initialize and server/discover declare the claude/channel capability', async (t) => {
  const server = startServer(t, { env: memberEnv('sess_a') });
  const init = await server.initialize();
  assert.deepEqual(init.result.capabilities.experimental, { 'claude/channel': {} });
  const discover = await server.request('server/discover', {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '0' },
    },
  });
  assert.deepEqual(discover.result.capabilities.experimental, { 'claude/channel': {} });
});

test('a peer\'s send rings the recipient once with who, where, how many and the pull tool, never the content', async (t) => {
  const { writer, reviewer } = await pair(t);
  const secret = 'SECRET-parser-note-4711';
  await ok(writer, 'opencomms_send', { channel: 'review', content: `please look at ${secret}` });
  const first = await bell(reviewer, 1);
  assert.equal(first.id, undefined);
  assert.deepEqual(first.params.meta, { channel: 'review', from_role: 'writer', count: '1' });
  assert.match(first.params.content, /opencomms_pull/);
  assert.match(first.params.content, /writer/);
  assert.match(first.params.content, /review/);
  for (const line of reviewer.stdoutLines.filter((l) => l.includes(BELL))) assert.equal(line.includes(secret), false);

  const pulled = await ok(reviewer, 'opencomms_pull', {});
  assert.equal(pulled.data.message_ids.length, 1);
  // The next send proves the pull itself rang nothing: its bell is the second, and counts one message.
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'second thought' });
  const second = await bell(reviewer, 2);
  assert.deepEqual(second.params.meta, { channel: 'review', from_role: 'writer', count: '1' });
  assert.equal(bellsOf(reviewer).length, 2);
});

test('a member\'s own send rings only the recipient, never the sender', async (t) => {
  const { writer, reviewer } = await pair(t);
  await ok(reviewer, 'opencomms_send', { channel: 'review', content: 'done with part one' });
  const toWriter = await bell(writer, 1);
  assert.deepEqual(toWriter.params.meta, { channel: 'review', from_role: 'reviewer', count: '1' });
  // The reviewer's first bell must be for the writer's later send, not its own.
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'thanks' });
  const toReviewer = await bell(reviewer, 1);
  assert.deepEqual(toReviewer.params.meta, { channel: 'review', from_role: 'writer', count: '1' });
  assert.equal(bellsOf(reviewer).length, 1);
  assert.equal(bellsOf(writer).length, 1);
});

test('mail that is rung but not pulled is not rung alone again; new mail rings with the total waiting', async (t) => {
  const { writer, reviewer } = await pair(t);
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'one' });
  await bell(reviewer, 1);
  // State changes that bring the reviewer nothing new; while paused its mail is not pullable either.
  await ok(writer, 'opencomms_pause', { channel: 'review' });
  await ok(writer, 'opencomms_resume', { channel: 'review' });
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'two' });
  const next = await bell(reviewer, 2);
  assert.equal(next.params.meta.count, '2');
  assert.match(next.params.content, /1 new/);
  assert.equal(bellsOf(reviewer).length, 2);
});

/** A channel `review` whose reviewer (sess_reviewer) joined and whose server has stopped; returns the writer. */
async function writerWithReviewerAway(t: Parameters<typeof tempProject>[0], project: string) {
  const writer = await member(t, project, 'sess_writer');
  const first = await member(t, project, 'sess_reviewer');
  await create(writer, 'review', 'writer');
  await join(first, 'review', 'reviewer');
  await first.close();
  return writer;
}

test('mail waiting before the server starts rings once, right after the handshake', async (t) => {
  const project = tempProject(t);
  const writer = await writerWithReviewerAway(t, project);
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'a' });
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'b' });

  const reviewer = await member(t, project, 'sess_reviewer');
  const atStart = await bell(reviewer, 1);
  assert.deepEqual(atStart.params.meta, { channel: 'review', from_role: 'writer', count: '2' });
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'c' });
  const later = await bell(reviewer, 2);
  assert.equal(later.params.meta.count, '3');
  assert.equal(bellsOf(reviewer).length, 2);
});

test('mail on a paused channel rings only once the channel resumes', async (t) => {
  const project = tempProject(t);
  const writer = await writerWithReviewerAway(t, project);
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'held' });
  await ok(writer, 'opencomms_pause', { channel: 'review' });

  const reviewer = await member(t, project, 'sess_reviewer');
  // The doorbell's start-up check runs before the server reads a request
  // sent after the handshake's replies, so by the second reply it has looked.
  await reviewer.request('ping');
  await reviewer.request('ping');
  assert.equal(bellsOf(reviewer).length, 0);
  await ok(writer, 'opencomms_resume', { channel: 'review' });
  const rung = await bell(reviewer, 1);
  assert.deepEqual(rung.params.meta, { channel: 'review', from_role: 'writer', count: '1' });
});

test('a server without identity rings nothing until a pin appears, then rings for its member', async (t) => {
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'review', 'writer');
  const unpinned = await member(t, project, undefined, 'mcp');
  const pinned = await runCli(['pin', '--project', project, '--host', 'mcp', '--id', 'sess_late'], {
    env: { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined },
  });
  assert.equal(pinned.code, 0, pinned.stderr);
  await join(unpinned, 'review', 'reviewer');
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'welcome' });
  const rung = await bell(unpinned, 1);
  assert.deepEqual(rung.params.meta, { channel: 'review', from_role: 'writer', count: '1' });
});

test('the doorbell does not hold the process: stdin EOF and SIGTERM still exit at once', async (t) => {
  const { writer, reviewer } = await pair(t);
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'x' });
  await bell(reviewer, 1);
  assert.deepEqual(await reviewer.close(), { code: 0, signal: null });
  writer.child.kill('SIGTERM');
  assert.equal((await writer.exited).code, 0);
});
