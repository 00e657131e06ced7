// The board in the person's live view: its counts and tasks on the screen,
// a task event when a task changes state, and --notify run for a question
// asked of the person. Never a task's text in an event or a notifier's
// arguments (titles are peer-written); on the screen, made harmless.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addTask, askTask, claimTask, emptyState, recordPresence, type EngineCtx, type State } from '../../src/engine/index';
import { diffViews, renderScreen, takeView, type WatchView } from '../../src/watch/index';
import { notificationsFor } from '../../src/cli/watch-notify';
import { fakeCtx } from '../engine/helpers';

const history = { find: () => undefined, list: () => [] };

function boardState(ctx: EngineCtx): State {
  const state = emptyState();
  recordPresence(state, 'sess_a', { pid: process.pid, machine: 'm', start: null, kind: 'server' }, ctx.now(), 10_000);
  addTask(state, 'person-ada', { title: 'Port the cache \u001b[2J\u202e', project_dir: '/p' }, ctx);
  addTask(state, 'person-ada', { title: 'Write docs', after: ['t1'], project_dir: '/p' }, ctx);
  addTask(state, 'person-ada', { title: 'Pick a name', project_dir: '/p' }, ctx);
  claimTask(state, 'sess_a', 't3', ctx);
  return state;
}

test('the screen shows the board under the channels: counts, then each task with its state and claimer, its title made harmless', () => {
  const ctx = fakeCtx(Date.now());
  const view = takeView(boardState(ctx), history);
  const screen = renderScreen({ project: '/p', view, recentEvents: [], at: Date.now(), columns: 200, rows: 40 });
  assert.match(screen, /task board: 1 ready, 1 claimed, 0 asked, 1 blocked/);
  assert.match(screen, /t1 ready p2 Port the cache/);
  assert.match(screen, /t3 claimed by sess_a for 0 min p2 Pick a name/);
  assert.match(screen, /t2 blocked p2 Write docs/);
  assert.equal(screen.slice(7).includes('\u001b[2J'), false);
  assert.equal(screen.includes('\u202e'), false);
});

test('a task asked of the person is an event and runs --notify with its id, never its text', () => {
  const ctx = fakeCtx(Date.now());
  const state = boardState(ctx);
  const before: WatchView = takeView(state, history);
  askTask(state, 'sess_a', 't3', 'Which cache library? SECRET-QUESTION', ctx);
  const events = diffViews(before, takeView(state, history));
  assert.deepEqual(events, [{ event: 'task', task_id: 't3', status: 'asked', channel: null, by: 'sess_a' }]);
  assert.deepEqual(notificationsFor(events, 'person-ada'), [['board', 'sess_a', 'task-asked:t3']]);
  assert.equal(JSON.stringify(events).includes('SECRET'), false);
});

test('the board\'s suggested commands start the way the person runs OpenComms', () => {
  const ctx = fakeCtx(Date.now());
  const state = boardState(ctx);
  askTask(state, 'sess_a', 't3', 'Which one?', ctx);
  const view = takeView(state, history);
  const screen = renderScreen({ project: '/p', view, recentEvents: [], at: Date.now(), columns: 200, rows: 40, command: 'node dist/opencomms.js' });
  assert.match(screen, /blocked \(node dist\/opencomms\.js task\)/);
  assert.match(screen, /\[asks you: node dist\/opencomms\.js task show \/ answer\]/);
  assert.doesNotMatch(screen, /(?<![./\w])opencomms (task|read)\b/);
});
