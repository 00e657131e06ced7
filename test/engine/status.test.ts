import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drainQueue, channelHistory as history, parseFrames, sendMessage, channelStatus as status } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf, simulateSave } from './helpers';

function setup() {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  channelWith(ctx, ['c', 'd'], 'secret', state);
  return { ctx, state };
}

test('status shows only the caller channels and counts only pending mail', () => {
  const { ctx, state } = setup();
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one' }, ctx));
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'two' }, ctx));
  mustOk(sendMessage(state, { channel: 'secret', session_id: 'c', content: 'hidden' }, ctx));
  drainQueue(state, 'b', { owner: { pid: 1, host: 'h', lease_until: 1e15 }, now: ctx.now(), limit: 1 });
  const r = mustOk(status(state, { session_id: 'a' }, ctx));
  const channels = r.data!.channels as Array<Record<string, any>>;
  assert.deepEqual(channels.map((c) => c.name), ['dev']);
  assert.deepEqual(channels[0]!.queue_lengths, { a: 0, b: 1 });
  assert.deepEqual(channels[0]!.in_flight, { a: 0, b: 1 });
  assert.equal(r.data!.pending_messages, 1);
  assert.equal(r.data!.your_pending, 0);
  assert.equal(channels[0]!.coordinator_session_id, 'a');
});

test('status honours the channel argument, and a channel the caller is not in gives nothing', () => {
  const { ctx, state } = setup();
  assert.equal((mustOk(status(state, { session_id: 'a', channel: 'secret' }, ctx)).data!.channels as unknown[]).length, 0);
  assert.equal((mustOk(status(state, { session_id: 'a', channel: 'dev' }, ctx)).data!.channels as unknown[]).length, 1);
});

test('status errors are scoped to the caller channels and own id', () => {
  const { ctx, state } = setup();
  state.errors.push(
    { at: 1, message: 'global' },
    { at: 2, message: 'dev', channel_id: state.channels.dev!.id },
    { at: 3, message: 'secret', channel_id: state.channels.secret!.id },
    { at: 4, message: 'mine', member_id: 'a' },
    { at: 5, message: 'theirs', member_id: 'c' },
  );
  const mine = (mustOk(status(state, { session_id: 'a' }, ctx)).data!.errors as Array<{ message: string }>).map((e) => e.message);
  assert.deepEqual(mine, ['global', 'dev', 'mine']);
  assert.equal((mustOk(status(state, { session_id: null }, ctx)).data!.errors as unknown[]).length, 5);
});

test('status reports the last message time from history too', () => {
  const { ctx, state } = setup();
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one' }, ctx));
  const at = ctx.now();
  for (const e of Object.values(state.messages)) e.delivery_status = 'delivered';
  state.queues = {};
  simulateSave(state, ctx.history);
  ctx.advance(10);
  const channels = mustOk(status(state, { session_id: 'a' }, ctx)).data!.channels as Array<Record<string, any>>;
  assert.equal(channels[0]!.last_message_at, at);
});

test('history returns live and archived messages newest first, framed, paged with before', () => {
  const { ctx, state } = setup();
  const ids: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    ctx.advance(1);
    ids.push(...(mustOk(sendMessage(state, { channel: 'dev', session_id: i % 2 ? 'b' : 'a', content: `m${i}` }, ctx)).data!.message_ids as string[]));
    if (i === 1) {
      for (const e of Object.values(state.messages)) e.delivery_status = 'delivered';
      state.queues = {};
      simulateSave(state, ctx.history);
    }
  }
  const first = mustOk(history(state, { channel: 'dev', session_id: 'a', limit: 2 }, ctx));
  const page1 = first.data!.messages as Array<{ message_id: string; framed: string }>;
  assert.deepEqual(page1.map((m) => m.message_id), [ids[4], ids[3]]);
  assert.equal(first.data!.has_more, true);
  assert.ok(parseFrames(page1[0]!.framed).ok);
  const second = mustOk(history(state, { channel: 'dev', session_id: 'a', limit: 10, before: first.data!.next_before as string }, ctx));
  assert.deepEqual((second.data!.messages as Array<{ message_id: string }>).map((m) => m.message_id), [ids[2], ids[1], ids[0]]);
  assert.equal(second.data!.has_more, false);
  assert.equal(second.data!.next_before, null);
});

test('history uses 20 by default and refuses an unknown before and non-members', () => {
  const { ctx, state } = setup();
  state.channels.dev!.rate_limit = 100;
  for (let i = 0; i < 25; i += 1) mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: `m${i}` }, ctx));
  assert.equal((mustOk(history(state, { channel: 'dev', session_id: 'a' }, ctx)).data!.messages as unknown[]).length, 20);
  assert.equal(reasonOf(history(state, { channel: 'dev', session_id: 'a', before: 'ocm_x' }, ctx)), 'not_found');
  assert.equal(reasonOf(history(state, { channel: 'dev', session_id: 'c' }, ctx)), 'not_member');
});
