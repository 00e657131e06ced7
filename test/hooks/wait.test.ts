// `opencomms hook --wait` (the asyncRewake Stop hook): exit 2 with a notice
// on stderr when mail waits or arrives, exit 0 with {} on timeout; it never
// drains, so the mail is still there for opencomms_pull.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WAIT_MS } from '../../src/hooks/wait';
import { channelWith, claudeEvent, hook, send, stateOf, tempProject } from './support';

async function setUp(t: Parameters<typeof tempProject>[0]) {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author', hostSessionId: 's' }]);
  return { project, store };
}

test('mail already waiting: exit 2 at once with a notice, the mail untouched', async (t) => {
  const { project, store } = await setUp(t);
  const [id] = await send(store, 'review', 'bob-1', 'alice-1', ['wake up']);
  const run = await hook(project, claudeEvent('Stop', 's'), {}, { wait: true, timeoutMs: 5_000 });
  assert.equal(run.code, 2);
  assert.deepEqual(run.answer, {});
  assert.match(run.warnings.join('\n'), /1 new message .* call opencomms_pull/);
  assert.equal(stateOf(store).messages[id!]!.delivery_status, 'pending');
});

test('in a headless run (claude -p, the SDKs) the waiter answers {} at once, so the host exits when its turn ends', { timeout: 10_000 }, async (t) => {
  const { project, store } = await setUp(t);
  for (const entry of ['sdk-cli', 'sdk-ts', 'sdk-py']) {
    const run = await hook(project, claudeEvent('Stop', 's'), { CLAUDE_CODE_ENTRYPOINT: entry }, { wait: true, timeoutMs: 600_000 });
    assert.equal(run.code, 0, entry);
    assert.deepEqual(run.answer, {});
  }
  // Interactive: mail already waiting still wakes the agent at once.
  const [id] = await send(store, 'review', 'bob-1', 'alice-1', ['wake up']);
  const interactive = await hook(project, claudeEvent('Stop', 's'), { CLAUDE_CODE_ENTRYPOINT: 'cli' }, { wait: true, timeoutMs: 5_000 });
  assert.equal(interactive.code, 2);
  assert.equal(stateOf(store).messages[id!]!.delivery_status, 'pending', 'the mail waits for the next session or pull');
});

test('mail arriving while waiting wakes the hook', async (t) => {
  const { project, store } = await setUp(t);
  const waiting = hook(project, claudeEvent('Stop', 's'), {}, { wait: true, timeoutMs: 8_000 });
  await send(store, 'review', 'bob-1', 'alice-1', ['arrived later']);
  const run = await waiting;
  assert.equal(run.code, 2);
  assert.match(run.warnings.join('\n'), /opencomms_pull/);
});

test('no mail before the timeout: {} and exit 0', async (t) => {
  const { project } = await setUp(t);
  const run = await hook(project, claudeEvent('Stop', 's'), {}, { wait: true, timeoutMs: 50 });
  assert.equal(run.code, 0);
  assert.deepEqual(run.answer, {});
  assert.deepEqual(run.warnings, []);
});

test('the notice names who wrote, where and how many, and never the content', async (t) => {
  const { project, store } = await setUp(t);
  await send(store, 'review', 'bob-1', 'alice-1', ['SECRET-ONE', 'SECRET-TWO']);
  const run = await hook(project, claudeEvent('Stop', 's'), {}, { wait: true, timeoutMs: 5_000 });
  assert.equal(run.code, 2);
  assert.equal(run.warnings.length, 1);
  const [notice] = run.warnings;
  assert.doesNotMatch(notice!, /SECRET/);
  assert.doesNotMatch(notice!, /\n/);
  assert.match(notice!, /2 new messages/);
  assert.match(notice!, /channel "review"/);
  assert.match(notice!, /reviewer \(bob-1\)/);
  assert.match(notice!, /call opencomms_pull/);
});

test('the default wait is 30 minutes', () => {
  assert.equal(DEFAULT_WAIT_MS, 30 * 60_000);
});
