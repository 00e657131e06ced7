import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drainQueue, releasePaths, reservePaths, sendMessage, tidyState, transcriptOf } from '../../src/engine/index';
import { RESERVATION_LOG_KEPT } from '../../src/engine/reservation-log';
import { channelWith, fakeCtx, mustOk, OWNER, reasonOf, simulateSave } from './helpers';

function setup() {
  const ctx = fakeCtx(1_000_000);
  const state = channelWith(ctx, ['a', 'b']);
  channelWith(ctx, ['c', 'd'], 'build', state);
  return { ctx, state };
}

test('the transcript interleaves channels in send order, live and finished mail alike', () => {
  const { ctx, state } = setup();
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'first' }, ctx));
  ctx.advance(10);
  mustOk(sendMessage(state, { channel: 'build', session_id: 'c', content: 'second' }, ctx));
  ctx.advance(10);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'b', content: 'third' }, ctx));
  drainQueue(state, 'b', { owner: OWNER, now: ctx.now(), limit: 10 });
  simulateSave(state, ctx.history);
  const r = mustOk(transcriptOf(state, ctx.history, { since: null, now: ctx.now() }));
  const messages = r.data!.messages as Array<Record<string, any>>;
  assert.deepEqual(messages.map((m) => m.content), ['first', 'second', 'third']);
  assert.deepEqual(messages.map((m) => m.channel), ['dev', 'build', 'dev']);
  assert.equal(messages[0]!.from.kind, 'agent');
});

test('the period starts at since: earlier messages are left out of the list and the counts', () => {
  const { ctx, state } = setup();
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'old' }, ctx));
  ctx.advance(60_000);
  const since = ctx.now();
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'new' }, ctx));
  const r = mustOk(transcriptOf(state, ctx.history, { since, now: ctx.now() }));
  assert.deepEqual((r.data!.messages as Array<Record<string, any>>).map((m) => m.content), ['new']);
  const dev = (r.data!.channels as Array<Record<string, any>>).find((c) => c.channel === 'dev')!;
  assert.equal(dev.messages, 1);
});

test('each channel has one summary line of the period, with reservations taken and lapsed and problems', () => {
  const { ctx, state } = setup();
  const dev = state.channels.dev!;
  const now = ctx.now();
  dev.reservations = [
    { id: 'rsv_1', path: 'a.ts', member_id: 'a', role: 'a', exclusive: true, reason: null, created_at: now - 10, expires_at: now + 1000 },
    { id: 'rsv_2', path: 'b.ts', member_id: 'a', role: 'a', exclusive: true, reason: null, created_at: now - 5000, expires_at: now - 1 },
  ];
  // What the log of the channel says: taken before the period and in it; one lapsed and tidied away in it.
  dev.reservation_log = [
    { at: now - 5000, what: 'taken', member_id: 'a', count: 1 },
    { at: now - 10, what: 'taken', member_id: 'a', count: 1 },
    { at: now - 50, what: 'lapsed', member_id: 'b', count: 2 },
  ];
  state.errors.push({ at: now - 1, message: 'boom', channel_id: dev.id }, { at: now - 1, message: 'elsewhere' });
  const r = mustOk(transcriptOf(state, ctx.history, { since: now - 100, now }));
  const periods = r.data!.channels as Array<Record<string, any>>;
  assert.deepEqual(periods.map((p) => p.channel), ['build', 'dev']);
  const line = periods[1]!;
  assert.deepEqual(line.reservations, { taken: 1, lapsed: 3 }, 'two lapsed from the log, one over by time and still listed');
  assert.equal(line.problems, 1);
  assert.deepEqual(line.tasks, { done: 0, claimed: 0, asked: 0 });
});

test('a channel that does not exist is refused with not_found', () => {
  const { ctx, state } = setup();
  assert.equal(reasonOf(transcriptOf(state, ctx.history, { channel: 'nope', since: null, now: ctx.now() })), 'not_found');
});

test('reservations taken are logged on the channel, lapsed ones when the upkeep drops them, released ones only as taken', () => {
  const { ctx, state } = setup();
  const start = ctx.now();
  mustOk(reservePaths(state, { channel: 'dev', session_id: 'a', paths: ['a.ts', 'b.ts'], ttl_minutes: 1, project_dir: '/p' }, ctx));
  mustOk(reservePaths(state, { channel: 'dev', session_id: 'b', paths: ['c.ts'], ttl_minutes: 30, project_dir: '/p' }, ctx));
  mustOk(releasePaths(state, { channel: 'dev', session_id: 'b', paths: ['c.ts'], project_dir: '/p' }, ctx));
  ctx.advance(5 * 60_000);
  tidyState(state, ctx.now(), () => true);
  assert.equal(state.channels.dev!.reservations, undefined, 'premise: the expired ones were tidied away');
  const periods = mustOk(transcriptOf(state, ctx.history, { since: start, now: ctx.now() })).data!.channels as Array<Record<string, any>>;
  assert.deepEqual(periods.find((p) => p.channel === 'dev')!.reservations, { taken: 3, lapsed: 2 });
  // The lapse is dated at the expiry, not at the upkeep that found it.
  const lapse = state.channels.dev!.reservation_log!.find((e) => e.what === 'lapsed')!;
  assert.equal(lapse.at, start + 60_000);
  const later = mustOk(transcriptOf(state, ctx.history, { since: start + 2 * 60_000, now: ctx.now() })).data!.channels as Array<Record<string, any>>;
  assert.deepEqual(later.find((p) => p.channel === 'dev')!.reservations, { taken: 0, lapsed: 0 });
});

test('a channel keeps only the newest reservation log entries', () => {
  const { ctx, state } = setup();
  for (let i = 0; i < RESERVATION_LOG_KEPT + 20; i++) {
    mustOk(reservePaths(state, { channel: 'dev', session_id: 'a', paths: [`f${i}.ts`], project_dir: '/p' }, ctx));
    ctx.advance(1);
  }
  const log = state.channels.dev!.reservation_log!;
  assert.equal(log.length, RESERVATION_LOG_KEPT);
  assert.equal(log[log.length - 1]!.at, ctx.now() - 1);
});
