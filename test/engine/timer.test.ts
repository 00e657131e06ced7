import { test } from 'node:test';
import assert from 'node:assert/strict';
import { markStale, timerAction } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf } from './helpers';

const call = (action: string, extra: Record<string, unknown> = {}) => ({ channel: 'dev', session_id: 'a', action, ...extra });

test('start puts the caller on the clock and a second start reports it already running', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(timerAction(state, call('start'), ctx));
  assert.equal(state.channels.dev!.timer.active_member_id, 'a');
  ctx.advance(50);
  const again = mustOk(timerAction(state, call('start', { session_id: 'b' }), ctx));
  assert.equal(again.data!.active_member_id, 'a');
  assert.deepEqual(again.data!.elapsed_ms_by_member, { a: 50 });
});

test('switch hands the clock to the only peer, and stop folds the segment', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(timerAction(state, call('start'), ctx));
  ctx.advance(10);
  mustOk(timerAction(state, call('switch'), ctx));
  ctx.advance(20);
  const stopped = mustOk(timerAction(state, call('stop'), ctx));
  assert.deepEqual(stopped.data!.elapsed_ms_by_member, { a: 10, b: 20 });
  assert.deepEqual(stopped.data!.elapsed_ms_by_role, { R0: 10, R1: 20 });
  assert.equal(stopped.data!.total_ms, 30);
  assert.equal(mustOk(timerAction(state, call('stop'), ctx)).message.includes('already'), true);
});

test('switch never guesses among several peers and hands the clock to an away member like to any other', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  assert.equal(reasonOf(timerAction(state, call('switch'), ctx)), 'ambiguous_recipient');
  mustOk(timerAction(state, call('switch', { to: 'c' }), ctx));
  markStale(state, 'b', ctx.now());
  mustOk(timerAction(state, call('switch', { to: 'b' }), ctx));
  assert.equal(state.channels.dev!.timer.active_member_id, 'b');
});

test('reset clears the clock and keeps the limit', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(timerAction(state, call('set_limit', { limit_ms: 100 }), ctx));
  mustOk(timerAction(state, call('start'), ctx));
  ctx.advance(5);
  const r = mustOk(timerAction(state, call('reset'), ctx));
  assert.equal(r.data!.total_ms, 0);
  assert.equal(r.data!.limit_ms, 100);
  assert.equal(r.data!.active_member_id, null);
});

test('set_limit needs a positive number and may target any member, the caller included', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  assert.equal(reasonOf(timerAction(state, call('set_limit', { limit_ms: 0 }), ctx)), 'invalid_limit');
  assert.equal(reasonOf(timerAction(state, call('set_limit', { limit_ms: Number.NaN }), ctx)), 'invalid_limit');
  assert.equal(reasonOf(timerAction(state, call('set_limit', { limit_ms: 5, to: 'zz' }), ctx)), 'unknown_target');
  mustOk(timerAction(state, call('set_limit', { limit_ms: 5, to: 'R0' }), ctx));
  assert.equal(state.channels.dev!.timer.limit_member_id, 'a');
  mustOk(timerAction(state, call('start'), ctx));
  ctx.advance(5);
  assert.equal(mustOk(timerAction(state, call('status'), ctx)).data!.limit_reached, true);
  mustOk(timerAction(state, call('clear_limit'), ctx));
  assert.equal(mustOk(timerAction(state, call('status'), ctx)).data!.limit_reached, false);
});

test('an unknown action is refused with invalid_timer_action and non-members are refused', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  assert.equal(reasonOf(timerAction(state, call('pause'), ctx)), 'invalid_timer_action');
  assert.equal(reasonOf(timerAction(state, call('status', { session_id: 'z' }), ctx)), 'not_member');
});

test('marking the clock holder stale stops the clock', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(timerAction(state, call('start'), ctx));
  markStale(state, 'a', ctx.now());
  assert.equal(state.channels.dev!.timer.active_member_id, null);
});
