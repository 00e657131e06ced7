// Threads, open review requests and search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { channelHistory as history, pruneRequests, sendMessage, channelStatus as status, dueReminders, markReminded, hasReminderDue, kickChannel, type Envelope } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf, simulateSave } from './helpers';

const send = (state: Parameters<typeof sendMessage>[0], ctx: Parameters<typeof sendMessage>[2], from: string, extra: Record<string, unknown>) =>
  mustOk(sendMessage(state, { channel: 'dev', session_id: from, content: `${from} says ${JSON.stringify(extra)} ${ctx.now()}`, ...extra }, ctx));

test('every message carries the thread_id of its reply chain: a new send starts one, a reply joins its parent\'s', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  const root = send(state, ctx, 'a', { broadcast: true });
  const [first, second] = root.data!.message_ids as string[];
  assert.equal(root.data!.thread_id, first, 'a broadcast is one thread, named after its first envelope');
  assert.equal(state.messages[second!]!.thread_id, first);
  ctx.advance(10);
  const reply = send(state, ctx, 'c', { reply_to: second, to: 'a' });
  assert.equal(reply.data!.thread_id, first, 'a reply to any envelope of the broadcast joins the same thread');
  ctx.advance(10);
  const other = send(state, ctx, 'b', { to: 'a' });
  assert.notEqual(other.data!.thread_id, first);
});

test('a review_request is open until every recipient answers it with a review_response in its thread', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  const asked = send(state, ctx, 'a', { type: 'review_request', broadcast: true });
  const threadId = asked.data!.thread_id as string;
  const askedIds = asked.data!.message_ids as string[];
  let a = mustOk(status(state, { session_id: 'a' }, ctx)).data!;
  assert.deepEqual((a.you_are_waiting_for as Array<{ to: string[] }>)[0]!.to, ['b', 'c']);
  assert.equal((mustOk(status(state, { session_id: 'b' }, ctx)).data!.waiting_for_you as unknown[]).length, 1);
  ctx.advance(5);
  send(state, ctx, 'b', { type: 'review_response', reply_to: askedIds[0], to: 'a' });
  a = mustOk(status(state, { session_id: 'a' }, ctx)).data!;
  assert.deepEqual((a.you_are_waiting_for as Array<{ to: string[]; thread_id: string }>)[0], {
    channel: 'dev', request_id: askedIds[0], thread_id: threadId, from: 'a', from_role: 'R0', to: ['c'], since: 1_000_000,
  });
  assert.deepEqual(mustOk(status(state, { session_id: 'b' }, ctx)).data!.waiting_for_you, []);
  ctx.advance(5);
  send(state, ctx, 'c', { type: 'review_response', reply_to: askedIds[1], to: 'a' });
  assert.deepEqual(mustOk(status(state, { session_id: 'a' }, ctx)).data!.you_are_waiting_for, []);
  assert.equal(state.channels.dev!.open_requests, undefined);
});

test('a review_response outside the thread does not answer it, and the sender closes it by answering the thread', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const asked = send(state, ctx, 'a', { type: 'review_request' });
  ctx.advance(1);
  send(state, ctx, 'b', { type: 'review_response' });
  assert.equal(state.channels.dev!.open_requests!.length, 1, 'a response in another thread answers nothing');
  ctx.advance(1);
  send(state, ctx, 'a', { type: 'review_response', reply_to: (asked.data!.message_ids as string[])[0] });
  assert.equal(state.channels.dev!.open_requests, undefined, 'the sender closed it');
});

test('open requests are listed oldest first, and go with a member who leaves', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b', 'c']);
  send(state, ctx, 'a', { type: 'review_request', to: 'b' });
  ctx.advance(100);
  send(state, ctx, 'c', { type: 'review_request', to: 'b' });
  const forB = mustOk(status(state, { session_id: 'b' }, ctx)).data!.waiting_for_you as Array<{ from: string }>;
  assert.deepEqual(forB.map((r) => r.from), ['a', 'c']);
  mustOk(kickChannel(state, { channel: 'dev', session_id: 'a', target_session_id: 'c' }, ctx));
  pruneRequests(state);
  assert.deepEqual((mustOk(status(state, { session_id: 'b' }, ctx)).data!.waiting_for_you as Array<{ from: string }>).map((r) => r.from), ['a']);
});

test('the Stop reminder brings up each open request once per recipient', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  send(state, ctx, 'a', { type: 'review_request' });
  assert.equal(hasReminderDue(state, 'b'), true);
  assert.equal(hasReminderDue(state, 'a'), false, 'the sender is not reminded of its own request');
  const due = dueReminders(state, 'b');
  assert.equal(due.length, 1);
  assert.equal(hasReminderDue(state, 'b'), true, 'listing what is due marks nothing');
  markReminded(state, 'b', due.map((r) => r.request_id));
  assert.equal(hasReminderDue(state, 'b'), false);
  assert.deepEqual(dueReminders(state, 'b'), []);
});

function page(state: Parameters<typeof history>[0], ctx: Parameters<typeof history>[2], extra: Record<string, unknown>) {
  return mustOk(history(state, { channel: 'dev', session_id: 'b', ...extra }, ctx)).data!;
}

test('search: every word must match, case-insensitively, newest first, each hit framed as untrusted peer content', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  for (const content of ['Parser fix ready', 'lunch?', 'the PARSER tests fail', 'parser and lexer done']) {
    ctx.advance(10);
    mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content }, ctx));
  }
  simulateSave(state, ctx.history);
  const hits = page(state, ctx, { query: 'parser' }).messages as Array<{ framed: string }>;
  assert.equal(hits.length, 3);
  assert.match(hits[0]!.framed, /parser and lexer done/);
  assert.match(hits[2]!.framed, /Parser fix ready/);
  for (const hit of hits) assert.match(hit.framed, /<<<UNTRUSTED_PEER_MESSAGE nonce=/);
  const both = page(state, ctx, { query: '  PARSER   tests ' }).messages as Array<{ framed: string }>;
  assert.equal(both.length, 1);
  assert.deepEqual(page(state, ctx, { query: 'nothing-like-this' }).messages, []);
});

test('search pages back with before without repeats or gaps, and thread narrows to one reply chain', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b'], 'dev', undefined, { max_hops: 50 });
  const ids: string[] = [];
  let threadId = '';
  for (let i = 0; i < 9; i += 1) {
    ctx.advance(10);
    const sent = mustOk(sendMessage(state, { channel: 'dev', session_id: i % 2 === 0 ? 'a' : 'b', content: `match ${i}`, reply_to: i === 0 ? undefined : ids[i - 1] }, ctx));
    ids.push((sent.data!.message_ids as string[])[0]!);
    if (i === 0) threadId = sent.data!.thread_id as string;
  }
  ctx.advance(10);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'match elsewhere' }, ctx));
  const seen: string[] = [];
  let before: string | null = null;
  for (let guard = 0; guard < 10; guard += 1) {
    const got = page(state, ctx, { thread: threadId, query: 'match', limit: 4, ...(before ? { before } : {}) });
    seen.push(...(got.messages as Array<{ message_id: string }>).map((m) => m.message_id));
    before = got.next_before as string | null;
    if (!got.has_more) break;
  }
  assert.deepEqual(seen, [...ids].reverse());
  assert.equal(reasonOf(history(state, { channel: 'dev', session_id: 'b', query: 'elsewhere', before: ids[3] }, ctx)), 'not_found');
});

test('search also finds the messages of the channel\'s saved archives', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const old: Envelope = {
    message_id: 'ocm_old', channel_id: 'chn_old', sender_session_id: 'a', sender_role: 'R0', recipient_session_id: 'b', recipient_role: 'R1',
    timestamp: 1, message_type: 'manual', content: 'the migration plan from last week', reply_to: null, root_message_id: null, hop_count: 0,
    correlation_id: 'cor_x', delivery_status: 'delivered', delivered_at: 2, attempts: 1, delivery_method: 'pull',
  };
  const hits = page(state, ctx, { query: 'migration plan', archived: [old] }).messages as Array<{ message_id: string }>;
  assert.deepEqual(hits.map((h) => h.message_id), ['ocm_old']);
  assert.deepEqual(page(state, ctx, { archived: [old] }).messages, [], 'a plain page shows the live channel only');
});
