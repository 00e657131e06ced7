// Review C: failing tests for engine defects found against PROTOCOL.md and the
// reference's section 11.2. Each test names the rule it checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyState, joinChannel, createChannel, timerAction } from '../../src/engine/index';
import { fakeCtx, mustOk, PROJECT, WORKTREE } from './helpers';

test('chess clock: a member whose id is "constructor" gets a numeric elapsed time, not Object.prototype text', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  mustOk(createChannel(state, {
    channel: 'dev', role: 'Lead', role_prompt: 'lead', session_id: 'constructor', project_id: PROJECT, worktree: WORKTREE, delivery_mode: 'pull',
  }, ctx));
  mustOk(joinChannel(state, {
    channel: 'dev', role: 'Helper', role_prompt: 'help', session_id: 'b', project_id: PROJECT, worktree: WORKTREE, delivery_mode: 'pull',
  }, ctx));
  mustOk(timerAction(state, { channel: 'dev', session_id: 'constructor', action: 'start' }, ctx));
  ctx.advance(40);
  const report = mustOk(timerAction(state, { channel: 'dev', session_id: 'constructor', action: 'status' }, ctx));
  assert.equal(report.data!.total_ms, 40);
  assert.deepEqual(report.data!.elapsed_ms_by_member, { constructor: 40 });
  mustOk(timerAction(state, { channel: 'dev', session_id: 'constructor', action: 'stop' }, ctx));
  assert.equal(state.channels.dev!.timer.elapsed_ms.constructor, 40);
});

test('chess clock: a member whose role is "toString" is reported under that role as a number', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  mustOk(createChannel(state, {
    channel: 'dev', role: 'toString', role_prompt: 'lead', session_id: 'a', project_id: PROJECT, worktree: WORKTREE, delivery_mode: 'pull',
  }, ctx));
  mustOk(timerAction(state, { channel: 'dev', session_id: 'a', action: 'start' }, ctx));
  ctx.advance(25);
  const report = mustOk(timerAction(state, { channel: 'dev', session_id: 'a', action: 'status' }, ctx));
  assert.deepEqual(report.data!.elapsed_ms_by_role, { toString: 25 });
});
