// The change pipeline both stores share (src/store/change.ts): what a change
// asks its store to write, decided without any I/O.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyChange } from '../../src/store/change';
import { parseStateText } from '../../src/store/parse';
import { TEST_CODEC } from './test-codec';

const ok = { ok: true, message: 'ok' };
const refused = { ok: false, message: 'no', data: { reason: 'not_member' } };
const emptyText = (): string => TEST_CODEC.serializeState(TEST_CODEC.emptyState());

test('a change that alters nothing asks for no write, unless the store holds staged work of it', () => {
  const parsed = () => parseStateText(TEST_CODEC, emptyText(), 1);
  assert.equal(applyChange(parsed(), TEST_CODEC, 1, () => ok).write, undefined);
  const staged = applyChange(parsed(), TEST_CODEC, 1, () => ok, () => true).write;
  assert.deepEqual(staged, { text: emptyText(), finished: new Map(), retired: [], isFallback: false });
});

test('a refused change writes nothing, but a rejected state is replaced by the empty one anyway (the fallback)', () => {
  assert.equal(applyChange(parseStateText(TEST_CODEC, emptyText(), 1), TEST_CODEC, 1, () => refused).write, undefined);
  const rejected = parseStateText(TEST_CODEC, '{not json', 1);
  assert.equal(rejected.baseline, null);
  assert.match(rejected.rejection ?? '', /not JSON/);
  const { result, write } = applyChange(rejected, TEST_CODEC, 1, (state) => {
    state.errors.push({ at: 1, message: 'made by the refused change' });
    return refused;
  });
  assert.equal(result, refused);
  assert.deepEqual(write, { text: emptyText(), finished: new Map(), retired: [], isFallback: true }, 'the text from before the change ran');
});

test('an ok change writes its new text with the finished envelopes taken out for history', () => {
  const parsed = parseStateText(TEST_CODEC, emptyText(), 1);
  const { write } = applyChange(parsed, TEST_CODEC, 1, (state) => {
    state.messages.m1 = { message_id: 'm1', channel_id: 'chn_1', delivery_status: 'delivered' } as never;
    state.delivered_to.m1 = ['b'];
    return ok;
  });
  assert.equal(write?.isFallback, false);
  assert.deepEqual(JSON.parse(write!.text).messages, {});
  assert.deepEqual(write!.finished.get('chn_1')?.map((r) => [r.message_id, r.delivered_to]), [['m1', ['b']]]);
});

test('a change that alters nothing still writes when a task\'s retention passed: the task leaves the text for the board\'s history', () => {
  const DAY = 24 * 3600_000;
  const closed = { id: 't1', title: 'old', status: 'done', closed_at: 1_000, after: [], log: [] };
  const open = { id: 't2', title: 'new', status: 'open', closed_at: null, after: [], log: [] };
  const text = JSON.stringify({ ...JSON.parse(emptyText()), board: { next_no: 3, tasks: { t1: closed, t2: open }, waiting: {}, wakes: {} } });
  assert.equal(applyChange(parseStateText(TEST_CODEC, text, 1), TEST_CODEC, 1_000 + 7 * DAY - 1, () => ok).write, undefined);
  const { write } = applyChange(parseStateText(TEST_CODEC, text, 1), TEST_CODEC, 1_000 + 7 * DAY, () => ok);
  assert.deepEqual(write!.retired.map((t) => t.id), ['t1']);
  assert.deepEqual(Object.keys(JSON.parse(write!.text).board.tasks), ['t2']);
});

test('one parser for every store: a codec that throws on hostile text counts as one that refuses it', () => {
  const throwing = { ...TEST_CODEC, parseState: () => { throw new Error('boom'); } };
  const parsed = parseStateText(throwing, '{}', 1);
  assert.equal(parsed.baseline, null);
  assert.equal(parsed.rejection, 'parser failed: boom');
});
