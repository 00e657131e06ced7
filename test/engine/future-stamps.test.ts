// The one rule for a time written by another process or machine
// (engine/times.ts isBelievableTime): an expiry or stamp later than now plus
// its longest lifetime and FUTURE_SLACK_MS is not believed. A committed
// state.json can carry any such time; none of them holds anything for long.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeSpawnLease, activeWaitLease, drainQueue, FUTURE_SLACK_MS, isAbandonedDelivery, isBelievableTime, isProcessLive, judgeEdit,
  MAX_DELIVERY_LEASE_MS, MAX_PRESENCE_LEASE_MS, MAX_RESERVATION_TTL_MINUTES, presenceOf, recordPresence, reservePaths, sendMessage,
  takeWaitLease, JUDGE_BY_LEASE, type ProcessCheck,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk } from './helpers';

const FAR_AHEAD_MS = 10 * 365 * 86_400_000;
const elsewhere: ProcessCheck = () => undefined;

test('a time is believed up to now plus its lead and the slack, and not a millisecond later', () => {
  const now = 1_000_000;
  assert.equal(isBelievableTime(now + FUTURE_SLACK_MS, now), true);
  assert.equal(isBelievableTime(now + FUTURE_SLACK_MS + 1, now), false);
  assert.equal(isBelievableTime(now + 60_000 + FUTURE_SLACK_MS, now, 60_000), true);
  assert.equal(isBelievableTime(now + 60_000 + FUTURE_SLACK_MS + 1, now, 60_000), false);
  assert.equal(isBelievableTime(0, now), true, 'the past is always believable');
  assert.equal(isBelievableTime(Number.NaN, now), false);
});

test('a wait or spawn lease from another machine ending far in the future binds nothing: the member is taken over', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const planted = { pid: 7, host: 'build-box', token: 'planted', until: ctx.now() + FAR_AHEAD_MS };
  state.wait_leases = { a: planted };
  state.spawn_leases = { a: planted };
  assert.equal(activeWaitLease(state, 'a', ctx.now(), () => true), undefined);
  assert.equal(activeSpawnLease(state, 'a', ctx.now(), () => true), undefined);
  assert.equal(takeWaitLease(state, 'a', { pid: 8, host: 'here', token: 'mine', until: ctx.now() + 60_000 }, ctx.now(), () => true), true);
  // The longest real lease (plus the slack) still binds.
  state.spawn_leases = { a: { ...planted, until: ctx.now() + MAX_DELIVERY_LEASE_MS + FUTURE_SLACK_MS } };
  assert.equal(activeSpawnLease(state, 'a', ctx.now(), () => true)?.token, 'planted');
});

test('a process on another machine whose presence lease ends far in the future is away, not present forever', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['far', 'b']);
  recordPresence(state, 'far', { pid: 9, machine: 'build-box', start: null, kind: 'server' }, ctx.now(), 60_000);
  const proc = state.presence!.far!.processes[0]!;
  assert.equal(isProcessLive(proc, ctx.now(), elsewhere), true);
  proc.until = ctx.now() + FAR_AHEAD_MS;
  assert.equal(isProcessLive(proc, ctx.now(), elsewhere), false);
  assert.equal(presenceOf(state, 'far', ctx.now(), elsewhere).present, false);
  proc.until = ctx.now() + MAX_PRESENCE_LEASE_MS + FUTURE_SLACK_MS;
  assert.equal(isProcessLive(proc, ctx.now(), elsewhere), true, 'the longest real lease (plus the slack) still holds');
});

test('no presence is recorded for longer than MAX_PRESENCE_LEASE_MS, however rarely its process renews', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['far', 'b']);
  recordPresence(state, 'far', { pid: 9, machine: 'build-box', start: null, kind: 'server' }, ctx.now(), 3_600_000);
  assert.equal(state.presence!.far!.processes[0]!.until, ctx.now() + MAX_PRESENCE_LEASE_MS);
});

test('a reservation whose expiry lies beyond the longest TTL binds nothing: the edit it would deny passes', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(reservePaths(state, { channel: 'dev', session_id: 'a', paths: ['src/a.ts'], project_dir: '/work/repo' }, ctx));
  assert.equal(judgeEdit(state, 'b', 'src/a.ts', ctx.now(), JUDGE_BY_LEASE).kind, 'deny');
  const reservation = state.channels.dev!.reservations![0]!;
  reservation.expires_at = ctx.now() + FAR_AHEAD_MS;
  assert.equal(judgeEdit(state, 'b', 'src/a.ts', ctx.now(), JUDGE_BY_LEASE).kind, 'pass');
  reservation.expires_at = ctx.now() + MAX_RESERVATION_TTL_MINUTES * 60_000 + FUTURE_SLACK_MS;
  assert.equal(judgeEdit(state, 'b', 'src/a.ts', ctx.now(), JUDGE_BY_LEASE).kind, 'deny', 'the longest TTL (plus the slack) still holds');
});

test('a delivery owner\'s lease far in the future binds nothing: the mail is swept back', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'hi' }, ctx));
  const [envelope] = drainQueue(state, 'b', { owner: { pid: 1, host: 'build-box', lease_until: ctx.now() + FAR_AHEAD_MS }, now: ctx.now() });
  assert.equal(isAbandonedDelivery(envelope!, ctx.now(), () => true), true);
});
