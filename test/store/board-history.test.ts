// The board's history on the file store: a task whose retention passed leaves
// state.json for history/board.jsonl in the same commit (appended and fsynced
// first), never lost, never read through a link.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as engine from '../../src/engine/index';
import { TASK_RETENTION_MS } from '../../src/engine/task-types';
import type { Store } from '../../src/store/contract';
import { faultyFsByPath, OK, tempProject, testStore } from './helpers';
import { statePathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

const PERSON = 'person-ada';

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');
}

/** A store whose clock the test moves, holding t1 (done at the start) and t2 (open). */
async function boardStore(t: TestContext, options: Parameters<typeof testStore>[1] = {}): Promise<{ store: Store; clock: { at: number }; boardLog: string }> {
  const clock = { at: 1_000_000 };
  const store = testStore(tempProject(t), { now: () => clock.at, ...options });
  await edit(store, (s, ctx) => {
    engine.addTask(s, 'a', { title: 'port the cache', project_dir: store.projectDir }, ctx);
    engine.addTask(s, 'a', { title: 'still open', project_dir: store.projectDir }, ctx);
    return engine.finishTask(s, PERSON, 't1', 'shipped', ctx);
  });
  return { store, clock, boardLog: join(store.stateDir, 'history', 'board.jsonl') };
}

const touch = (store: Store): Promise<unknown> => edit(store, (s) => {
  s.errors.push({ at: 0, message: 'touch' } as never);
  return OK;
});

test('a done task leaves state.json for history/board.jsonl (0600) in the commit after its retention, whole with its log', async (t) => {
  const { store, clock, boardLog } = await boardStore(t);
  clock.at += TASK_RETENTION_MS - 1;
  await touch(store);
  assert.ok(store.snapshot().board!.tasks.t1, 'not a millisecond early');
  assert.equal(existsSync(boardLog), false);
  clock.at += 1;
  await edit(store, () => OK);
  assert.deepEqual(Object.keys(store.snapshot().board!.tasks), ['t2']);
  const [line, ...more] = lines(boardLog);
  assert.deepEqual(more, []);
  const record = JSON.parse(line!) as engine.Task;
  assert.equal(record.id, 't1');
  assert.equal(record.result, 'shipped');
  assert.deepEqual(record.log.map((e) => e.what), ['added', 'done']);
  if (process.platform !== 'win32') assert.equal(statSync(boardLog).mode & 0o777, 0o600);
  assert.equal((await store.boardHistory.find('t1'))?.result, 'shipped');
  assert.equal(await store.boardHistory.find('t2'), undefined);
});

test('a crash between the board history append and the state save only repeats the task; readers keep one', async (t) => {
  const port = faultyFsByPath([]);
  const { store, clock, boardLog } = await boardStore(t, { fs: port });
  clock.at += TASK_RETENTION_MS;
  port.fail({ method: 'renameSync', code: 'EIO', when: (p) => typeof p === 'string' && p.includes('.state.'), times: 1 });
  await assert.rejects(edit(store, () => OK), { code: 'state_unwritable' });
  assert.equal(lines(boardLog).length, 1, 'appended before the save failed');
  assert.ok(store.snapshot().board!.tasks.t1, 'and still in the state: never lost');
  await edit(store, () => OK);
  assert.equal(lines(boardLog).length, 2, 'the retry repeated it');
  assert.equal(store.snapshot().board!.tasks.t1, undefined);
  assert.equal((await testStore(store.projectDir).boardHistory.find('t1'))?.id, 't1');
});

test('a failed board history append keeps the task in the state and state.json untouched', async (t) => {
  const port = faultyFsByPath([]);
  const { store, clock } = await boardStore(t, { fs: port });
  const before = readFileSync(statePathOf(store));
  clock.at += TASK_RETENTION_MS;
  port.fail({ method: 'writeSync', code: 'ENOSPC', when: (p) => typeof p === 'string' && p.endsWith('board.jsonl') });
  await assert.rejects(edit(store, () => OK), { code: 'state_unwritable' });
  assert.deepEqual(readFileSync(statePathOf(store)), before);
});

test('a history/board.jsonl that is a link is refused: nothing written through it, and the task stays on the board', async (t) => {
  const { store, clock, boardLog } = await boardStore(t);
  const outside = join(tempProject(t), 'elsewhere.jsonl');
  writeFileSync(outside, '');
  mkdirSync(join(store.stateDir, 'history'), { recursive: true, mode: 0o700 });
  symlinkSync(outside, boardLog);
  clock.at += TASK_RETENTION_MS;
  await assert.rejects(edit(store, () => OK), { code: 'state_unwritable' });
  assert.equal(readFileSync(outside, 'utf8'), '');
  assert.ok(store.snapshot().board!.tasks.t1);
  await assert.rejects(store.boardHistory.find('t1'), { code: 'state_unwritable' });
});
