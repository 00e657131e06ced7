// Clocks that disagree (a step back, a machine running ahead) and broadcast copies in history paging.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drainQueue, channelHistory as history, sendMessage } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, OWNER, pullDelivered, reasonOf, simulateSave } from './helpers';

// ---- History paging: copies of one broadcast share seq and timestamp, so their
// order depends on whether each copy is still in state.messages or already in
// history. A copy delivered between two page requests reorders them, and the
// `before` cursor then skips one copy and repeats another.
test('history paging with before neither repeats nor skips broadcast copies delivered between pages', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c', 'd']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'to all', broadcast: true }, ctx));
  const all = Object.keys(state.messages);
  assert.equal(all.length, 3);

  const page1 = mustOk(history(state, { channel: 'dev', session_id: 'a', limit: 2 }, ctx));
  const first = (page1.data!.messages as Array<{ message_id: string }>).map((m) => m.message_id);
  assert.equal(page1.data!.has_more, true);
  const cursor = page1.data!.next_before as string;

  // Between the two page requests, one recipient pulls its copy; the store moves it to history.
  const reader = state.messages[first[0]!]!.recipient_session_id;
  mustOk(pullDelivered(state, reader, {}, ctx));
  simulateSave(state, ctx.history);

  const page2 = mustOk(history(state, { channel: 'dev', session_id: 'a', limit: 2, before: cursor }, ctx));
  const second = (page2.data!.messages as Array<{ message_id: string }>).map((m) => m.message_id);
  const seen = [...first, ...second];
  assert.equal(new Set(seen).size, seen.length, `a copy was shown twice: ${JSON.stringify({ first, second })}`);
  assert.deepEqual([...seen].sort(), [...all].sort(), `a copy was never shown: ${JSON.stringify({ first, second })}`);
});

// ---- Fixed windows and a window_start in the future (clock moved back, or the
// value written by a machine whose clock is ahead). The rate window restarts
// only when now - window_start > 60 s, which a future start never satisfies.
test('a rate window starting in the future does not keep the channel rate-limited beyond one window', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b'], 'dev', undefined, { rate_limit: 1 });
  const channel = state.channels.dev!;
  // Written by a peer whose clock runs an hour ahead, after its one allowed send.
  channel.rate = { window_start: ctx.now() + 3_600_000, count: 1 };
  ctx.advance(61_000); // more than a full window later on this machine
  const r = sendMessage(state, { channel: 'dev', session_id: 'a', content: 'hello' }, ctx);
  assert.equal(r.ok, true, `still refused ${String(reasonOf(r))} a minute later: the window would last ~1 h`);
});

test('a rate window survives a clock that moved back: at most rate_limit sends per 60 s of real time', () => {
  const ctx = fakeCtx(10_000_000);
  const state = channelWith(ctx, ['a', 'b'], 'dev', undefined, { rate_limit: 1 });
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one' }, ctx));
  ctx.set(10_000_000 - 600_000); // NTP step: the clock goes back 10 minutes
  ctx.advance(61_000);
  const r = sendMessage(state, { channel: 'dev', session_id: 'a', content: 'two' }, ctx);
  assert.equal(r.ok, true, `refused ${String(reasonOf(r))}: the 60 s window now lasts ~11 minutes`);
});

// A cooldown is at most delivery_cooldown_ms (1 s) long. One written by a
// machine whose clock runs ahead holds a push member's mail until this clock
// catches up; by then a spawn_push member's 5-minute window has passed and
// the mail is thrown away as stale.
test('a cooldown_until far in the future does not hold a pushed member\'s mail until it ages out', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const b = state.channels.dev!.members[1]!;
  b.delivery_mode = 'spawn_push';
  b.stale_policy = { mode: 'window', window_ms: 300_000 };
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'please review' }, ctx));
  state.channels.dev!.cooldown_until.b = ctx.now() + 3_600_000; // a peer an hour ahead just pushed
  ctx.advance(2_000);
  const handed = drainQueue(state, 'b', { owner: OWNER, now: ctx.now() });
  assert.equal(handed.length, 1, 'the push waits on a cooldown ~1 h long');
});

// The duplicate window is stale_event_ms (5 min). A record stamped in the
// future (clock moved back) is never swept and counts as "seen moments ago".
test('the duplicate window is not stretched by a clock that moved back', () => {
  const ctx = fakeCtx(10_000_000);
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'status: green' }, ctx));
  ctx.set(10_000_000 - 3_600_000); // the clock goes back an hour
  ctx.advance(301_000); // more than the 5-minute window of real time later
  const r = sendMessage(state, { channel: 'dev', session_id: 'a', content: 'status: green' }, ctx);
  assert.equal(r.ok, true, `refused ${String(reasonOf(r))}: the same text stays a "duplicate" for ~65 minutes`);
});
