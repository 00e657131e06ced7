import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  commitDelivery, drainQueue, frameForDelivery, inbox, parseFrames, pullMessages, returnUnsentDelivery, sendMessage, type DeliveryOwner,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, pullDelivered, reasonOf, type FakeCtx } from './helpers';

function ownerAt(ctx: FakeCtx, pid = 100): DeliveryOwner {
  return { pid, host: 'test', lease_until: ctx.now() + 60_000 };
}

function setup() {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  channelWith(ctx, ['a', 'b'], 'ops', state);
  const send = (channel: string, content: string) =>
    (mustOk(sendMessage(state, { channel, session_id: 'a', content }, ctx)).data!.message_ids as string[])[0]!;
  return { ctx, state, send };
}

test('pull hands the mail to its owner in flight, framing each message with its own channel name', () => {
  const { ctx, state, send } = setup();
  const dev = send('dev', 'dev mail');
  const ops = send('ops', 'ops mail');
  const owner = ownerAt(ctx);
  const r = mustOk(pullMessages(state, 'b', { owner }, ctx));
  assert.deepEqual(r.data!.message_ids, [dev, ops]);
  const messages = r.data!.messages as Array<{ channel: string; framed: string }>;
  assert.deepEqual(messages.map((m) => m.channel), ['dev', 'ops']);
  const frames = parseFrames(messages[1]!.framed);
  assert.ok(frames.ok);
  assert.equal(frames.frames[0]!.content, 'ops mail');
  // Not delivered until the reply carrying it was written: in flight, owned by the pull.
  assert.equal(state.messages[dev]!.delivery_status, 'in_flight');
  assert.deepEqual(state.messages[dev]!.delivery_owner, owner);
});

test('a pull whose reply went out is committed as delivered by pull', () => {
  const { ctx, state, send } = setup();
  const dev = send('dev', 'dev mail');
  const owner = ownerAt(ctx);
  const ids = mustOk(pullMessages(state, 'b', { owner }, ctx)).data!.message_ids as string[];
  assert.deepEqual(commitDelivery(state, 'b', ids, 'pull', ctx.now(), owner), [dev]);
  assert.equal(state.messages[dev]!.delivery_status, 'delivered');
  assert.equal(state.messages[dev]!.delivery_method, 'pull');
});

test('mail of a reply that never went out returns to pending in send order, its handover not counted', () => {
  const { ctx, state, send } = setup();
  const first = send('dev', 'first');
  const second = send('ops', 'second');
  const third = send('dev', 'third');
  const devChannel = Object.values(state.channels).find((c) => c.name === 'dev')!;
  const owner = ownerAt(ctx);
  mustOk(pullMessages(state, 'b', { limit: 2, owner }, ctx));
  assert.equal(devChannel.delivered_total, 1);
  const outcome = returnUnsentDelivery(state, 'b', [second, first], owner);
  assert.deepEqual(outcome, { requeued: [first, second], failed: [], rejected: [] });
  assert.deepEqual(state.queues.b, [first, second, third]);
  assert.deepEqual([first, second].map((id) => [state.messages[id]!.delivery_status, state.messages[id]!.attempts, state.messages[id]!.delivery_owner]),
    [['pending', 0, null], ['pending', 0, null]]);
  assert.equal(devChannel.delivered_total, 0);
});

test('mail given back unsent is never dead-lettered, however often its replies are cancelled', () => {
  const { ctx, state, send } = setup();
  const id = send('dev', 'again and again');
  for (let round = 0; round < 10; round += 1) {
    const owner = ownerAt(ctx);
    mustOk(pullMessages(state, 'b', { owner }, ctx));
    assert.deepEqual(returnUnsentDelivery(state, 'b', [id], owner).requeued, [id]);
    ctx.advance(1);
  }
  assert.equal(state.messages[id]!.delivery_status, 'pending');
  assert.equal(state.messages[id]!.attempts, 0);
});

test('an unsent give-back touches only mail still held by that very drain', () => {
  const { ctx, state, send } = setup();
  const id = send('dev', 'taken over');
  const stale = ownerAt(ctx, 7);
  mustOk(pullMessages(state, 'b', { owner: stale }, ctx));
  // The lease ran out, a sweep took the mail back and another pull holds it now.
  ctx.advance(60_001);
  const fresh = ownerAt(ctx, 8);
  mustOk(pullMessages(state, 'b', { owner: fresh }, ctx));
  assert.deepEqual(returnUnsentDelivery(state, 'b', [id], stale).requeued, []);
  assert.deepEqual(state.messages[id]!.delivery_owner, fresh);
  // Committed mail is not given back either.
  commitDelivery(state, 'b', [id], 'pull', ctx.now(), fresh);
  assert.deepEqual(returnUnsentDelivery(state, 'b', [id], fresh).requeued, []);
  assert.equal(state.messages[id]!.delivery_status, 'delivered');
});

test('an unsent give-back rejects mail whose recipient left the channel meanwhile', () => {
  const { ctx, state, send } = setup();
  const id = send('dev', 'too late');
  const owner = ownerAt(ctx);
  mustOk(pullMessages(state, 'b', { owner }, ctx));
  const dev = Object.values(state.channels).find((c) => c.name === 'dev')!;
  dev.members = dev.members.filter((m) => m.session_id !== 'b');
  assert.deepEqual(returnUnsentDelivery(state, 'b', [id], owner), { requeued: [], failed: [], rejected: [id] });
  assert.equal(state.messages[id]!.delivery_status, 'rejected');
});

test('pull honours the channel argument and leaves other mail pending', () => {
  const { ctx, state, send } = setup();
  const dev = send('dev', 'dev mail');
  const ops = send('ops', 'ops mail');
  const r = mustOk(pullMessages(state, 'b', { channel: 'ops', owner: ownerAt(ctx) }, ctx));
  assert.deepEqual(r.data!.message_ids, [ops]);
  assert.equal(r.data!.remaining, 0);
  assert.equal(state.messages[dev]!.delivery_status, 'pending');
});

test('pull refuses a channel the caller is not in', () => {
  const { ctx, state } = setup();
  assert.equal(reasonOf(pullMessages(state, 'z', { channel: 'dev', owner: ownerAt(ctx) }, ctx)), 'not_member');
  assert.equal(reasonOf(pullMessages(state, 'b', { channel: 'nope', owner: ownerAt(ctx) }, ctx)), 'channel_not_found');
});

test('two pulls in a row both deliver what is waiting', () => {
  const { ctx, state, send } = setup();
  send('dev', 'first');
  assert.equal((mustOk(pullDelivered(state, 'b', {}, ctx)).data!.message_ids as string[]).length, 1);
  send('dev', 'second');
  assert.equal((mustOk(pullDelivered(state, 'b', {}, ctx)).data!.message_ids as string[]).length, 1);
});

test('an empty pull says so and returns no messages', () => {
  const { ctx, state } = setup();
  const r = mustOk(pullDelivered(state, 'b', {}, ctx));
  assert.deepEqual(r.data!.messages, []);
  assert.equal(typeof r.data!.untrusted_notice, 'string');
});

test('pull recovers abandoned in-flight mail before draining', () => {
  const { ctx, state, send } = setup();
  const id = send('dev', 'lost');
  drainQueue(state, 'b', { owner: { pid: 7, host: 'h', lease_until: ctx.now() + 5 }, now: ctx.now() });
  assert.deepEqual(mustOk(pullDelivered(state, 'b', {}, ctx)).data!.message_ids, []);
  ctx.advance(6);
  assert.deepEqual(mustOk(pullDelivered(state, 'b', {}, ctx)).data!.message_ids, [id]);
});

test('pull with a limit reports how many remain', () => {
  const { ctx, state, send } = setup();
  send('dev', 'one');
  send('dev', 'two');
  const r = mustOk(pullDelivered(state, 'b', { limit: 1 }, ctx));
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
