// Tasks that left the board, through the shipped file: the first change after
// a done task's retention moves it to history/board.jsonl; the tool's view
// all and `task list --all` count it, `task show` reads it from there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempProject, type Json } from '../helpers/server';
import { editState, member, ok, refused } from './tools-support';

const EIGHT_DAYS_MS = 8 * 24 * 3600_000;

test('a task done 8 days ago leaves the board at the next change; view all and task list --all count it, task show reads it from history', { timeout: 60_000 }, async (t) => {
  const project = tempProject(t);
  const worker = await member(t, project, 'sess_worker');
  await ok(worker, 'opencomms_task', { action: 'add', title: 'port the cache' });
  await ok(worker, 'opencomms_task', { action: 'claim', id: 't1' });
  await ok(worker, 'opencomms_task', { action: 'done', id: 't1', result: 'shipped in v2' });
  editState(project, (state) => {
    state.board.tasks.t1.closed_at -= EIGHT_DAYS_MS;
  });
  await ok(worker, 'opencomms_task', { action: 'add', title: 'next thing' });
  const log = readFileSync(join(project, '.opencomms', 'history', 'board.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
  assert.deepEqual(log.map((task) => [task.id, task.result]), [['t1', 'shipped in v2']]);
  const all = await ok(worker, 'opencomms_task', { action: 'list', view: 'all' });
  assert.equal(all.data.retired, 1);
  assert.deepEqual(all.data.tasks.map((task: Json) => task.id), ['t2']);
  const gone = await refused(worker, 'opencomms_task', { action: 'list', id: 't1' }, 'unknown_task');
  assert.equal(gone.data.retired, true);

  const listed = await runCli(['task', 'list', '--all', '--project', project]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /1 left the board for its history/);
  const listedJson = await runCli(['task', 'list', '--all', '--json', '--project', project]);
  assert.equal(JSON.parse(listedJson.stdout).retired, 1);
  const shown = await runCli(['task', 'show', 't1', '--json', '--project', project]);
  assert.equal(shown.code, 0, shown.stderr);
  const task = JSON.parse(shown.stdout).task as Json;
  assert.deepEqual([task.id, task.status, task.result], ['t1', 'done', 'shipped in v2']);
  assert.deepEqual(task.log.map((e: Json) => e.what), ['added', 'claimed', 'done']);
  const text = await runCli(['task', 'show', 't1', '--project', project]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /t1 left the board for its history \(closed [^)]+\): .*board\.jsonl/);
  const unknown = await runCli(['task', 'show', 't9', '--project', project]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /reason: unknown_task/);
  // history/board.jsonl is one of doctor's own files: neither a stray entry nor too wide.
  const report = await runCli(['doctor', '--project', project]);
  assert.match(report.stdout, /ok {3}entries: /);
  assert.match(report.stdout, /ok {3}modes: /);
});
