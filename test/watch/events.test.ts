import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  commitDelivery, createChannel, disconnectChannel, drainQueue, kickChannel, markStale, clearStale, pauseChannel, resumeChannel, sendMessage,
} from '../../src/engine/index';
import { diffViews, emptyView, plainLine, type WatchEvent } from '../../src/watch/index';
import { mustOk, PROJECT, pullDelivered, WORKTREE } from '../engine/helpers';
import { world } from './support';

function names(events: WatchEvent[]): string[] {
  return events.map((e) => e.event);
}

test('a first channel gives created, then a joined per member', () => {
  const w = world(['a', 'b']);
  const events = diffViews(emptyView(), w.look());
  assert.deepEqual(names(events), ['created', 'joined', 'joined']);
  assert.deepEqual(events.slice(1).map((e) => 'member_id' in e && e.member_id), ['a', 'b']);
});

test('a join to an existing channel gives one joined with role, host and delivery mode', () => {
  const w = world(['a']);
  const before = w.look();
  mustOk(createChannel(w.state, { channel: 'ops', role: 'lead', role_prompt: 'x', session_id: 'a', project_id: PROJECT, worktree: WORKTREE }, w.ctx));
  const events = diffViews(before, w.look());
  assert.deepEqual(names(events), ['created', 'joined']);
  assert.equal(events[0]!.event === 'created' && events[0]!.channel, 'ops');
});

test('a send gives one sent event per recipient, without the content', () => {
  const w = world(['a', 'b', 'c']);
  const before = w.look();
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: 'SECRET-CONTENT', broadcast: true }, w.ctx));
  const events = diffViews(before, w.look());
  assert.deepEqual(names(events), ['sent', 'sent']);
  assert.deepEqual(events.map((e) => e.event === 'sent' && [e.from_id, e.to_id]), [['a', 'b'], ['a', 'c']]);
  assert.equal(JSON.stringify(events).includes('SECRET-CONTENT'), false);
});

test('mail that leaves state.json for history on a pull gives delivered, by pull', () => {
  const w = world(['a', 'b']);
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: 'hi' }, w.ctx));
  const before = w.look();
  mustOk(pullDelivered(w.state, 'b', {}, w.ctx));
  const after = w.look();
  assert.equal(Object.keys(w.state.messages).length, 0);
  const events = diffViews(before, after);
  assert.deepEqual(names(events), ['delivered']);
  assert.equal(events[0]!.event === 'delivered' && events[0]!.delivery_method, 'pull');
});

test('mail sent and delivered between two views gives sent, then delivered', () => {
  const w = world(['a', 'b']);
  const before = w.look();
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: 'hi' }, w.ctx));
  mustOk(pullDelivered(w.state, 'b', {}, w.ctx));
  assert.deepEqual(names(diffViews(before, w.look())), ['sent', 'delivered']);
});

test('pause and resume each give one event', () => {
  const w = world(['a', 'b']);
  const start = w.look();
  mustOk(pauseChannel(w.state, { channel: 'dev', session_id: 'a' }, w.ctx));
  const paused = w.look();
  mustOk(resumeChannel(w.state, { channel: 'dev', session_id: 'b' }, w.ctx));
  assert.deepEqual(names(diffViews(start, paused)), ['paused']);
  assert.deepEqual(names(diffViews(paused, w.look())), ['resumed']);
});

test('a kick gives kicked (and the notice mail), a disconnect gives left and rejects the leaver\'s mail', () => {
  const w = world(['a', 'b', 'c']);
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: 'hi', to: 'b' }, w.ctx));
  const before = w.look();
  mustOk(kickChannel(w.state, { channel: 'dev', session_id: 'a', target_session_id: 'b' }, w.ctx));
  const kicked = diffViews(before, w.look());
  assert.deepEqual(names(kicked).filter((n) => n !== 'sent'), ['rejected', 'kicked']);
  const target = kicked.find((e) => e.event === 'kicked');
  assert.equal(target?.event === 'kicked' && target.member_id, 'b');
  const mid = w.look();
  mustOk(disconnectChannel(w.state, { channel: 'dev', session_id: 'c' }, w.ctx));
  const left = diffViews(mid, w.look());
  assert.deepEqual(names(left), ['rejected', 'left']);
  const leaver = left.find((e) => e.event === 'left');
  assert.equal(leaver?.event === 'left' && leaver.member_id, 'c');
});

test('the last member leaving gives removed for the channel', () => {
  const w = world(['a']);
  const before = w.look();
  mustOk(disconnectChannel(w.state, { channel: 'dev', session_id: 'a' }, w.ctx));
  assert.deepEqual(names(diffViews(before, w.look())), ['removed']);
});

test('a member going stale and coming back gives member_stale, then member_active', () => {
  const w = world(['a', 'b']);
  const start = w.look();
  markStale(w.state, 'b', w.ctx.now());
  const stale = w.look();
  clearStale(w.state, 'b');
  assert.deepEqual(names(diffViews(start, stale)), ['member_stale']);
  assert.deepEqual(names(diffViews(stale, w.look())), ['member_active']);
});

test('a new error entry gives one error event; entries already seen give none', () => {
  const w = world(['a']);
  w.state.errors.push({ at: 1, message: 'old' });
  const before = w.look();
  w.state.errors.push({ at: 2, message: 'spawn failed', member_id: 'a' });
  const events = diffViews(before, w.look());
  assert.deepEqual(events, [{ event: 'error', message: 'spawn failed', error_at: 2, channel_id: null, member_id: 'a' }]);
});

test('two identical views give no events', () => {
  const w = world(['a', 'b']);
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: 'hi' }, w.ctx));
  assert.deepEqual(diffViews(w.look(), w.look()), []);
});

test('mail a hook delivered shows as delivered by hook, in the event and its plain line, not by pull', () => {
  const w = world(['a', 'b']);
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: 'hi' }, w.ctx));
  const before = w.look();
  const handed = drainQueue(w.state, 'b', { now: w.ctx.now(), owner: { pid: 1, host: 'h', lease_until: w.ctx.now() + 1000 } });
  commitDelivery(w.state, 'b', handed.map((e) => e.message_id), 'pull', w.ctx.now(), undefined, 'hook');
  const events = diffViews(before, w.look());
  assert.deepEqual(names(events), ['delivered']);
  const delivered = events[0]!;
  assert.equal(delivered.event === 'delivered' && delivered.delivered_via, 'hook');
  assert.match(plainLine(delivered, 0), / delivered to \S+ by hook$/);
});

test('mail delivered before the path was recorded shows the path its method implies', () => {
  const w = world(['a', 'b']);
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: 'hi' }, w.ctx));
  const before = w.look();
  const handed = drainQueue(w.state, 'b', { now: w.ctx.now(), owner: { pid: 1, host: 'h', lease_until: w.ctx.now() + 1000 } });
  commitDelivery(w.state, 'b', handed.map((e) => e.message_id), 'spawn_push', w.ctx.now());
  for (const e of handed) delete e.delivered_via;
  const delivered = diffViews(before, w.look())[0]!;
  assert.equal(delivered.event === 'delivered' && delivered.delivered_via, 'spawn');
});
