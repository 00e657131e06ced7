// Several sessions of one member: an older session ending, a later turn's waiter, and a binding made
// at a SessionStart whose host was uncertain.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { channelWith, claudeEvent, hook, send, stateOf, tempProject } from './support';
import { bounded, leaseOf, runWait, untilState } from './wait-support';

function memberships(state: ReturnType<typeof stateOf>, id: string) {
  return Object.values(state.channels).flatMap((c) => c.members.filter((m) => m.session_id === id));
}

// Installed hooks always carry OPENCOMMS_MEMBER_ID, so every session started in
// the project speaks for the same member. A second session's SessionStart
// rebinds the member to itself; when the first (older) session then ends, its
// SessionEnd must not mark the member stale: the member lives on in the newer
// session, and stale means peers' sends are refused and its waiter quits.
test('SessionEnd of an older session does not mark the env member stale after a newer session rebound it', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: 'bob-1', role: 'reviewer', host: 'mcp' },
    { id: 'alice-1', role: 'author', hostSessionId: 'old-session' },
  ]);
  const env = { OPENCOMMS_MEMBER_ID: 'alice-1', OPENCOMMS_HOST: 'claude-code' };
  await hook(project, claudeEvent('SessionStart', 'new-session', { source: 'startup' }), env);
  assert.deepEqual(memberships(stateOf(store), 'alice-1').map((m) => m.host_session_id), ['new-session']);
  await hook(project, claudeEvent('SessionEnd', 'old-session', { reason: 'exit' }), env);
  assert.deepEqual(memberships(stateOf(store), 'alice-1').map((m) => m.stale), [false],
    'the SessionEnd of a session the member was moved away from marked the live member stale');
});

// Claude Code starts `hook --wait` after every turn. A waiter from an earlier
// Stop holds the member's lease, so the waiter of the latest Stop stands down
// at once; when the earlier one reaches its own deadline (30 min after ITS
// Stop, possibly one minute after the latest Stop), nothing waits any more and
// mail to the idle agent wakes nobody. The latest Stop's waiter must cover the
// time after the latest Stop.
test('the waiter of a later Stop still wakes for mail that arrives after an earlier waiter timed out', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author', hostSessionId: 's' }]);
  const stop = claudeEvent('Stop', 's');
  const earlier = runWait(project, stop, { timeoutMs: 600 });
  await untilState(project, 'the earlier lease', (s) => leaseOf(s, 'alice-1') !== undefined);
  const later = runWait(project, stop, { timeoutMs: 8_000 });
  assert.equal((await bounded(earlier, 'the earlier waiter')).code, 0);
  await send(store, 'review', 'bob-1', 'alice-1', ['arrives after the earlier waiter timed out']);
  const run = await bounded(later, 'the later waiter');
  assert.equal(run.code, 2, 'the later waiter stood down for the earlier one and the mail woke nobody');
});

// Hooks written without OPENCOMMS_HOST: Codex's SessionStart carries no
// turn_id, so it looks like Claude Code's and both hosts are candidates. The
// one free pin (a claude-code one) is then bound to the Codex session. Every
// later Codex event carries turn_id, is judged Codex for certain, and no
// longer finds the member it was just bound to: the session got its mail once
// at SessionStart and never again, and the Claude Code pin is taken from the
// session it was meant for.
test('a session bound at an uncertain SessionStart keeps resolving at its later, host-certain events', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author' }]);
  const { writePin } = await import('../../src/local/pins');
  writePin(project, { member_id: 'alice-1', host: 'claude-code' });
  await hook(project, claudeEvent('SessionStart', 'codex-thread', { source: 'startup', model: 'gpt-5' }));
  const bound = memberships(stateOf(store), 'alice-1').map((m) => m.host_session_id);
  await send(store, 'review', 'bob-1', 'alice-1', ['after the binding']);
  const prompt = await hook(project, claudeEvent('UserPromptSubmit', 'codex-thread', { turn_id: 'turn-1', model: 'gpt-5', prompt: 'hi' }));
  assert.ok(bound[0] !== 'codex-thread' || JSON.stringify(prompt.answer).includes('after the binding'),
    `bound ${JSON.stringify(bound)} at SessionStart, but the next event answered ${JSON.stringify(prompt.answer)}`);
});
