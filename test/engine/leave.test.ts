import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disconnectChannel, drainQueue, isKickNoticeOf, kickChannel, sendMessage, timerAction } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf } from './helpers';

test('disconnect removes the caller and keeps the channel for the others', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  const r = mustOk(disconnectChannel(state, { channel: 'dev', session_id: 'b' }, ctx));
  assert.equal(r.data!.channel_removed, false);
  assert.deepEqual(state.channels.dev!.members.map((m) => m.session_id), ['a', 'c']);
});

test('disconnect of the last member removes the channel', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  assert.equal(mustOk(disconnectChannel(state, { channel: 'dev', session_id: 'a' }, ctx)).data!.channel_removed, true);
  assert.equal(state.channels.dev, undefined);
});

test('disconnect refuses a non-member', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  assert.equal(reasonOf(disconnectChannel(state, { channel: 'dev', session_id: 'z' }, ctx)), 'not_member');
});

test('leaving rejects in-flight mail of that channel too, so it cannot come back', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const ids = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'x' }, ctx)).data!.message_ids as string[];
  drainQueue(state, 'b', { owner: { pid: 1, host: 'h', lease_until: 1e15 }, now: ctx.now() });
  mustOk(disconnectChannel(state, { channel: 'dev', session_id: 'b' }, ctx));
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'rejected');
});

test('a member holding the clock stops it when leaving', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(timerAction(state, { channel: 'dev', session_id: 'b', action: 'start' }, ctx));
  ctx.advance(100);
  mustOk(disconnectChannel(state, { channel: 'dev', session_id: 'b' }, ctx));
  assert.equal(state.channels.dev!.timer.active_member_id, null);
  assert.equal(state.channels.dev!.timer.elapsed_ms.b, 100);
});

const kick = { channel: 'dev', session_id: 'a' };

test('kick refuses a non-member first', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  assert.equal(reasonOf(kickChannel(state, { ...kick, session_id: 'z' }, ctx)), 'not_member');
});

test('only the coordinator, the first member, may kick', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  assert.equal(reasonOf(kickChannel(state, { ...kick, session_id: 'b', target_session_id: 'c' }, ctx)), 'not_coordinator');
});

test('kick without a target is refused with no_target', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  assert.equal(reasonOf(kickChannel(state, { ...kick, target_role: '  ' }, ctx)), 'no_target');
});

test('the coordinator cannot kick themselves, by id or by role', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  assert.equal(reasonOf(kickChannel(state, { ...kick, target_session_id: 'a' }, ctx)), 'cannot_kick_self');
  assert.equal(reasonOf(kickChannel(state, { ...kick, target_role: 'r0' }, ctx)), 'cannot_kick_self');
  assert.equal(reasonOf(kickChannel(state, { ...kick, target_session_id: 'A' }, ctx)), 'cannot_kick_self');
});

test('kick of an unknown member is refused with unknown_target', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  assert.equal(reasonOf(kickChannel(state, { ...kick, target_session_id: 'zz' }, ctx)), 'unknown_target');
});

test('the kick notice names the kicker and reaches every remaining member', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  const r = mustOk(kickChannel(state, { ...kick, target_role: 'R1' }, ctx));
  assert.equal(r.data!.kicked_session_id, 'b');
  assert.equal(r.data!.kicked_by_session_id, 'a');
  assert.deepEqual(r.data!.remaining_session_ids, ['a', 'c']);
  const notices = Object.values(state.messages).filter((e) => e.message_type === 'system');
  assert.deepEqual(notices.map((e) => e.recipient_session_id).sort(), ['a', 'c']);
  for (const notice of notices) {
    assert.match(notice.content, /by R0 \(a\)/);
    assert.doesNotMatch(notice.content, /operator/);
  }
  assert.equal(state.channels.dev!.members.length, 2);
});

test('the kick notice is recognisable as a kick of exactly its target, and only as a system message', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  const members = Object.fromEntries(state.channels.dev!.members.map((m) => [m.session_id, { ...m }]));
  mustOk(kickChannel(state, { ...kick, target_session_id: 'b' }, ctx));
  const notice = Object.values(state.messages).find((e) => e.message_type === 'system')!;
  assert.equal(isKickNoticeOf(notice, members.b!), true);
  assert.equal(isKickNoticeOf(notice, members.c!), false);
  assert.equal(isKickNoticeOf(notice, members.a!), false);
  assert.equal(isKickNoticeOf({ ...notice, message_type: 'manual' }, members.b!), false);
  // the same words further inside a message do not count
  assert.equal(isKickNoticeOf({ ...notice, content: `quote: ${notice.content}` }, members.b!), false);
});

test('being kicked from one channel never touches mail from another channel', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  channelWith(ctx, ['a', 'b'], 'ops', state);
  const ops = mustOk(sendMessage(state, { channel: 'ops', session_id: 'a', content: 'keep me' }, ctx)).data!.message_ids as string[];
  const dev = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'drop me' }, ctx)).data!.message_ids as string[];
  mustOk(kickChannel(state, { ...kick, target_session_id: 'b' }, ctx));
  assert.equal(state.messages[ops[0]!]!.delivery_status, 'pending');
  assert.equal(state.messages[dev[0]!]!.delivery_status, 'rejected');
  assert.deepEqual(state.queues.b, ops);
});
