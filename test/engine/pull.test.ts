import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drainQueue, frameForDelivery, inbox, parseFrames, pullMessages, sendMessage } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf } from './helpers';

function setup() {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  channelWith(ctx, ['a', 'b'], 'ops', state);
  const send = (channel: string, content: string) =>
    (mustOk(sendMessage(state, { channel, session_id: 'a', content }, ctx)).data!.message_ids as string[])[0]!;
  return { ctx, state, send };
}

test('pull delivers, commits as pull and frames each message with its own channel name', () => {
  const { ctx, state, send } = setup();
  const dev = send('dev', 'dev mail');
  const ops = send('ops', 'ops mail');
  const r = mustOk(pullMessages(state, 'b', {}, ctx));
  assert.deepEqual(r.data!.message_ids, [dev, ops]);
  const messages = r.data!.messages as Array<{ channel: string; framed: string }>;
  assert.deepEqual(messages.map((m) => m.channel), ['dev', 'ops']);
  const frames = parseFrames(messages[1]!.framed);
  assert.ok(frames.ok);
  assert.equal(frames.frames[0]!.content, 'ops mail');
  assert.equal(state.messages[dev]!.delivery_status, 'delivered');
  assert.equal(state.messages[dev]!.delivery_method, 'pull');
});

test('pull honours the channel argument and leaves other mail pending', () => {
  const { ctx, state, send } = setup();
  const dev = send('dev', 'dev mail');
  const ops = send('ops', 'ops mail');
  const r = mustOk(pullMessages(state, 'b', { channel: 'ops' }, ctx));
  assert.deepEqual(r.data!.message_ids, [ops]);
  assert.equal(r.data!.remaining, 0);
  assert.equal(state.messages[dev]!.delivery_status, 'pending');
});

test('pull refuses a channel the caller is not in', () => {
  const { ctx, state } = setup();
  assert.equal(reasonOf(pullMessages(state, 'z', { channel: 'dev' }, ctx)), 'not_member');
  assert.equal(reasonOf(pullMessages(state, 'b', { channel: 'nope' }, ctx)), 'channel_not_found');
});

test('two pulls in a row both deliver what is waiting', () => {
  const { ctx, state, send } = setup();
  send('dev', 'first');
  assert.equal((mustOk(pullMessages(state, 'b', {}, ctx)).data!.message_ids as string[]).length, 1);
  send('dev', 'second');
  assert.equal((mustOk(pullMessages(state, 'b', {}, ctx)).data!.message_ids as string[]).length, 1);
});

test('an empty pull says so and returns no messages', () => {
  const { ctx, state } = setup();
  const r = mustOk(pullMessages(state, 'b', {}, ctx));
  assert.deepEqual(r.data!.messages, []);
  assert.equal(typeof r.data!.untrusted_notice, 'string');
});

test('pull recovers abandoned in-flight mail before draining', () => {
  const { ctx, state, send } = setup();
  const id = send('dev', 'lost');
  drainQueue(state, 'b', { owner: { pid: 7, host: 'h', lease_until: ctx.now() + 5 }, now: ctx.now() });
  assert.deepEqual(mustOk(pullMessages(state, 'b', {}, ctx)).data!.message_ids, []);
  ctx.advance(6);
  assert.deepEqual(mustOk(pullMessages(state, 'b', {}, ctx)).data!.message_ids, [id]);
});

test('pull with a limit reports how many remain', () => {
  const { ctx, state, send } = setup();
  send('dev', 'one');
  send('dev', 'two');
  const r = mustOk(pullMessages(state, 'b', { limit: 1 }, ctx));
  assert.equal(r.data!.remaining, 1);
});

test('inbox previews only pending mail of the named channel and consumes nothing', () => {
  const { ctx, state, send } = setup();
  const dev = send('dev', 'dev mail');
  send('ops', 'ops mail');
  const r = mustOk(inbox(state, { channel: 'dev', session_id: 'b' }, ctx));
  assert.equal(r.data!.pending, 1);
  const messages = r.data!.messages as Array<{ message_id: string; framed: string }>;
  assert.deepEqual(messages.map((m) => m.message_id), [dev]);
  assert.ok(parseFrames(messages[0]!.framed).ok);
  assert.equal(state.messages[dev]!.delivery_status, 'pending');
  drainQueue(state, 'b', { owner: { pid: 1, host: 'h', lease_until: ctx.now() + 1e6 }, now: ctx.now() });
  assert.equal(mustOk(inbox(state, { channel: 'dev', session_id: 'b' }, ctx)).data!.pending, 0);
  assert.equal(reasonOf(inbox(state, { channel: 'dev', session_id: 'z' }, ctx)), 'not_member');
});

test('frameForDelivery frames a batch with a fresh nonce per message', () => {
  const { ctx, state, send } = setup();
  send('dev', 'one');
  send('ops', 'two');
  const handed = drainQueue(state, 'b', { owner: { pid: 1, host: 'h', lease_until: 1e15 }, now: ctx.now() });
  const text = frameForDelivery(state, handed, ctx);
  const parsed = parseFrames(text);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.frames.map((f) => f.content), ['one', 'two']);
  assert.notEqual(parsed.frames[0]!.nonce, parsed.frames[1]!.nonce);
  delete state.channels.ops;
  assert.match(frameForDelivery(state, handed.slice(1), ctx), /unknown channel/);
});
