// The loop guard and the person member as pure engine rules: the channel
// pauses itself at exactly max_agent_streak agent messages, agents are
// refused (agent_streak, person_required), a person lifts it, and the
// fields load from older and hand-edited state files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createChannel, emptyState, frameMessage, isPersonMemberId, parseState, pauseChannel, personMemberId, personRead, personSay, personSetPause,
  commitDelivery, resumeChannel, sendMessage, serializeState, type State,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, OWNER, PROJECT, reasonOf, WORKTREE, type FakeCtx } from './helpers';

const PERSON = 'person-ada';
const TERMINAL = { tty: '/dev/pts/4', session_leader: 'bash (pid 4242)' };
const ACTOR = { person_id: PERSON, terminal: TERMINAL };

function guarded(max?: number): { ctx: FakeCtx; state: State } {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b'], 'dev', emptyState(), { rate_limit: 1000, ...(max === undefined ? {} : { max_agent_streak: max }) });
  return { ctx, state };
}

function agentSends(state: State, ctx: FakeCtx, count: number, from = 'a'): void {
  for (let i = 0; i < count; i += 1) {
    mustOk(sendMessage(state, { channel: 'dev', session_id: from, content: `ack ${from} ${i} ${ctx.now()}`, to: from === 'a' ? 'b' : 'a' }, ctx));
    ctx.advance(1);
  }
}

function say(state: State, ctx: FakeCtx, content: string, extra: Record<string, unknown> = {}) {
  return personSay(state, { channel: 'dev', ...ACTOR, content, project_id: PROJECT, worktree: WORKTREE, ...extra }, ctx);
}

test('a new channel carries the default streak limit of 50 and a count of 0', () => {
  const { state } = guarded();
  assert.equal(state.channels.dev!.max_agent_streak, 50);
  assert.equal(state.channels.dev!.agent_streak, 0);
});

test('the channel pauses itself at exactly max_agent_streak agent messages, and the send that reaches it says so', () => {
  const { ctx, state } = guarded(5);
  agentSends(state, ctx, 4);
  assert.equal(state.channels.dev!.paused, false, 'four of five: still open');
  const fifth = mustOk(sendMessage(state, { channel: 'dev', session_id: 'b', content: 'fifth' }, ctx));
  assert.equal(state.channels.dev!.paused, true);
  assert.equal(state.channels.dev!.paused_reason, 'agent_streak');
  assert.equal(fifth.data?.paused, true);
  assert.equal(fifth.data?.pause_reason, 'agent_streak');
  assert.match(fifth.message, /paused itself/);
  const sixth = sendMessage(state, { channel: 'dev', session_id: 'a', content: 'sixth' }, ctx);
  assert.equal(reasonOf(sixth), 'agent_streak');
  assert.equal(sixth.data?.max_agent_streak, 5);
});

test('the default guard pauses at the 50th agent message', () => {
  const { ctx, state } = guarded();
  agentSends(state, ctx, 49);
  assert.equal(state.channels.dev!.paused, false);
  agentSends(state, ctx, 1, 'b');
  assert.equal(state.channels.dev!.paused_reason, 'agent_streak');
});

test('max_agent_streak 0 turns the guard off', () => {
  const { ctx, state } = guarded(0);
  agentSends(state, ctx, 120);
  assert.equal(state.channels.dev!.paused, false);
});

test('an agent cannot resume a loop-guard pause: person_required', () => {
  const { ctx, state } = guarded(3);
  agentSends(state, ctx, 3);
  assert.equal(reasonOf(resumeChannel(state, { channel: 'dev', session_id: 'a' }, ctx)), 'person_required');
  assert.equal(state.channels.dev!.paused, true);
});

test('an agent may still resume a pause a member made', () => {
  const { ctx, state } = guarded(3);
  mustOk(pauseChannel(state, { channel: 'dev', session_id: 'a' }, ctx));
  assert.equal(state.channels.dev!.paused_reason, undefined);
  mustOk(resumeChannel(state, { channel: 'dev', session_id: 'b' }, ctx));
  assert.equal(state.channels.dev!.paused, false);
});

test('a person\'s say lifts the pause, joins the channel as person, and starts the count again', () => {
  const { ctx, state } = guarded(3);
  agentSends(state, ctx, 3);
  const said = mustOk(say(state, ctx, 'Stop acknowledging each other; reviewer, summarise.'));
  const channel = state.channels.dev!;
  assert.equal(channel.paused, false);
  assert.equal(channel.paused_reason, undefined);
  assert.equal(channel.agent_streak, 0);
  assert.equal(said.data?.joined_as, 'person');
  assert.equal(said.data?.resumed, true);
  assert.deepEqual(said.data?.recipients, ['a', 'b'], 'without --to a person speaks to everyone');
  const member = channel.members.find((m) => m.session_id === PERSON)!;
  assert.equal(member.host, 'person');
  agentSends(state, ctx, 2);
  assert.equal(channel.paused, false, 'two agent messages after the person: under the limit again');
});

test('a person\'s resume lifts the pause without being a member', () => {
  const { ctx, state } = guarded(2);
  agentSends(state, ctx, 2);
  mustOk(personSetPause(state, { ...ACTOR, channel: 'dev', paused: false }, ctx));
  assert.equal(state.channels.dev!.paused, false);
  assert.equal(state.channels.dev!.agent_streak, 0);
});

test('a person\'s say does not pass a pause a member made', () => {
  const { ctx, state } = guarded();
  mustOk(personSetPause(state, { ...ACTOR, channel: 'dev', paused: true }, ctx));
  assert.equal(reasonOf(say(state, ctx, 'hello')), 'paused');
});

test('a person\'s reply to a review request goes to its sender as a review_response and closes it', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(say(state, ctx, 'I am here'));
  const request = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'Please review the diff', type: 'review_request', to: PERSON }, ctx));
  const requestId = (request.data!.message_ids as string[])[0]!;
  assert.equal(state.channels.dev!.open_requests?.length, 1);
  const reply = mustOk(say(state, ctx, 'Looks good', { reply_to: requestId }));
  assert.deepEqual(reply.data?.recipients, ['a']);
  const sent = state.messages[(reply.data!.message_ids as string[])[0]!]!;
  assert.equal(sent.message_type, 'review_response');
  assert.equal(sent.reply_to, requestId);
  assert.equal(state.channels.dev!.open_requests, undefined, 'the request is answered');
});

test('a person\'s read hands over mail of a paused channel, and commits only what the caller commits', () => {
  const { ctx, state } = guarded(2);
  mustOk(say(state, ctx, 'joining'));
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'one', to: PERSON }, ctx));
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'b', content: 'two', to: PERSON }, ctx));
  assert.equal(state.channels.dev!.paused, true);
  const read = mustOk(personRead(state, PERSON, { terminal: TERMINAL, owner: OWNER, isOwnerAlive: () => true }, ctx));
  const ids = read.data!.message_ids as string[];
  assert.equal(ids.length, 2);
  assert.deepEqual((read.data!.messages as { content: string }[]).map((m) => m.content), ['one', 'two']);
  assert.ok(ids.every((id) => state.messages[id]!.delivery_status === 'in_flight'));
  commitDelivery(state, PERSON, ids.slice(0, 1), 'pull', ctx.now(), OWNER);
  assert.equal(state.messages[ids[0]!]!.delivery_status, 'delivered');
  assert.equal(state.messages[ids[1]!]!.delivery_status, 'in_flight');
});

test('a message from a person is framed as the user\'s words from the terminal, unverified', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  const said = mustOk(say(state, ctx, 'hello agents'));
  const framed = frameMessage(state.messages[(said.data!.message_ids as string[])[0]!]!, 'dev', 'abc123');
  assert.match(framed, /^\[OpenComms message from the user at their terminal, as person \(person-ada, unverified\) on channel "dev"/);
  assert.match(framed, /<<<USER_AT_TERMINAL_MESSAGE nonce=abc123>>>\nhello agents\n<<<END_USER_AT_TERMINAL_MESSAGE nonce=abc123>>>/);
  assert.match(framed, /the user's own words, typed at their terminal/);
});

test('person ids: the OS user name reduced to member-id characters, the prefix reserved', () => {
  assert.equal(personMemberId('ada'), 'person-ada');
  assert.equal(personMemberId('Jean Dupont'), 'person-Jean-Dupont');
  assert.equal(personMemberId('DOMAIN\\zoë'), 'person-DOMAIN-zoe');
  assert.equal(personMemberId('...'), 'person-user');
  assert.equal(personMemberId('x'.repeat(200)).length, 64);
  assert.ok(isPersonMemberId('Person-Bob'));
  assert.ok(!isPersonMemberId('sess_person-bob'));
});

test('a state file of an older version (no guard fields) loads, and the guard applies the default', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b'], 'dev', emptyState(), { rate_limit: 1000 });
  const old = JSON.parse(serializeState(state));
  delete old.channels.dev.max_agent_streak;
  delete old.channels.dev.agent_streak;
  const text = JSON.stringify(old);
  const parsed = parseState(text, ctx.now());
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.notes, [], 'absent guard fields are no repair');
  assert.equal(serializeState(parsed.state), text, 'and are not written in');
  agentSends(parsed.state, ctx, 50);
  assert.equal(parsed.state.channels.dev!.paused_reason, 'agent_streak');
});

test('malformed guard fields are dropped with a note; a paused_reason on an open channel goes', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const raw = JSON.parse(serializeState(state));
  Object.assign(raw.channels.dev, { max_agent_streak: -3, agent_streak: 'many', paused_reason: 'agent_streak', paused: false });
  const parsed = parseState(JSON.stringify(raw), ctx.now());
  assert.ok(parsed.ok);
  const channel = parsed.state.channels.dev!;
  assert.equal(channel.max_agent_streak, undefined);
  assert.equal(channel.agent_streak, undefined);
  assert.equal(channel.paused_reason, undefined);
  assert.equal(parsed.notes.length, 3);
});

test('a paused loop-guard channel survives a save and load', () => {
  const { ctx, state } = guarded(2);
  agentSends(state, ctx, 2);
  const parsed = parseState(serializeState(state), ctx.now());
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.notes, []);
  assert.equal(reasonOf(sendMessage(parsed.state, { channel: 'dev', session_id: 'a', content: 'more' }, ctx)), 'agent_streak');
});

test('create clamps max_agent_streak into its range', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  mustOk(createChannel(state, {
    channel: 'big', role: 'lead', role_prompt: 'p', session_id: 'a', project_id: PROJECT, worktree: WORKTREE, max_agent_streak: 1e9,
  }, ctx));
  assert.equal(state.channels.big!.max_agent_streak, 100_000);
});
