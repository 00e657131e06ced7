import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joinChannel, sendMessage, type State } from '../../src/engine/index';
import { startMailWatch } from '../../src/watch/index';
import { mustOk, PROJECT, pullDelivered, WORKTREE } from '../engine/helpers';
import { handWatcher, world, type World } from './support';

function watching(w: World, memberId: string) {
  const lines: string[] = [];
  const logs: string[] = [];
  const watcher = handWatcher();
  let read = (): State => structuredClone(w.state);
  const watch = startMailWatch({
    stateDir: '/unused', memberId, snapshot: () => read(), write: (text) => lines.push(text), log: (l) => logs.push(l), watch: () => watcher,
  });
  return {
    lines, logs, watcher, watch,
    failReads: (err: Error) => (read = () => { throw err; }),
    healReads: () => (read = () => structuredClone(w.state)),
  };
}

function send(w: World, from: string, content: string): void {
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: from, content }, w.ctx));
}

test('mail waiting at start gives one line at once, naming sender, channel, count and the pull tool', () => {
  const w = world(['a', 'b']);
  send(w, 'a', 'one');
  send(w, 'a', 'two');
  const { lines } = watching(w, 'b');
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^2 OpenComms messages wait for you: from R0 on channel dev\. Call opencomms_pull/);
  assert.ok(lines[0]!.endsWith('\n'));
  assert.equal(lines[0]!.indexOf('\n'), lines[0]!.length - 1);
});

test('a change that brings no new mail prints nothing, and new mail prints one more line', () => {
  const w = world(['a', 'b']);
  const { lines, watcher } = watching(w, 'b');
  assert.equal(lines.length, 0);
  send(w, 'a', 'first');
  watcher.fire();
  watcher.fire();
  assert.equal(lines.length, 1);
  send(w, 'a', 'second');
  watcher.fire();
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /2 OpenComms messages wait for you \(1 new\)/);
});

test('the member\'s own sends print nothing', () => {
  const w = world(['a', 'b']);
  const { lines, watcher } = watching(w, 'b');
  send(w, 'b', 'from me');
  watcher.fire();
  assert.deepEqual(lines, []);
});

test('mail pulled before the change is seen is never announced', () => {
  const w = world(['a', 'b']);
  const { lines, watcher } = watching(w, 'b');
  send(w, 'a', 'quick');
  mustOk(pullDelivered(w.state, 'b', {}, w.ctx));
  watcher.fire();
  assert.deepEqual(lines, []);
});

test('the line never carries the content', () => {
  const w = world(['a', 'b']);
  const { lines, watcher } = watching(w, 'b');
  send(w, 'a', 'SECRET-4711 with\nnewlines');
  watcher.fire();
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.includes('SECRET-4711'), false);
});

test('a member in no channel yet prints nothing until mail comes', () => {
  const w = world(['a']);
  const { lines, watcher } = watching(w, 'late');
  watcher.fire();
  mustOk(joinChannel(w.state, { channel: 'dev', role: 'late', role_prompt: 'x', session_id: 'late', project_id: PROJECT, worktree: WORKTREE }, w.ctx));
  watcher.fire();
  assert.deepEqual(lines, []);
  send(w, 'a', 'welcome');
  watcher.fire();
  assert.equal(lines.length, 1);
});

test('a read fault is logged once, not printed, and the next good read still announces', () => {
  const w = world(['a', 'b']);
  const probe = watching(w, 'b');
  probe.failReads(new Error('EACCES'));
  probe.watcher.fire();
  probe.watcher.fire();
  assert.equal(probe.logs.length, 1);
  assert.deepEqual(probe.lines, []);
  send(w, 'a', 'after the fault');
  probe.healReads();
  probe.watcher.fire();
  assert.equal(probe.lines.length, 1);
});

test('close stops the watcher and any later change', () => {
  const w = world(['a', 'b']);
  const { lines, watcher, watch } = watching(w, 'b');
  watch.close();
  assert.equal(watcher.isClosed, true);
  send(w, 'a', 'late');
  watcher.fire();
  assert.deepEqual(lines, []);
});
