import { test } from 'node:test';
import assert from 'node:assert/strict';
import { markStale, sendMessage, timerAction, type State } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf, simulateSave, type FakeCtx } from './helpers';

function two(): { ctx: FakeCtx; state: State } {
  const ctx = fakeCtx();
  return { ctx, state: channelWith(ctx, ['a', 'b']) };
}

const msg = { channel: 'dev', session_id: 'a', content: 'hello' };

test('send refuses an unknown channel first', () => {
  const { ctx, state } = two();
  assert.equal(reasonOf(sendMessage(state, { ...msg, channel: 'nope', content: '' }, ctx)), 'channel_not_found');
});

test('send refuses a non-member before anything else about the channel', () => {
  const { ctx, state } = two();
  state.channels.dev!.paused = true;
  assert.equal(reasonOf(sendMessage(state, { ...msg, session_id: 'z' }, ctx)), 'not_member');
});

test('send refuses a channel that is not active before checking pause', () => {
  const { ctx, state } = two();
  state.channels.dev!.lifecycle = 'saved';
  state.channels.dev!.paused = true;
  assert.equal(reasonOf(sendMessage(state, msg, ctx)), 'not_active');
});

test('send refuses a paused channel before checking budgets', () => {
  const { ctx, state } = two();
  state.channels.dev!.paused = true;
  state.channels.dev!.budgets.max_delivered_messages = 0;
  assert.equal(reasonOf(sendMessage(state, msg, ctx)), 'paused');
});

test('send refuses when the runtime budget is used up', () => {
  const { ctx, state } = two();
  state.channels.dev!.budgets.max_runtime_ms = 60_000;
  ctx.advance(60_001);
  const r = sendMessage(state, { ...msg, content: '' }, ctx);
  assert.equal(reasonOf(r), 'budget_exhausted');
  assert.equal(r.data!.budget, 'runtime');
});

test('send refuses when the message budget is used up', () => {
  const { ctx, state } = two();
  state.channels.dev!.budgets.max_delivered_messages = 1;
  state.channels.dev!.delivered_total = 1;
  assert.equal(reasonOf(sendMessage(state, msg, ctx)), 'budget_exhausted');
});

test('send refuses blank content with content_required', () => {
  const { ctx, state } = two();
  assert.equal(reasonOf(sendMessage(state, { ...msg, content: ' \n ', type: 'bogus' }, ctx)), 'content_required');
});

test('send accepts exactly 100000 characters and refuses one more with content_too_large', () => {
  const { ctx, state } = two();
  assert.equal(reasonOf(sendMessage(state, { ...msg, content: 'x'.repeat(100_001), type: 'bogus' }, ctx)), 'content_too_large');
  mustOk(sendMessage(state, { ...msg, content: 'x'.repeat(100_000) }, ctx));
});

test('send refuses the reserved system type and unknown types with invalid_message_type', () => {
  const { ctx, state } = two();
  assert.equal(reasonOf(sendMessage(state, { ...msg, type: 'system' }, ctx)), 'invalid_message_type');
  assert.equal(reasonOf(sendMessage(state, { ...msg, type: 'chat', to: 'nobody' }, ctx)), 'invalid_message_type');
  mustOk(sendMessage(state, { ...msg, type: 'review_request' }, ctx));
});

test('send with no other member is refused with no_recipient', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  assert.equal(reasonOf(sendMessage(state, msg, ctx)), 'no_recipient');
  assert.equal(reasonOf(sendMessage(state, { ...msg, broadcast: true }, ctx)), 'no_recipient');
});

test('send never guesses among several peers: ambiguous_recipient', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  assert.equal(reasonOf(sendMessage(state, msg, ctx)), 'ambiguous_recipient');
});

test('send to an unknown target is refused with unknown_recipient, and the sender is not a target', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  assert.equal(reasonOf(sendMessage(state, { ...msg, to: 'zed' }, ctx)), 'unknown_recipient');
  assert.equal(reasonOf(sendMessage(state, { ...msg, to: 'R0' }, ctx)), 'unknown_recipient');
});

test('send resolves to by id, then by role, case-insensitively', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  assert.deepEqual(mustOk(sendMessage(state, { ...msg, to: 'C' }, ctx)).data!.recipients, ['c']);
  assert.deepEqual(mustOk(sendMessage(state, { ...msg, content: 'two', to: 'r1' }, ctx)).data!.recipients, ['b']);
});

test('a send to an away member (target, only peer, or broadcast) is queued and reported in data.away', () => {
  const { ctx, state } = two();
  const since = ctx.now();
  markStale(state, 'b', since);
  ctx.advance(5);
  for (const extra of [{}, { to: 'b' }, { broadcast: true }]) {
    const sent = mustOk(sendMessage(state, { ...msg, ...extra, content: `hello ${JSON.stringify(extra)}` }, ctx));
    assert.deepEqual(sent.data!.recipients, ['b']);
    assert.deepEqual(sent.data!.away, [{ member: 'b', role: 'R1', since }]);
    assert.match(sent.message, /away since .* The mail waits and is delivered when their session resumes/);
  }
  assert.equal(state.queues.b!.length, 3);
});

test('a broadcast reaches away members and live ones alike, and names only the away ones', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  markStale(state, 'b', ctx.now());
  const r = mustOk(sendMessage(state, { ...msg, broadcast: true }, ctx));
  assert.deepEqual(r.data!.recipients, ['b', 'c']);
  assert.deepEqual((r.data!.away as Array<{ member: string }>).map((a) => a.member), ['b']);
});

test('a send to members who are all present carries no away list', () => {
  const { ctx, state } = two();
  assert.equal(mustOk(sendMessage(state, msg, ctx)).data!.away, undefined);
});

test('send refuses to and broadcast together with invalid_argument', () => {
  const { ctx, state } = two();
  assert.equal(reasonOf(sendMessage(state, { ...msg, to: 'b', broadcast: true }, ctx)), 'invalid_argument');
});

test('the rate limit counts sends in a fixed 60 second window and a broadcast counts once', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c'], 'dev', undefined, { rate_limit: 2 });
  mustOk(sendMessage(state, { ...msg, content: 'one', broadcast: true }, ctx));
  mustOk(sendMessage(state, { ...msg, content: 'two', to: 'b' }, ctx));
  assert.equal(reasonOf(sendMessage(state, { ...msg, content: 'three', to: 'b' }, ctx)), 'rate_limited');
  ctx.advance(60_001);
  mustOk(sendMessage(state, { ...msg, content: 'four', to: 'b' }, ctx));
});

test('the same content from the same sender within the window is refused with duplicate', () => {
  const { ctx, state } = two();
  mustOk(sendMessage(state, msg, ctx));
  assert.equal(reasonOf(sendMessage(state, msg, ctx)), 'duplicate');
  mustOk(sendMessage(state, { ...msg, session_id: 'b' }, ctx));
  ctx.advance(300_000);
  mustOk(sendMessage(state, msg, ctx));
});

test('reply_to must name an existing message of the same channel', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  channelWith(ctx, ['a', 'b'], 'other', state);
  const other = mustOk(sendMessage(state, { ...msg, channel: 'other' }, ctx)).data!.message_ids as string[];
  assert.equal(reasonOf(sendMessage(state, { ...msg, reply_to: 'ocm_missing' }, ctx)), 'invalid_reply_to');
  assert.equal(reasonOf(sendMessage(state, { ...msg, reply_to: other[0] }, ctx)), 'invalid_reply_to');
});

test('a reply to a message already moved to history inherits its thread', () => {
  const { ctx, state } = two();
  const first = mustOk(sendMessage(state, msg, ctx)).data!.message_ids as string[];
  const parent = state.messages[first[0]!]!;
  parent.delivery_status = 'delivered';
  state.queues = {};
  simulateSave(state, ctx.history);
  assert.equal(state.messages[first[0]!], undefined);
  const r = mustOk(sendMessage(state, { ...msg, session_id: 'b', content: 'reply', reply_to: first[0] }, ctx));
  const reply = state.messages[(r.data!.message_ids as string[])[0]!]!;
  assert.equal(reply.hop_count, 1);
  assert.equal(reply.correlation_id, parent.correlation_id);
  assert.equal(reply.root_message_id, first[0]);
});

test('hop counts 0 to 4 are allowed and hop 5 is refused with hop_limit', () => {
  const { ctx, state } = two();
  let parent: string | null = null;
  for (let hop = 0; hop <= 4; hop += 1) {
    const r = mustOk(sendMessage(state, { ...msg, session_id: hop % 2 === 0 ? 'a' : 'b', content: `m${hop}`, reply_to: parent }, ctx));
    parent = (r.data!.message_ids as string[])[0]!;
    assert.equal(state.messages[parent]!.hop_count, hop);
  }
  assert.equal(reasonOf(sendMessage(state, { ...msg, content: 'm5', reply_to: parent }, ctx)), 'hop_limit');
});

test('send queues one pending envelope per recipient with the documented fields', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  const r = mustOk(sendMessage(state, { ...msg, broadcast: true, session_description: '  a   new\n purpose ' }, ctx));
  const ids = r.data!.message_ids as string[];
  assert.equal(ids.length, 2);
  assert.deepEqual(state.queues.b, [ids[0]]);
  assert.deepEqual(state.queues.c, [ids[1]]);
  const e = state.messages[ids[0]!]!;
  assert.equal(e.delivery_status, 'pending');
  assert.equal(e.message_type, 'manual');
  assert.equal(e.hop_count, 0);
  assert.equal(e.attempts, 0);
  assert.match(e.correlation_id, /^cor_[0-9a-f]{32}$/);
  assert.equal(state.channels.dev!.description, 'a new purpose');
  assert.equal(r.data!.session_description, 'a new purpose');
  const again = mustOk(sendMessage(state, { ...msg, content: 'x', broadcast: true, session_description: 'other' }, ctx));
  assert.equal(state.channels.dev!.description, 'a new purpose');
  assert.equal(again.data!.session_description, undefined);
});

test('the processed_correlations list no longer grows, since nothing reads it', () => {
  const { ctx, state } = two();
  mustOk(sendMessage(state, msg, ctx));
  assert.deepEqual(state.channels.dev!.processed_correlations, []);
});

test('send does not start the chess clock when nobody started it', () => {
  const { ctx, state } = two();
  mustOk(sendMessage(state, msg, ctx));
  assert.equal(state.channels.dev!.timer.active_member_id, null);
  assert.equal(state.channels.dev!.timer.segment_started_at, null);
});

test('send hands a running clock to the recipient', () => {
  const { ctx, state } = two();
  mustOk(timerAction(state, { channel: 'dev', session_id: 'a', action: 'start' }, ctx));
  ctx.advance(500);
  mustOk(sendMessage(state, msg, ctx));
  assert.equal(state.channels.dev!.timer.active_member_id, 'b');
  assert.equal(state.channels.dev!.timer.elapsed_ms.a, 500);
});
