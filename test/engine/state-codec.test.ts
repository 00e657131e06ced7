import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyState, migrateV1, parseState, sendMessage, serializeState } from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk } from './helpers';

function sample(): Record<string, any> {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'hi' }, ctx));
  return JSON.parse(serializeState(state));
}

test('serialized state is compact JSON that parses back to the same state', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'hi' }, ctx));
  const text = serializeState(state);
  assert.equal(text.includes('\n'), false);
  const parsed = parseState(text, 5);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.state, state);
  assert.deepEqual(parsed.notes, []);
});

test('an empty state round-trips', () => {
  const parsed = parseState(serializeState(emptyState()), 1);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.state, emptyState());
});

test('a state file missing max_hops, rate_limit, stale_event_ms or delivery_cooldown_ms gets the defaults back at load', () => {
  const raw = sample();
  const channel = raw.channels.dev;
  delete channel.max_hops;
  delete channel.rate_limit;
  channel.stale_event_ms = null;
  delete channel.delivery_cooldown_ms;
  delete channel.members[1].stale_policy;
  const parsed = parseState(JSON.stringify(raw), 1);
  assert.ok(parsed.ok);
  const c = parsed.state.channels.dev!;
  assert.equal(c.max_hops, 4);
  assert.equal(c.rate_limit, 20);
  assert.equal(c.stale_event_ms, 300_000);
  assert.equal(c.delivery_cooldown_ms, 1000);
  assert.deepEqual(c.members[1]!.stale_policy, { mode: 'none', window_ms: null });
  assert.ok(parsed.notes.some((n) => n.includes('max_hops')));
});

test('a reference-written state (pretty-printed, delivered mail in messages, no seq) loads', () => {
  const raw = sample();
  const [id] = Object.keys(raw.messages);
  const e = raw.messages[id!];
  delete e.seq;
  delete e.delivery_owner;
  delete e.root_message_id;
  delete e.delivery_method;
  e.delivery_status = 'delivered';
  raw.queues = { b: [id] };
  delete raw.next_seq;
  delete raw.channels.dev.delivered_total;
  delete raw.channels.dev.members[0].endpoint_capabilities;
  raw.channels.dev.timer = { active_role: 'R1', segment_started_at: 5, elapsed_ms: {} };
  const parsed = parseState(JSON.stringify(raw, null, 2), 1);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
  assert.equal(parsed.state.messages[id!]!.root_message_id, null);
  assert.deepEqual(parsed.state.queues, {});
  assert.equal(parsed.state.channels.dev!.delivered_total, 1);
  assert.equal(parsed.state.channels.dev!.timer.active_member_id, 'b');
  assert.equal(parsed.state.next_seq, 1);
  assert.equal(parsed.state.channels.dev!.members[0]!.endpoint_capabilities!.pull, true);
});

test('a pending envelope in no queue is put back in its recipient queue at load', () => {
  const raw = sample();
  raw.queues = {};
  const parsed = parseState(JSON.stringify(raw), 1);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.state.queues.b, Object.keys(raw.messages));
});

const rejections: Array<[string, (raw: Record<string, any>) => void]> = [
  ['not JSON', () => undefined],
  ['a root that is not an object', (r) => { r.__replace = [1]; }],
  ['another schema version', (r) => { r.schema_version = 3; }],
  ['channels that are not an object', (r) => { r.channels = []; }],
  ['messages that are not an object', (r) => { r.messages = 1; }],
  ['a channel key that differs from its name', (r) => { r.channels.other = r.channels.dev; delete r.channels.dev; }],
  ['a channel without an id', (r) => { delete r.channels.dev.id; }],
  ['members that are not an array', (r) => { r.channels.dev.members = {}; }],
  ['a member with an invalid role', (r) => { r.channels.dev.members[0].role = '!'; }],
  ['a member with an unknown surface', (r) => { r.channels.dev.members[0].surface = 'tv'; }],
  ['a member with an unknown delivery mode', (r) => { r.channels.dev.members[0].delivery_mode = 'fax'; }],
  ['a member listed twice', (r) => { r.channels.dev.members[1].session_id = 'a'; }],
  ['a bad stale policy mode', (r) => { r.channels.dev.members[0].stale_policy = { mode: 'forever' }; }],
  ['bad endpoint capabilities', (r) => { r.channels.dev.members[0].endpoint_capabilities = { push: 'yes' }; }],
  ['paused that is not a boolean', (r) => { r.channels.dev.paused = 'no'; }],
  ['a timer that is not an object', (r) => { r.channels.dev.timer = 3; }],
  ['budgets that are not an object', (r) => { r.channels.dev.budgets = 3; }],
  ['an envelope with an unknown status', (r) => { Object.values(r.messages as Record<string, any>)[0].delivery_status = 'lost'; }],
  ['an envelope with an unknown type', (r) => { Object.values(r.messages as Record<string, any>)[0].message_type = 'chat'; }],
  ['an envelope stored under another id', (r) => { const [k] = Object.keys(r.messages); r.messages.ocm_other = r.messages[k!]; delete r.messages[k!]; }],
  ['an envelope with a negative hop count', (r) => { Object.values(r.messages as Record<string, any>)[0].hop_count = -1; }],
  ['an envelope with a broken owner', (r) => { Object.values(r.messages as Record<string, any>)[0].delivery_owner = { pid: 'x' }; }],
  ['queues that are not string arrays', (r) => { r.queues = { b: [1] }; }],
  ['delivered_to that is not an object', (r) => { r.delivered_to = []; }],
  ['errors that are not an array', (r) => { r.errors = {}; }],
  ['a channel id used twice', (r) => { r.channels.ops = { ...r.channels.dev, name: 'ops' }; }],
];

for (const [what, mutate] of rejections) {
  test(`load rejects ${what}`, () => {
    let text: string;
    if (what === 'not JSON') text = '{';
    else {
      const raw = sample();
      mutate(raw);
      text = JSON.stringify(raw.__replace ?? raw);
    }
    const parsed = parseState(text, 1);
    assert.equal(parsed.ok, false);
  });
}

test('malformed error entries and timer numbers are dropped, not fatal', () => {
  const raw = sample();
  raw.errors = [{ at: 1, message: 'kept', channel_id: raw.channels.dev.id }, { at: 'x' }];
  raw.channels.dev.cooldown_until = { b: 'soon' };
  raw.channels.dev.rate = null;
  raw.channels.dev.budgets = { max_runtime_ms: 'x', max_delivered_messages: 5 };
  raw.channels.dev.lifecycle = 'weird';
  raw.channels.dev.max_hops = 500;
  const parsed = parseState(JSON.stringify(raw), 77);
  assert.ok(parsed.ok);
  assert.equal(parsed.state.errors.length, 1);
  assert.deepEqual(parsed.state.channels.dev!.cooldown_until, {});
  assert.deepEqual(parsed.state.channels.dev!.rate, { window_start: 77, count: 0 });
  assert.deepEqual(parsed.state.channels.dev!.budgets, { max_runtime_ms: null, max_delivered_messages: 5 });
  assert.equal(parsed.state.channels.dev!.lifecycle, 'active');
  assert.equal(parsed.state.channels.dev!.max_hops, 50);
});

function legacy(): Record<string, any> {
  const raw = sample();
  raw.schema_version = 1;
  for (const m of raw.channels.dev.members) {
    for (const key of ['host', 'surface', 'delivery_mode', 'stale_policy', 'host_session_id', 'endpoint_capabilities', 'stale', 'stale_at']) delete m[key];
  }
  return raw;
}

test('migrateV1 turns a v1 file into v2 with legacy pushed members and a notice', () => {
  const result = migrateV1(JSON.stringify(legacy()), 9);
  assert.ok(result.ok);
  const member = result.state.channels.dev!.members[0]!;
  assert.equal(member.host, 'opencode-comms');
  assert.equal(member.delivery_mode, 'push');
  assert.equal(member.host_session_id, 'a');
  assert.deepEqual(member.stale_policy, { mode: 'window', window_ms: 300_000 });
  assert.equal(result.state.schema_version, 2);
  assert.match(result.state.errors[result.state.errors.length - 1]!.message, /Migrated/);
});

test('migrateV1 refuses non-JSON, a v2 file, and a real v2 placeholder', () => {
  assert.equal(migrateV1('nope', 1).ok, false);
  assert.equal(migrateV1(JSON.stringify(sample()), 1).ok, false);
  const ctx = fakeCtx();
  assert.equal(migrateV1(JSON.stringify(legacy()), 1, channelWith(ctx, ['x'], 'other')).ok, false);
});

test('migrateV1 keeps the non-colliding channels of an empty placeholder state', () => {
  const ctx = fakeCtx();
  const placeholder = channelWith(ctx, ['x'], 'other');
  placeholder.channels.other!.members = [];
  placeholder.errors.push({ at: 1, message: 'old' });
  const result = migrateV1(JSON.stringify(legacy()), 1, placeholder);
  assert.ok(result.ok);
  assert.deepEqual(Object.keys(result.state.channels).sort(), ['dev', 'other']);
  assert.equal(result.state.errors[0]!.message, 'old');
});

test('load rejects a __proto__ key in a record', () => {
  assert.equal(parseState('{"schema_version":2,"channels":{},"messages":{},"queues":{"__proto__":[]}}', 1).ok, false);
  assert.equal(parseState('{"schema_version":2,"channels":{"__proto__":{}},"messages":{}}', 1).ok, false);
});

test('a delivered_via a newer version may write is dropped at load with a note, never a reason to refuse the state', () => {
  const raw = sample();
  const [id] = Object.keys(raw.messages);
  raw.messages[id!].delivered_via = 'telepathy';
  const parsed = parseState(JSON.stringify(raw), 1);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
  assert.equal(parsed.state.messages[id!]!.delivered_via, undefined);
  assert.ok(parsed.notes.some((n) => n.includes('delivered_via')));
  raw.messages[id!].delivered_via = 'hook';
  const kept = parseState(JSON.stringify(raw), 1);
  assert.ok(kept.ok);
  assert.equal(kept.state.messages[id!]!.delivered_via, 'hook');
});
