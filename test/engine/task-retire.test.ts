// Done and cancelled tasks leave the board for its history once the
// retention (7 days) has passed since they closed; time injected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addTask, cancelTask, claimTask, emptyState, finishTask, isReady, listTasks, takeRetiredTasks, findTask,
  type State,
} from '../../src/engine/index';
import { TASK_RETENTION_MS } from '../../src/engine/task-types';
import { fakeCtx, mustOk, reasonOf, type FakeCtx } from './helpers';

const ROOT = '/work/repo';
const PERSON = 'person-ada';

function add(state: State, ctx: FakeCtx, title: string, after: string[] = []): string {
  return (mustOk(addTask(state, 'a', { title, after, project_dir: ROOT }, ctx)).data!.task as { id: string }).id;
}

function done(state: State, ctx: FakeCtx, id: string): void {
  mustOk(claimTask(state, 'worker', id, ctx));
  mustOk(finishTask(state, 'worker', id, 'shipped', ctx));
}

test('a done task stays on the board 7 days minus 1 ms after it closed and leaves, whole with its log, at 7 days', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const id = add(state, ctx, 'port the cache');
  done(state, ctx, id);
  const closedAt = findTask(state, id)!.closed_at!;
  assert.deepEqual(takeRetiredTasks(state, closedAt + TASK_RETENTION_MS - 1), []);
  assert.ok(findTask(state, id));
  const left = takeRetiredTasks(state, closedAt + TASK_RETENTION_MS);
  assert.deepEqual(left.map((t) => [t.id, t.status, t.result]), [[id, 'done', 'shipped']]);
  assert.deepEqual(left[0]!.log.map((e) => e.what), ['added', 'claimed', 'done']);
  assert.equal(findTask(state, id), undefined);
});

test('a cancelled task nobody waits on leaves at 7 days after it closed, not a millisecond sooner', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const id = add(state, ctx, 'drop the old cache');
  mustOk(cancelTask(state, PERSON, id, 'not needed', ctx));
  const closedAt = findTask(state, id)!.closed_at!;
  assert.deepEqual(takeRetiredTasks(state, closedAt + TASK_RETENTION_MS - 1), []);
  assert.deepEqual(takeRetiredTasks(state, closedAt + TASK_RETENTION_MS).map((t) => [t.id, t.status]), [[id, 'cancelled']]);
});

test('open tasks stay on the board however old they are', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const open = add(state, ctx, 'open');
  const claimed = add(state, ctx, 'claimed');
  mustOk(claimTask(state, 'worker', claimed, ctx));
  assert.deepEqual(takeRetiredTasks(state, ctx.now() + 10 * TASK_RETENTION_MS), []);
  assert.ok(findTask(state, open) && findTask(state, claimed));
});

test('a cancelled task stays while an open task waits on it, which stays blocked and says so; both leave once that one closes', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const first = add(state, ctx, 'first');
  const second = add(state, ctx, 'second', [first]);
  mustOk(cancelTask(state, PERSON, first, null, ctx));
  ctx.advance(TASK_RETENTION_MS * 3);
  assert.deepEqual(takeRetiredTasks(state, ctx.now()), []);
  assert.equal(isReady(state, findTask(state, second)!), false);
  const shown = mustOk(listTasks(state, 'a', { id: second }, ctx.now())).data!.task as { blocked_by?: unknown };
  assert.deepEqual(shown.blocked_by, [{ id: first, status: 'cancelled' }]);
  assert.equal(reasonOf(claimTask(state, 'worker', second, ctx)), 'not_ready');
  mustOk(cancelTask(state, PERSON, second, null, ctx));
  assert.deepEqual(takeRetiredTasks(state, ctx.now()).map((t) => t.id), [first]);
  assert.deepEqual(takeRetiredTasks(state, ctx.now() + TASK_RETENTION_MS).map((t) => t.id), [second]);
});

test('a retired done task no longer blocks the tasks that waited on it', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const first = add(state, ctx, 'first');
  const second = add(state, ctx, 'second', [first]);
  done(state, ctx, first);
  assert.deepEqual(takeRetiredTasks(state, ctx.now() + TASK_RETENTION_MS).map((t) => t.id), [first]);
  assert.equal(isReady(state, findTask(state, second)!), true);
});

test('list view all counts the tasks that left; a retired id is unknown_task saying it left, and ids are never reused', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  const first = add(state, ctx, 'first');
  add(state, ctx, 'second');
  done(state, ctx, first);
  ctx.advance(TASK_RETENTION_MS);
  takeRetiredTasks(state, ctx.now());
  const all = mustOk(listTasks(state, 'a', { view: 'all' }, ctx.now()));
  assert.equal(all.data!.retired, 1);
  assert.equal((all.data!.tasks as unknown[]).length, 1);
  const shown = listTasks(state, 'a', { id: first }, ctx.now());
  assert.equal(reasonOf(shown), 'unknown_task');
  assert.equal(shown.data!.retired, true);
  assert.equal(listTasks(state, 'a', { id: 't9' }, ctx.now()).data!.retired, undefined);
  assert.equal(add(state, ctx, 'third'), 't3');
});
