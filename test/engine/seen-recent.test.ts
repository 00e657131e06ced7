import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseState, sendMessage, serializeState, type State } from '../../src/engine/index';
import { SEEN_RECORD_CHARS, encodeSeenTime, isSeenRecords } from '../../src/engine/seen-recent';
import { channelWith, fakeCtx, mustOk, reasonOf, type FakeCtx } from './helpers';

const WINDOW = 300_000;
const msg = { channel: 'dev', session_id: 'a', content: 'hello', to: 'b' };

function two(start?: number): { ctx: FakeCtx; state: State } {
  const ctx = fakeCtx(start);
  return { ctx, state: channelWith(ctx, ['a', 'b']) };
}

/** The state written and read back, as the store would do between two processes. */
function reload(state: State, now: number): { state: State; notes: string[] } {
  const parsed = parseState(serializeState(state), now);
  assert.ok(parsed.ok);
  return { state: parsed.state, notes: parsed.notes };
}

function rawOf(state: State): Record<string, any> {
  return JSON.parse(serializeState(state));
}

test('a repeat by the same sender is refused as duplicate up to the last ms of the window, also after a reload', () => {
  const { ctx, state } = two();
  mustOk(sendMessage(state, msg, ctx));
  assert.equal(reasonOf(sendMessage(state, msg, ctx)), 'duplicate');
  ctx.advance(WINDOW - 1);
  const { state: loaded } = reload(state, ctx.now());
  assert.equal(reasonOf(sendMessage(loaded, msg, ctx)), 'duplicate');
});

test('the same content is accepted again once stale_event_ms has passed', () => {
  const { ctx, state } = two();
  mustOk(sendMessage(state, msg, ctx));
  ctx.advance(WINDOW);
  mustOk(sendMessage(state, msg, ctx));
  assert.equal(state.channels.dev!.seen_recent.a!.length, SEEN_RECORD_CHARS, 'the old record went, the new one is the only one');
});

test('the same text from another sender is accepted, and each sender keeps its own records', () => {
  const { ctx, state } = two();
  mustOk(sendMessage(state, msg, ctx));
  mustOk(sendMessage(state, { ...msg, session_id: 'b', to: 'a' }, ctx));
  assert.deepEqual(Object.keys(state.channels.dev!.seen_recent).sort(), ['a', 'b']);
  assert.equal('seen_content' in state.channels.dev!, false);
});

test('each send sweeps records at least stale_event_ms old and removes a sender left with none', () => {
  const { ctx, state } = two();
  mustOk(sendMessage(state, { ...msg, content: 'one' }, ctx));
  ctx.advance(1000);
  mustOk(sendMessage(state, { ...msg, content: 'two' }, ctx));
  ctx.advance(WINDOW - 1000);
  mustOk(sendMessage(state, { ...msg, session_id: 'b', to: 'a', content: 'three' }, ctx));
  const seen = state.channels.dev!.seen_recent;
  assert.equal(seen.a!.length, SEEN_RECORD_CHARS, '"one" is swept, "two" is 1 ms short of its window');
  assert.equal(seen.a!.slice(0, 32), ctx.hash32('two'));
  ctx.advance(WINDOW);
  mustOk(sendMessage(state, { ...msg, session_id: 'b', to: 'a', content: 'four' }, ctx));
  assert.equal(seen.a, undefined);
  assert.equal(seen.b!.length, SEEN_RECORD_CHARS);
});

test('records out of time order (clocks that disagree) are each swept on their own time', () => {
  const { ctx, state } = two();
  const now = ctx.now();
  const older = ctx.hash32('older');
  const newer = ctx.hash32('newer');
  // Written by a process whose clock ran ahead, then by one behind it.
  state.channels.dev!.seen_recent.a = newer + encodeSeenTime(now + 5000) + older + encodeSeenTime(now - WINDOW);
  mustOk(sendMessage(state, { ...msg, content: 'older' }, ctx));
  assert.equal(reasonOf(sendMessage(state, { ...msg, content: 'newer' }, ctx)), 'duplicate');
  assert.equal(state.channels.dev!.seen_recent.a!.length, 2 * SEEN_RECORD_CHARS, 'the expired record behind a newer one went');
  ctx.advance(WINDOW + 4999);
  assert.equal(reasonOf(sendMessage(state, { ...msg, content: 'newer' }, ctx)), 'duplicate');
  ctx.advance(1);
  mustOk(sendMessage(state, { ...msg, content: 'newer' }, ctx));
});

test('a hash that straddles two records is not mistaken for a recorded one', () => {
  // 36^3 ms: its time field, 00000001000, is also valid in a hash position.
  const { ctx, state } = two(36 ** 3);
  const straddling = ctx.hash32('straddle');
  const time = encodeSeenTime(ctx.now());
  // Off the record stride, the tail of one record and the head of the next spell the
  // hash, followed by a recent time field; only whole records may count.
  const records = `${'0'.repeat(21)}${straddling}${time}${'0'.repeat(11)}${time}`;
  state.channels.dev!.seen_recent.a = records;
  assert.ok(isSeenRecords(records));
  assert.equal(records.length, 2 * SEEN_RECORD_CHARS);
  assert.equal(records.indexOf(straddling), 21);
  mustOk(sendMessage(state, { ...msg, content: 'straddle' }, ctx));
});

test('clocks far ahead of Date.now() fit the 11-character time field and still expire on time', () => {
  const { ctx, state } = two(1_700_000_000_000 * 1000);
  mustOk(sendMessage(state, msg, ctx));
  const record = state.channels.dev!.seen_recent.a!;
  assert.equal(record.length, SEEN_RECORD_CHARS);
  assert.equal(parseInt(record.slice(32), 36), ctx.now());
  ctx.advance(WINDOW - 1);
  assert.equal(reasonOf(sendMessage(reload(state, ctx.now()).state, msg, ctx)), 'duplicate');
  ctx.advance(1);
  mustOk(sendMessage(state, msg, ctx));
  assert.equal(encodeSeenTime(Number.MAX_SAFE_INTEGER).length, 11);
});

test('a reference state file with seen_content loads as seen_recent and still refuses the duplicate it records', () => {
  const { ctx, state } = two();
  const raw = rawOf(state);
  delete raw.channels.dev.seen_recent;
  raw.channels.dev.seen_content = {
    [`a:${ctx.hash32('hello')}`]: ctx.now() - 1000,
    [`a:${ctx.hash32('earlier')}`]: ctx.now() - 2000,
    [`b:${ctx.hash32('hello')}`]: ctx.now() - WINDOW,
  };
  const parsed = parseState(JSON.stringify(raw, null, 2), ctx.now());
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.notes, [], 'converting a well-formed index is not a repair');
  const channel = parsed.state.channels.dev!;
  assert.equal('seen_content' in channel, false);
  assert.equal(channel.seen_recent.a, ctx.hash32('earlier') + encodeSeenTime(ctx.now() - 2000) + ctx.hash32('hello') + encodeSeenTime(ctx.now() - 1000));
  assert.equal(reasonOf(sendMessage(parsed.state, msg, ctx)), 'duplicate');
  assert.equal(reasonOf(sendMessage(parsed.state, { ...msg, content: 'earlier' }, ctx)), 'duplicate');
  mustOk(sendMessage(parsed.state, { ...msg, session_id: 'b', to: 'a' }, ctx));
  assert.equal('seen_content' in rawOf(parsed.state).channels.dev, false, 'our save carries seen_recent only');
});

test('malformed seen_content entries are dropped with one note and the file still loads', () => {
  const { ctx, state } = two();
  const raw = rawOf(state);
  delete raw.channels.dev.seen_recent;
  const hash = ctx.hash32('hello');
  raw.channels.dev.seen_content = {
    [`a:${hash}`]: ctx.now(),
    [`a:${hash.slice(1)}`]: ctx.now(), // 31 hex
    [`a:${"A".repeat(32)}`]: ctx.now(),
    [`a${hash}`]: ctx.now(), // no colon
    [`b:${hash}`]: 'soon',
    [`c:${hash}`]: -5,
    [`__proto__:${hash}`]: ctx.now(),
  };
  const parsed = parseState(JSON.stringify(raw), ctx.now());
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.notes, ['channel "dev": dropped 6 malformed seen_content entries']);
  assert.deepEqual(Object.keys(parsed.state.channels.dev!.seen_recent), ['a']);
  assert.equal(reasonOf(sendMessage(parsed.state, msg, ctx)), 'duplicate');
});

test('a malformed seen_recent value drops only that sender, with one note, and the file still loads', () => {
  const { ctx, state } = two();
  mustOk(sendMessage(state, msg, ctx));
  const good = state.channels.dev!.seen_recent.a!;
  const raw = rawOf(state);
  raw.channels.dev.seen_recent = {
    a: good,
    short: good.slice(1),
    upper: good.toUpperCase(),
    nothex: 'g' + good.slice(1),
    punct: good.slice(0, -1) + '!',
    number: 12,
    empty: '',
  };
  for (const bad of ['short', 'upper', 'nothex', 'punct', 'number']) assert.equal(isSeenRecords(raw.channels.dev.seen_recent[bad]), false, bad);
  const parsed = parseState(JSON.stringify(raw), ctx.now());
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.notes, ['channel "dev": dropped 5 malformed seen_recent entries']);
  assert.deepEqual(parsed.state.channels.dev!.seen_recent, { a: good });
});

test('a seen_recent or seen_content that is not an object rejects the file, a missing one is a default', () => {
  const { ctx, state } = two();
  for (const [field, value] of [['seen_recent', 'x'], ['seen_recent', null], ['seen_content', []]] as const) {
    const raw = rawOf(state);
    raw.channels.dev[field] = value;
    const parsed = parseState(JSON.stringify(raw), ctx.now());
    assert.equal(parsed.ok, false, `${field} = ${JSON.stringify(value)}`);
  }
  const raw = rawOf(state);
  delete raw.channels.dev.seen_recent;
  const parsed = parseState(JSON.stringify(raw), ctx.now());
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.state.channels.dev!.seen_recent, {});
  assert.deepEqual(parsed.notes, ['channel "dev": seen_recent set to its default']);
});

test('a file carrying both forms merges them per sender, oldest first', () => {
  const { ctx, state } = two();
  const now = ctx.now();
  const raw = rawOf(state);
  raw.channels.dev.seen_recent = { a: ctx.hash32('ours') + encodeSeenTime(now - 10) };
  raw.channels.dev.seen_content = { [`a:${ctx.hash32('theirs')}`]: now - 20 };
  const parsed = parseState(JSON.stringify(raw), now);
  assert.ok(parsed.ok);
  assert.equal(parsed.state.channels.dev!.seen_recent.a,
    ctx.hash32('theirs') + encodeSeenTime(now - 20) + ctx.hash32('ours') + encodeSeenTime(now - 10));
});

test('2000 recent sends take at most 45 bytes each in state.json, under 85% of the reference map', () => {
  const { ctx, state } = two(1_700_000_000_000);
  const channel = state.channels.dev!;
  channel.max_agent_streak = 0; // the loop guard would pause this one-sided conversation at 50
  for (let i = 0; i < 2000; i += 1) {
    channel.rate = { window_start: ctx.now(), count: 0 };
    mustOk(sendMessage(state, { ...msg, content: `message ${i}` }, ctx));
    ctx.advance(100);
  }
  const records = channel.seen_recent.a!;
  assert.equal(records.length, 2000 * SEEN_RECORD_CHARS);
  const onDisk = Buffer.byteLength(JSON.stringify(channel.seen_recent));
  assert.ok(onDisk / 2000 <= 45, `${onDisk / 2000} bytes per send`);
  const reference: Record<string, number> = {};
  for (let at = 0; at < records.length; at += SEEN_RECORD_CHARS) reference[`a:${records.slice(at, at + 32)}`] = parseInt(records.slice(at + 32, at + SEEN_RECORD_CHARS), 36);
  // Against the reference's "<sender>:<hash>": ms map for the same sends (a one-letter sender id here).
  const referenceBytes = Buffer.byteLength(JSON.stringify(reference));
  assert.ok(onDisk < 0.85 * referenceBytes, `${onDisk} bytes against ${referenceBytes}`);
  // Loaded back it is still one string, and the first send is still a duplicate.
  const loaded = reload(state, ctx.now());
  assert.deepEqual(loaded.notes, []);
  assert.equal(typeof loaded.state.channels.dev!.seen_recent.a, 'string');
  assert.equal(reasonOf(sendMessage(loaded.state, { ...msg, content: 'message 0' }, ctx)), 'duplicate');
});
