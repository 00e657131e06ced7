import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { backlogRefusal, commitDelivery, drainQueue, jsonStringBytes, sendMessage, serializeState, ENVELOPE_OVERHEAD_BYTES, MAX_LIVE_ENVELOPES, MAX_LIVE_STATE_BYTES } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf, simulateSave } from './helpers';

/** What a string really costs in state.json: its JSON text, quotes excluded. */
function writtenBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

test('jsonStringBytes counts each character as state.json writes it: escapes, 1 to 4 byte characters and lone surrogates', () => {
  const cases: [string, number][] = [
    ['a', 1], ['\u007f', 1], ['é', 2], ['€', 3], ['\u2028', 3], ['😀', 4],
    ['"', 2], ['\\', 2], ['\n', 2], ['\t', 2], ['\b', 2], ['\f', 2], ['\r', 2],
    ['\u0000', 6], ['\u0001', 6], ['\u001f', 6], ['\ud800', 6], ['\udc00', 6], ['\ud800x', 7], ['x\udfff', 7],
  ];
  for (const [text, bytes] of cases) {
    assert.equal(jsonStringBytes(text), bytes, JSON.stringify(text));
    assert.equal(writtenBytes(text), bytes, `the table itself is right for ${JSON.stringify(text)}`);
  }
});

test('jsonStringBytes equals the bytes JSON.stringify writes, for any mix of controls, quotes, surrogates and wide characters', () => {
  const unit = fc.oneof(
    fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
    fc.constantFrom('"', '\\', '\u007f', '\u2028', '\u2029', 'a', ' '),
    fc.integer({ min: 0x80, max: 0x7ff }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0x800, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  );
  fc.assert(fc.property(fc.string({ unit, maxLength: 64 }), (text) => jsonStringBytes(text) === writtenBytes(text)), { seed: 0x5eed, numRuns: 2_000 });
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (text) => jsonStringBytes(text) === writtenBytes(text)), { seed: 0x5eed, numRuns: 500 });
});

test('the backlog cap counts control characters as the six bytes state.json writes: ten broadcasts of 100,000 U+0001 to 32 members stop at the cap', () => {
  const ctx = fakeCtx();
  const ids = Array.from({ length: 32 }, (_, i) => `m${i}`);
  const state = channelWith(ctx, ids, 'dev', undefined, { max_members: 32 });
  const content = '\u0001'.repeat(100_000);
  const outcomes: string[] = [];
  for (let i = 0; i < 10; i += 1) {
    ctx.advance(1_000);
    // Each broadcast differs by its last character, so none is a duplicate.
    const r = sendMessage(state, { channel: 'dev', session_id: 'm0', content: content.slice(0, -1) + String.fromCharCode(0x41 + i), broadcast: true }, ctx);
    outcomes.push(r.ok ? 'ok' : String(reasonOf(r)));
  }
  assert.ok(outcomes.includes('backlog_full'), outcomes.join(','));
  assert.equal(outcomes.indexOf('backlog_full'), outcomes.filter((o) => o === 'ok').length, 'once full, every later broadcast is refused');
  const written = Buffer.byteLength(serializeState(state));
  assert.ok(written <= MAX_LIVE_STATE_BYTES, `state.json would be ${written} bytes against a cap of ${MAX_LIVE_STATE_BYTES}`);
});

test('the per-envelope allowance covers everything but the content that the largest envelope adds to state.json', () => {
  const ctx = fakeCtx();
  // The longest member ids and roles there are, a reply (two more ids) and a
  // delivery lease naming a 64-character machine: the biggest envelope that
  // is still live.
  const ids = ['a'.repeat(64), 'b'.repeat(64)];
  const state = channelWith(ctx, ids);
  state.channels.dev!.members.forEach((m, i) => { m.role = `${'R'.repeat(31)}${i}`; });
  const first = mustOk(sendMessage(state, { channel: 'dev', session_id: ids[0]!, content: 'root', to: ids[1] }, ctx));
  const parent = (first.data!.message_ids as string[])[0]!;
  const before = Buffer.byteLength(serializeState(state));
  const content = 'q"\\\n\u0002\ud800 é😀'.repeat(50);
  ctx.advance(1_000);
  const sent = mustOk(sendMessage(state, { channel: 'dev', session_id: ids[1]!, content, to: ids[0], type: 'review_response', reply_to: parent }, ctx));
  const id = (sent.data!.message_ids as string[])[0]!;
  drainQueue(state, ids[0]!, { owner: { pid: 4_194_304, host: 'h'.repeat(64), lease_until: 9_999_999_999_999 }, now: ctx.now(), limit: 100 });
  state.messages[id]!.attempts = 5;
  state.messages[id]!.seq = Number.MAX_SAFE_INTEGER;
  // What the send added beside the envelope (its queue entry, the rate window,
  // the seen hash) is counted too, against the allowance of the one envelope.
  const added = Buffer.byteLength(serializeState(state)) - before;
  assert.equal(state.messages[id]!.delivery_status, 'in_flight');
  assert.ok(added - jsonStringBytes(content) <= ENVELOPE_OVERHEAD_BYTES,
    `the envelope took ${added - jsonStringBytes(content)} bytes beside its content; the allowance is ${ENVELOPE_OVERHEAD_BYTES}`);
});

test('retention never deletes pending mail: a full backlog refuses the send and names who has not read', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  state.channels.dev!.rate_limit = 1000;
  state.channels.dev!.max_agent_streak = 0; // thousands of agent sends in a row: the loop guard would pause at 50
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
  // Room for the live envelope and another one of 500 bytes.
  const maxBytes = 2 * ENVELOPE_OVERHEAD_BYTES + 1500;
  assert.equal(backlogRefusal(state, 'y'.repeat(1000), 1, { maxEnvelopes: 10, maxBytes })?.data.reason, 'backlog_full');
  assert.equal(backlogRefusal(state, 'y', 1, { maxEnvelopes: 10, maxBytes }), null);
});

test('the byte budget decides on exact written sizes even where the quick 6-bytes-per-unit bound would not fit', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  // 400 two-byte characters: 800 bytes exactly, 2400 by the quick bound.
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'é'.repeat(400) }, ctx));
  const overhead = ENVELOPE_OVERHEAD_BYTES;
  const exact = overhead + 800 + overhead + 800;
  assert.equal(backlogRefusal(state, 'é'.repeat(400), 1, { maxEnvelopes: 10, maxBytes: exact }), null, 'fits exactly');
  assert.equal(backlogRefusal(state, 'é'.repeat(400), 1, { maxEnvelopes: 10, maxBytes: exact - 1 })?.data.reason, 'backlog_full');
  assert.equal(backlogRefusal(state, 'y', 1, { maxEnvelopes: 1, maxBytes: 1e9 })?.data.reason, 'backlog_full', 'the count still refuses');
});
