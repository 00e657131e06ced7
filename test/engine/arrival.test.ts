// engine/arrival: what a sender is told per recipient, the record of a host
// door's ring, and each message's path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  arrivalFor, clearRung, commitPull, firstAnswers, markRung, messagePath, recordPresence, sendMessage, drainQueue, type Member, type State,
} from '../../src/engine';
import { channelWith, fakeCtx, mustOk, OWNER } from './helpers';

const ALIVE = () => true;

function setUp(host: string) {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const member = state.channels.dev!.members.find((m) => m.session_id === 'b')!;
  member.host = host;
  return { ctx, state, member };
}

function present(state: State, memberId: string, now: number, door?: 'inbox' | 'codex_queue'): void {
  recordPresence(state, memberId, { pid: 1, machine: 'm', start: null, kind: 'server', ...(door ? { door } : {}) }, now, 60_000);
}

test('a present Claude Code recipient: busy → next tool call; idle with an inbox → inbox; idle without → next prompt', () => {
  const { ctx, state, member } = setUp('claude-code');
  present(state, 'b', ctx.now(), 'inbox');
  assert.equal(arrivalFor(state, member, ctx.now(), ALIVE, 'busy').how, 'next_tool_call');
  const idle = arrivalFor(state, member, ctx.now(), ALIVE, 'idle');
  assert.equal(idle.how, 'inbox');
  assert.match(idle.text, /^R1 \(b\): idle now — its own server writes a notice into the Claude Code inbox/);
  assert.equal(arrivalFor(state, member, ctx.now(), ALIVE, undefined).how, 'inbox');
  present(state, 'b', ctx.now() + 120_000);
  assert.equal(arrivalFor(state, member, ctx.now(), ALIVE, 'idle').how, 'next_prompt');
  assert.equal(arrivalFor(state, member, ctx.now(), ALIVE, undefined).how, 'next_call');
});

test('away, ended, spawn-push, OpenCode and hosts without hooks', () => {
  const { ctx, state, member } = setUp('codex');
  member.stale = true;
  member.stale_at = ctx.now() - 1000;
  const away = arrivalFor(state, member, ctx.now(), ALIVE, 'idle');
  assert.equal(away.how, 'on_resume');
  assert.match(away.text, /when its session resumes \(away since/);
  present(state, 'b', ctx.now(), 'codex_queue');
  assert.equal(arrivalFor(state, member, ctx.now(), ALIVE, 'ended').how, 'on_resume');
  assert.equal(arrivalFor(state, member, ctx.now(), ALIVE, 'idle').how, 'codex_queue');
  assert.equal(arrivalFor(state, { ...member, delivery_mode: 'spawn_push' } as Member, ctx.now(), ALIVE, 'idle').how, 'spawn');
  assert.equal(arrivalFor(state, { ...member, host: 'opencode' } as Member, ctx.now(), ALIVE, undefined).how, 'plugin');
  assert.equal(arrivalFor(state, { ...member, host: 'opencode' } as Member, ctx.now(), ALIVE, 'busy').how, 'plugin');
  assert.equal(arrivalFor(state, { ...member, host: 'gemini-cli' } as Member, ctx.now(), ALIVE, 'idle').how, 'next_prompt');
  assert.equal(arrivalFor(state, { ...member, host: 'mcp' } as Member, ctx.now(), ALIVE, 'idle').how, 'pull');
});

test('a ring is marked on pending mail only, taken back by its own time, and a pull after it is delivered via the door', () => {
  const { ctx, state } = setUp('claude-code');
  const sent = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'x' }, ctx));
  const id = (sent.data!.message_ids as string[])[0]!;
  assert.deepEqual(markRung(state, 'b', [id, 'nope'], 'inbox', 5), [id]);
  assert.deepEqual(markRung(state, 'a', [id], 'inbox', 6), []);
  clearRung(state, [id], 4);
  assert.equal(state.messages[id]!.rung_via, 'inbox');
  assert.deepEqual(messagePath(state.messages[id]!).map((s) => [s.step, s.via]), [['queued', undefined], ['rung', 'inbox']]);
  clearRung(state, [id], 5);
  assert.equal(state.messages[id]!.rung_via, undefined);
  markRung(state, 'b', [id], 'codex_queue', 7);
  drainQueue(state, 'b', { owner: OWNER, now: ctx.now(), ignoreCooldown: true });
  assert.deepEqual(messagePath(state.messages[id]!).map((s) => s.step), ['queued', 'rung', 'in_flight']);
  commitPull(state, 'b', [id], new Set(), ctx.now(), OWNER);
  const done = state.messages[id]!;
  assert.equal(done.delivered_via, 'codex_queue');
  const reply = { ...done, message_id: 'm2', sender_session_id: 'b', recipient_session_id: 'a', reply_to: id, timestamp: done.timestamp + 5 };
  const answers = firstAnswers([done, reply, { ...reply, message_id: 'm3', timestamp: reply.timestamp + 1 }]);
  assert.deepEqual(messagePath(done, answers.get(id)).map((s) => [s.step, s.via ?? s.by]), [['queued', undefined], ['rung', 'codex_queue'], ['delivered', 'codex_queue'], ['answered', 'm2']]);
  assert.deepEqual(messagePath({ ...done, delivery_status: 'stale' }).map((s) => s.step), ['queued', 'rung', 'stale']);
});

test('a pull of unrung mail is delivered via the doorbell when announced, else via the pull', () => {
  const { ctx, state } = setUp('claude-code');
  const ids = ['one', 'two'].map((c) => (mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: c }, ctx)).data!.message_ids as string[])[0]!);
  ctx.advance(1);
  drainQueue(state, 'b', { owner: OWNER, now: ctx.now(), ignoreCooldown: true });
  commitPull(state, 'b', ids, new Set([ids[0]!]), ctx.now(), OWNER);
  assert.deepEqual(ids.map((id) => state.messages[id]!.delivered_via), ['doorbell', 'pull']);
});
