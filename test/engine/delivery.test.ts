import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  commitDelivery, cooldownRemainingMs, disconnectChannel, drainQueue, expireAgedOut, isAbandonedDelivery,
  FUTURE_SLACK_MS, MAX_DELIVERY_LEASE_MS, pendingRecipients, requeueFailedDelivery, sendMessage, sweepInFlight, type State,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, OWNER, type FakeCtx } from './helpers';

function withMail(count: number, extra: Record<string, unknown> = {}): { ctx: FakeCtx; state: State; ids: string[] } {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b'], 'dev', undefined, extra);
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    ids.push(...(mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: `m${i}` }, ctx)).data!.message_ids as string[]));
  }
  return { ctx, state, ids };
}

const drain = (state: State, ctx: FakeCtx, extra: Record<string, unknown> = {}) =>
  drainQueue(state, 'b', { owner: OWNER, now: ctx.now(), ...extra });

test('drain hands over pending mail oldest first and marks it in flight with its owner', () => {
  const { ctx, state, ids } = withMail(3);
  const handed = drain(state, ctx);
  assert.deepEqual(handed.map((e) => e.message_id), ids);
  for (const e of handed) {
    assert.equal(e.delivery_status, 'in_flight');
    assert.equal(e.attempts, 1);
    assert.deepEqual(e.delivery_owner, OWNER);
    assert.deepEqual(state.delivered_to[e.message_id], ['b']);
  }
  assert.equal(state.channels.dev!.delivered_total, 3);
  assert.equal(state.queues.b, undefined);
});

test('drain honours the limit and leaves the rest queued in order', () => {
  const { ctx, state, ids } = withMail(3);
  assert.deepEqual(drain(state, ctx, { limit: 2 }).map((e) => e.message_id), ids.slice(0, 2));
  assert.deepEqual(state.queues.b, ids.slice(2));
});

test('drain with a channel leaves mail of other channels untouched', () => {
  const { ctx, state } = withMail(1);
  channelWith(ctx, ['a', 'b'], 'ops', state);
  const ops = mustOk(sendMessage(state, { channel: 'ops', session_id: 'a', content: 'ops mail' }, ctx)).data!.message_ids as string[];
  const handed = drain(state, ctx, { channel: 'ops' });
  assert.deepEqual(handed.map((e) => e.message_id), ops);
  assert.equal(state.queues.b!.length, 1);
  assert.deepEqual(drain(state, ctx, { channel: 'missing' }), []);
});

test('drain keeps the mail of a paused channel queued', () => {
  const { ctx, state, ids } = withMail(2);
  state.channels.dev!.paused = true;
  assert.deepEqual(drain(state, ctx), []);
  assert.deepEqual(state.queues.b, ids);
});

test('drain rejects mail whose channel is gone', () => {
  const { ctx, state, ids } = withMail(1);
  delete state.channels.dev;
  assert.deepEqual(drain(state, ctx), []);
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'rejected');
  assert.equal(state.queues.b, undefined);
});

test('drain marks mail older than a pushed member window as stale', () => {
  const { ctx, state, ids } = withMail(1);
  state.channels.dev!.members[1]!.stale_policy = { mode: 'window', window_ms: 1000 };
  ctx.advance(1001);
  assert.deepEqual(drain(state, ctx), []);
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'stale');
});

test('a window policy without a length falls back to the channel stale_event_ms', () => {
  const { ctx, state, ids } = withMail(1);
  state.channels.dev!.members[1]!.stale_policy = { mode: 'window', window_ms: null };
  ctx.advance(299_000);
  assert.equal(drain(state, ctx).length, 1);
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'in_flight');
});

test('a pull member mail never ages out', () => {
  const { ctx, state } = withMail(1);
  ctx.advance(10 * 86_400_000);
  assert.equal(drain(state, ctx).length, 1);
});

test('drain keeps mail pending when the message budget is used up, and a larger budget admits it later', () => {
  const { ctx, state, ids } = withMail(3, { budgets: { max_delivered_messages: 2 } });
  assert.equal(drain(state, ctx).length, 2);
  assert.deepEqual(state.queues.b, [ids[2]]);
  state.channels.dev!.budgets.max_delivered_messages = 3;
  assert.equal(drain(state, ctx, { ignoreCooldown: true }).length, 1);
});

test('within the cooldown a push drain waits, and afterwards the whole batch goes at once', () => {
  const { ctx, state } = withMail(1);
  assert.equal(drain(state, ctx).length, 1);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'later1' }, ctx));
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'later2' }, ctx));
  assert.equal(cooldownRemainingMs(state, 'b', ctx.now()), 1000);
  assert.deepEqual(drain(state, ctx), []);
  ctx.advance(1000);
  assert.equal(cooldownRemainingMs(state, 'b', ctx.now()), 0);
  assert.equal(drain(state, ctx).length, 2);
});

test('a drain that ignores the cooldown delivers what is waiting at once', () => {
  const { ctx, state } = withMail(1);
  assert.equal(drain(state, ctx).length, 1);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'next' }, ctx));
  assert.equal(drain(state, ctx, { ignoreCooldown: true }).length, 1);
});

test('drain drops queue entries that are missing, addressed elsewhere, or not pending', () => {
  const { ctx, state, ids } = withMail(2);
  state.queues.b = ['ocm_ghost', ids[0]!, ids[0]!, ids[1]!];
  state.messages[ids[1]!]!.delivery_status = 'delivered';
  state.queues.b.push('x');
  const handed = drain(state, ctx);
  assert.deepEqual(handed.map((e) => e.message_id), [ids[0]]);
  assert.equal(state.queues.b, undefined);
});

test('commit marks in-flight mail delivered with method and time, and ignores everything else', () => {
  const { ctx, state, ids } = withMail(2);
  drain(state, ctx, { limit: 1 });
  ctx.advance(5);
  const done = commitDelivery(state, 'b', [ids[0]!, ids[1]!, 'ocm_none'], 'push', ctx.now());
  assert.deepEqual(done, [ids[0]]);
  const e = state.messages[ids[0]!]!;
  assert.equal(e.delivery_status, 'delivered');
  assert.equal(e.delivery_method, 'push');
  assert.equal(e.delivered_at, ctx.now());
  assert.equal(e.delivery_owner, null);
  assert.deepEqual(commitDelivery(state, 'b', [ids[0]!], 'pull', ctx.now()), []);
  assert.equal(e.delivery_method, 'push');
});

test('commit with an owner commits only what that owner holds', () => {
  const { ctx, state, ids } = withMail(1);
  drain(state, ctx);
  assert.deepEqual(commitDelivery(state, 'b', ids, 'push', ctx.now(), { pid: 999, host: 'x', lease_until: 0 }), []);
  assert.deepEqual(commitDelivery(state, 'b', ids, 'push', ctx.now(), OWNER), ids);
});

test('requeue restores FIFO however the failed deliveries come back', () => {
  const { ctx, state, ids } = withMail(4);
  drain(state, ctx, { limit: 1 });
  drain(state, ctx, { limit: 1, ignoreCooldown: true });
  requeueFailedDelivery(state, 'b', [ids[1]!], OWNER);
  requeueFailedDelivery(state, 'b', [ids[0]!], OWNER);
  assert.deepEqual(state.queues.b, ids);
  for (const id of ids) assert.equal(state.messages[id]!.delivery_status, 'pending');
  assert.equal(state.messages[ids[0]!]!.delivery_owner, null);
});

test('requeue ignores delivered mail and mail addressed to someone else', () => {
  const { ctx, state, ids } = withMail(1);
  drain(state, ctx);
  commitDelivery(state, 'b', ids, 'push', ctx.now());
  const out = requeueFailedDelivery(state, 'b', ids, OWNER);
  assert.deepEqual(out, { requeued: [], failed: [], rejected: [] });
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'delivered');
  assert.deepEqual(requeueFailedDelivery(state, 'a', ids, OWNER).requeued, []);
});

test('after five handovers a failed delivery becomes a dead letter', () => {
  const { ctx, state, ids } = withMail(1);
  for (let i = 1; i <= 4; i += 1) {
    drain(state, ctx, { ignoreCooldown: true });
    assert.deepEqual(requeueFailedDelivery(state, 'b', ids, OWNER).requeued, ids);
  }
  drain(state, ctx, { ignoreCooldown: true });
  assert.deepEqual(requeueFailedDelivery(state, 'b', ids, OWNER).failed, ids);
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'failed');
  assert.equal(state.messages[ids[0]!]!.attempts, 5);
  assert.equal(state.queues.b, undefined);
});

test('requeue rejects mail for a recipient who left the channel meanwhile', () => {
  const { ctx, state, ids } = withMail(1);
  drain(state, ctx);
  state.channels.dev!.members.pop();
  assert.deepEqual(requeueFailedDelivery(state, 'b', ids, OWNER).rejected, ids);
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'rejected');
});

test('the sweep never re-queues a delivery that a live owner holds within its lease', () => {
  const { ctx, state, ids } = withMail(1);
  drainQueue(state, 'b', { owner: { pid: 1, host: 'h', lease_until: ctx.now() + 10_000 }, now: ctx.now() });
  assert.deepEqual(sweepInFlight(state, () => true, ctx.now()).requeued, []);
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'in_flight');
});

test('the sweep re-queues deliveries whose owner is dead, whose lease expired, or that have no owner', () => {
  const { ctx, state, ids } = withMail(3);
  drainQueue(state, 'b', { owner: { pid: 1, host: 'h', lease_until: ctx.now() + 10_000 }, now: ctx.now(), limit: 1 });
  drainQueue(state, 'b', { owner: { pid: 2, host: 'h', lease_until: ctx.now() + 10 }, now: ctx.now(), limit: 1, ignoreCooldown: true });
  drainQueue(state, 'b', { owner: OWNER, now: ctx.now(), ignoreCooldown: true });
  state.messages[ids[2]!]!.delivery_owner = null;
  ctx.advance(11);
  const out = sweepInFlight(state, (owner) => owner.pid !== 1, ctx.now());
  assert.deepEqual(out.requeued, ids);
  assert.deepEqual(state.queues.b, ids);
});

test('a lease still binds at the millisecond lease_until and is abandoned one millisecond later, for the sweep too', () => {
  const { ctx, state, ids } = withMail(1);
  const until = ctx.now() + 30_000;
  drainQueue(state, 'b', { owner: { pid: 1, host: 'h', lease_until: until }, now: ctx.now() });
  const envelope = state.messages[ids[0]!]!;
  assert.equal(isAbandonedDelivery(envelope, until, () => true), false);
  assert.deepEqual(sweepInFlight(state, () => true, until).requeued, []);
  assert.equal(isAbandonedDelivery(envelope, until + 1, () => true), true);
  assert.deepEqual(sweepInFlight(state, () => true, until + 1).requeued, ids);
});

test('a lease ending further ahead than any lease is ever taken for (a clock running ahead, a hand edit) binds no more', () => {
  const { ctx, state, ids } = withMail(1);
  drainQueue(state, 'b', { owner: { pid: 1, host: 'h', lease_until: ctx.now() + MAX_DELIVERY_LEASE_MS }, now: ctx.now() });
  const envelope = state.messages[ids[0]!]!;
  assert.equal(isAbandonedDelivery(envelope, ctx.now(), () => true), false, 'the longest real lease still binds');
  envelope.delivery_owner!.lease_until = ctx.now() + MAX_DELIVERY_LEASE_MS + FUTURE_SLACK_MS;
  assert.equal(isAbandonedDelivery(envelope, ctx.now(), () => true), false, 'a clock a little ahead (within the slack) is believed');
  envelope.delivery_owner!.lease_until = ctx.now() + MAX_DELIVERY_LEASE_MS + FUTURE_SLACK_MS + 1;
  assert.equal(isAbandonedDelivery(envelope, ctx.now(), () => true), true);
  assert.deepEqual(sweepInFlight(state, () => true, ctx.now()).requeued, ids);
});

test('expireAgedOut marks only mail past the window in the given unpaused channels stale, and takes it out of the queue', () => {
  const { ctx, state, ids } = withMail(2);
  state.channels.dev!.members[1]!.stale_policy = { mode: 'window', window_ms: 1000 };
  ctx.advance(1000);
  const fresh = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'fresh' }, ctx)).data!.message_ids as string[];
  ctx.advance(1);
  assert.deepEqual(expireAgedOut(state, 'b', ['some-other-channel'], ctx.now()), []);
  const channelId = state.channels.dev!.id;
  state.channels.dev!.paused = true;
  assert.deepEqual(expireAgedOut(state, 'b', [channelId], ctx.now()), [], 'a paused channel ages nothing, as the drain does');
  state.channels.dev!.paused = false;
  assert.deepEqual(expireAgedOut(state, 'b', [channelId], ctx.now()), ids);
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'stale');
  assert.deepEqual(state.queues.b, fresh);
});

test('the sweep puts recovered mail ahead of newer pending mail', () => {
  const { ctx, state, ids } = withMail(1);
  drain(state, ctx);
  const newer = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'newer' }, ctx)).data!.message_ids as string[];
  sweepInFlight(state, () => false, ctx.now());
  assert.deepEqual(state.queues.b, [...ids, ...newer]);
});

test('the sweep respects the attempt cap', () => {
  const { ctx, state, ids } = withMail(1);
  drain(state, ctx);
  state.messages[ids[0]!]!.attempts = 5;
  assert.deepEqual(sweepInFlight(state, () => false, ctx.now()).failed, ids);
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'failed');
});

test('pendingRecipients lists only members with pending mail, not in-flight mail', () => {
  const { ctx, state } = withMail(1);
  assert.deepEqual(pendingRecipients(state), ['b']);
  drain(state, ctx);
  assert.deepEqual(pendingRecipients(state), []);
});

test('leaving one channel never touches mail from another channel', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  channelWith(ctx, ['a', 'b'], 'ops', state);
  const dev = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'dev' }, ctx)).data!.message_ids as string[];
  const ops = mustOk(sendMessage(state, { channel: 'ops', session_id: 'a', content: 'ops' }, ctx)).data!.message_ids as string[];
  mustOk(disconnectChannel(state, { channel: 'dev', session_id: 'b' }, ctx));
  assert.equal(state.messages[dev[0]!]!.delivery_status, 'rejected');
  assert.equal(state.messages[ops[0]!]!.delivery_status, 'pending');
  assert.deepEqual(state.queues.b, ops);
});
