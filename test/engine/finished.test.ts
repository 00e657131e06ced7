import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage, takeFinished } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, pullDelivered } from './helpers';

test('takeFinished moves delivered envelopes out of messages, delivered_to and queues, as records by channel', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one', to: 'b' }, ctx));
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'two', to: 'b' }, ctx));
  mustOk(pullDelivered(state, 'b', { channel: 'dev' }, ctx));
  const [first, second] = Object.keys(state.messages);
  const moved = takeFinished(state);
  assert.deepEqual([...moved.keys()], Object.values(state.channels).map((c) => c.id));
  const records = [...moved.values()][0]!;
  assert.deepEqual(records.map((r) => r.message_id), [first, second]);
  assert.ok(records.every((r) => r.delivered_to.includes('b') && r.delivery_status === 'delivered'));
  assert.deepEqual(state.messages, {});
  assert.deepEqual(state.delivered_to, {});
  assert.ok(Object.values(state.queues).every((q) => q.length === 0));
});

test('takeFinished leaves pending mail and envelopes whose channel id could not name a file or key', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'waiting', to: 'b' }, ctx));
  const [pending] = Object.keys(state.messages);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'odd', to: 'b' }, ctx));
  const odd = Object.keys(state.messages)[1]!;
  state.messages[odd]!.delivery_status = 'delivered';
  state.messages[odd]!.channel_id = '../escape';
  assert.equal(takeFinished(state).size, 0);
  assert.deepEqual(Object.keys(state.messages).sort(), [pending, odd].sort());
});
