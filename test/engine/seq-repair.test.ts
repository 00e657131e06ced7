// Loading repairs a seq that could not stay exact, so every send keeps an order of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseState, sendMessage, serializeState } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk } from './helpers';

// docs/internals.md, "Load repairs": "next_seq is raised to one more than the highest seq present
// when it is missing or lower". seq is only checked to be finite, so a seq at
// or past 2^53 makes max + 1 round back to max: the next send gets the same
// seq as a stored envelope, and send order (PROTOCOL 4.2: "queues order by it")
// falls back to the random message_id.
test('a stored seq of 2^53 is dropped at load with a note, and the next send gets a seq no other envelope has', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'first' }, ctx));
  const raw = JSON.parse(serializeState(state));
  for (const e of Object.values<Record<string, unknown>>(raw.messages)) e.seq = 2 ** 53;
  delete raw.next_seq;
  const parsed = parseState(JSON.stringify(raw), ctx.now());
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
  assert.ok(parsed.notes.some((n) => /seq dropped/.test(n)), JSON.stringify(parsed.notes));
  mustOk(sendMessage(parsed.state, { channel: 'dev', session_id: 'a', content: 'second' }, ctx));
  const seqs = Object.values(parsed.state.messages).map((e) => e.seq);
  assert.equal(new Set(seqs).size, seqs.length, `every send keeps its own seq, got ${JSON.stringify(seqs)}`);
});
