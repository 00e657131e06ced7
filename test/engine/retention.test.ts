import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backlogRefusal, commitDelivery, drainQueue, sendMessage, utf8ByteLength, ENVELOPE_OVERHEAD_BYTES, MAX_LIVE_ENVELOPES } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf, simulateSave } from './helpers';

test('utf8ByteLength counts 1, 2, 3 and 4 byte characters and lone surrogates', () => {
  assert.equal(utf8ByteLength('a'), 1);
  assert.equal(utf8ByteLength('é'), 2);
  assert.equal(utf8ByteLength('€'), 3);
  assert.equal(utf8ByteLength('😀'), 4);
  assert.equal(utf8ByteLength('\ud800'), 3);
  assert.equal(utf8ByteLength('\ud800x'), 4);
  const sample = 'aé€😀\udc00';
  assert.equal(utf8ByteLength(sample), new TextEncoder().encode(sample).length);
});

test('retention never deletes pending mail: a full backlog refuses the send and names who has not read', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  state.channels.dev!.rate_limit = 1000;
  for (let i = 0; i < MAX_LIVE_ENVELOPES; i += 1) {
    ctx.advance(60_001 / 900);
    mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: `m${i}` }, ctx));
  }
  const r = sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one too many' }, ctx);
  assert.equal(reasonOf(r), 'backlog_full');
  assert.match(r.message, /R1 \(b\): 2000/);
  assert.equal(Object.keys(state.messages).length, MAX_LIVE_ENVELOPES);
  assert.equal(state.queues.b!.length, MAX_LIVE_ENVELOPES);
  const handed = drainQueue(state, 'b', { owner: { pid: 1, host: 'h', lease_until: 1e15 }, now: ctx.now(), limit: 10 });
  commitDelivery(state, 'b', handed.map((e) => e.message_id), 'pull', ctx.now());
  simulateSave(state, ctx.history);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'room again' }, ctx));
});

test('the byte budget of live mail is enforced as well as the count', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'x'.repeat(1000) }, ctx));
  assert.equal(backlogRefusal(state, 'y'.repeat(1000), 1, { maxEnvelopes: 10, maxBytes: 2500 })?.data.reason, 'backlog_full');
  assert.equal(backlogRefusal(state, 'y', 1, { maxEnvelopes: 10, maxBytes: 2500 }), null);
});

test('the byte budget decides on exact UTF-8 sizes even where the quick 3-bytes-per-unit bound would not fit', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  // 400 two-byte characters: 800 bytes exactly, 1200 by the quick bound.
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'é'.repeat(400) }, ctx));
  const overhead = ENVELOPE_OVERHEAD_BYTES;
  const exact = overhead + 800 + overhead + 800;
  assert.equal(backlogRefusal(state, 'é'.repeat(400), 1, { maxEnvelopes: 10, maxBytes: exact }), null, 'fits exactly');
  assert.equal(backlogRefusal(state, 'é'.repeat(400), 1, { maxEnvelopes: 10, maxBytes: exact - 1 })?.data.reason, 'backlog_full');
  assert.equal(backlogRefusal(state, 'y', 1, { maxEnvelopes: 1, maxBytes: 1e9 })?.data.reason, 'backlog_full', 'the count still refuses');
});
