// Mail held behind a pause is said as held (issue 35, item 13): a pull, status
// and the send that trips the loop guard say how much waits, who paused the
// channel (the loop guard, a person or a member) and who lifts the pause;
// never "no pending messages".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  channelStatus, emptyState, parseState, pauseChannel, personSetPause, pullMessages, resumeChannel, sendMessage, serializeState,
  type HeldMail, type State,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, OWNER, reasonOf, type FakeCtx } from './helpers';

const PERSON = 'person-ada';
const TERMINAL = { tty: '/dev/pts/4', session_leader: 'bash (pid 4242)' };

function tripped(max = 3): { ctx: FakeCtx; state: State } {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b'], 'dev', emptyState(), { rate_limit: 1000, max_agent_streak: max });
  for (let i = 0; i < max; i += 1) {
    mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: `ack ${i}` }, ctx));
    ctx.advance(1);
  }
  return { ctx, state };
}

function pull(state: State, ctx: FakeCtx, who = 'b', channel?: string) {
  return mustOk(pullMessages(state, who, { channel, owner: OWNER }, ctx));
}

function heldOf(result: { data?: Record<string, unknown> }): HeldMail[] {
  return result.data!.held as HeldMail[];
}

test('a pull on a channel the loop guard paused says how much waits, that the guard paused it and how a person lifts it', () => {
  const { ctx, state } = tripped(3);
  const pulled = pull(state, ctx, 'b', 'dev');
  assert.deepEqual(pulled.data!.message_ids, []);
  assert.doesNotMatch(pulled.message, /No pending messages/);
  const [held] = heldOf(pulled);
  assert.deepEqual({ ...held!, text: undefined }, {
    channel: 'dev', count: 3, paused_by: 'loop_guard', pauser: 'loop_guard', paused_at: state.channels.dev!.paused_at,
    lift: 'opencomms resume dev', agent_may_resume: false, text: undefined,
  });
  assert.ok(pulled.message.includes(held!.text), 'the sentence is in the message');
  assert.ok(pulled.message.includes('opencomms resume dev'));
});

test('a pull of every channel names the held ones too, and still delivers what is not held', () => {
  const { ctx, state } = tripped(2);
  channelWith(ctx, ['a', 'b'], 'ops', state);
  mustOk(sendMessage(state, { channel: 'ops', session_id: 'a', content: 'deploy at noon' }, ctx));
  const pulled = pull(state, ctx);
  assert.equal((pulled.data!.message_ids as string[]).length, 1);
  assert.deepEqual(heldOf(pulled).map((h) => [h.channel, h.count, h.pauser]), [['dev', 2, 'loop_guard']]);
});

test('a person\'s pause is told apart from the loop guard\'s: it names the person, and only a person lifts it', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one' }, ctx));
  mustOk(personSetPause(state, { channel: 'dev', paused: true, person_id: PERSON, terminal: TERMINAL }, ctx));
  const [held] = heldOf(pull(state, ctx));
  assert.deepEqual([held!.count, held!.paused_by, held!.pauser, held!.agent_may_resume], [1, PERSON, 'person', false]);
  assert.equal(reasonOf(resumeChannel(state, { channel: 'dev', session_id: 'b' }, ctx)), 'person_required');
  mustOk(personSetPause(state, { channel: 'dev', paused: false, person_id: PERSON, terminal: TERMINAL }, ctx));
  assert.equal(state.channels.dev!.paused_by, undefined);
  assert.deepEqual(pull(state, ctx).data!.held, []);
});

test('a member\'s pause names the member, and any member may lift it', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one' }, ctx));
  mustOk(pauseChannel(state, { channel: 'dev', session_id: 'a' }, ctx));
  const [held] = heldOf(pull(state, ctx));
  assert.deepEqual([held!.paused_by, held!.pauser, held!.agent_may_resume], ['a', 'member', true]);
  assert.match(held!.text, /opencomms_resume/);
  mustOk(resumeChannel(state, { channel: 'dev', session_id: 'b' }, ctx));
});

test('status says each paused channel\'s held mail in the same words, for members and the operator', () => {
  const { ctx, state } = tripped(3);
  const forMember = mustOk(channelStatus(state, { session_id: 'b' }, ctx));
  const forOperator = mustOk(channelStatus(state, { session_id: null }, ctx));
  for (const status of [forMember, forOperator]) {
    const [held] = status.data!.held as HeldMail[];
    assert.deepEqual([held!.channel, held!.count, held!.pauser], ['dev', 3, 'loop_guard']);
    assert.ok(status.message.includes(held!.text));
    assert.deepEqual((status.data!.channels as { held: HeldMail }[])[0]!.held, held);
  }
});

test('the send that trips the guard says how much waits, paused by the loop guard, and how a person lifts it', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b'], 'dev', emptyState(), { rate_limit: 1000, max_agent_streak: 2 });
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one' }, ctx));
  const second = mustOk(sendMessage(state, { channel: 'dev', session_id: 'b', content: 'two' }, ctx));
  const [held] = heldOf(second);
  assert.deepEqual([held!.count, held!.paused_by, held!.lift], [2, 'loop_guard', 'opencomms resume dev']);
  assert.ok(second.message.includes(held!.text));
});

test('who paused a channel survives a save and load; a malformed paused_by is dropped with a note', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(personSetPause(state, { channel: 'dev', paused: true, person_id: PERSON, terminal: TERMINAL }, ctx));
  const loaded = parseState(serializeState(state), ctx.now());
  assert.ok(loaded.ok);
  assert.equal(loaded.state.channels.dev!.paused_by, PERSON);
  const raw = JSON.parse(serializeState(state));
  raw.channels.dev.paused_by = 'not an id\n';
  const bad = parseState(JSON.stringify(raw), ctx.now());
  assert.ok(bad.ok);
  assert.equal(bad.state.channels.dev!.paused_by, undefined);
  assert.ok(bad.notes.some((n) => n.includes('paused_by')));
});
