// The board's history on Redis: a task whose retention passed leaves the
// state and enters the stream oc:{<id>}:board-history in the same commit
// script (never trimmed), and `migrate` carries it both ways.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as engine from '../../../src/engine/index';
import { TASK_RETENTION_MS } from '../../../src/engine/task-types';
import { randomHex } from '../../../src/process/crypto';
import type { Store } from '../../../src/store/contract';
import { DEFAULT_CODEC } from '../../../src/store/default-codec';
import { openStore } from '../../../src/store/index';
import { readFileProject, writeFileProject } from '../../../src/store/copy/project-copy';
import { RedisClient } from '../../../src/store/redis/client';
import { keyPrefixOf } from '../../../src/store/redis/config';
import { keysOf } from '../../../src/store/redis/keys';
import { compareRedisProject, readRedisProject, writeRedisProject } from '../../../src/store/copy/redis-side';
import { createRedisStore, type RedisStoreOptions } from '../../../src/store/redis/redis-store';
import { createStore } from '../../../src/store/file/store';
import { OK } from '../helpers';
import { configFor, SKIP_WITHOUT_REDIS, startRedis, USERS, type RedisServer } from './server';
import { edit } from '../../helpers/edit';

const skip = SKIP_WITHOUT_REDIS;
const PERSON = 'person-ada';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'oc-redis-board-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function rawClient(t: TestContext, server: RedisServer): RedisClient {
  const raw = new RedisClient({ host: '127.0.0.1', port: server.port, isTls: false, username: USERS.agent.name, password: USERS.agent.password, db: 0, timeoutMs: 2_000 });
  t.after(() => raw.close());
  return raw;
}

const text = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v));

async function streamTasks(raw: RedisClient, key: string): Promise<engine.Task[]> {
  const entries = (await raw.command(['XRANGE', key, '-', '+'])) as [Buffer, Buffer[]][];
  return entries.map(([, fields]) => JSON.parse(text(fields[1])) as engine.Task);
}

/** Adds `count` tasks and closes them all (done, cancelled alternately) at the clock's time. */
async function closedTasks(store: Store, count: number): Promise<void> {
  await edit(store, (s, ctx) => {
    for (let i = 0; i < count; i++) {
      const id = (engine.addTask(s, 'a', { title: `task ${i}`, project_dir: store.projectDir }, ctx).data!.task as { id: string }).id;
      if (i % 2 === 0) engine.finishTask(s, PERSON, id, `result ${i}`, ctx);
      else engine.cancelTask(s, PERSON, id, null, ctx);
    }
    return OK;
  });
}

async function redisRig(t: TestContext): Promise<{ server: RedisServer; raw: RedisClient; projectId: string; clock: { at: number }; open(options?: Partial<RedisStoreOptions>): ReturnType<typeof createRedisStore> }> {
  const server = await startRedis(t);
  const projectId = `p-${randomHex(4)}`;
  const dir = tempDir(t);
  const clock = { at: 1_000_000 };
  return {
    server, projectId, clock, raw: rawClient(t, server),
    open: (options = {}) => {
      const store = createRedisStore({ config: configFor(server.port, projectId), codec: DEFAULT_CODEC, projectDir: dir, now: () => clock.at, ...options });
      t.after(() => store.close());
      return store;
    },
  };
}

test('a task past its retention leaves the Redis state and enters board-history in one commit, whole, never trimmed', { skip }, async (t) => {
  const { raw, projectId, clock, open } = await redisRig(t);
  const store = open({ historyKeep: 1 });
  await closedTasks(store, 3);
  clock.at += TASK_RETENTION_MS - 1;
  await edit(store, (s) => {
    s.errors.push({ at: 0, message: 'touch' });
    return OK;
  });
  assert.equal(Object.keys(await store.readLatest((s) => s.board!.tasks)).length, 3, 'not a millisecond early');
  clock.at += 1;
  await edit(store, () => OK);
  const key = `${keyPrefixOf(projectId)}board-history`;
  assert.equal(keysOf(keyPrefixOf(projectId)).board, key);
  const other = open();
  assert.deepEqual(await other.readLatest((s) => Object.keys(s.board!.tasks)), []);
  const moved = await streamTasks(raw, key);
  assert.deepEqual(moved.map((m) => [m.id, m.status]), [['t1', 'done'], ['t2', 'cancelled'], ['t3', 'done']], 'all three kept though historyKeep is 1');
  assert.deepEqual(moved[0]!.log.map((e) => e.what), ['added', 'done']);
  assert.equal((await other.boardHistory.find('t3'))?.result, 'result 2');
  assert.equal(await other.boardHistory.find('t9'), undefined);
  assert.equal(await other.readLatest((s) => engine.listTasks(s, undefined, { view: 'all' }, clock.at).data!.retired), 3);
});

test('a retirement that meets a rival commit runs again: the task is in the state or in board-history, never both, never neither', { skip }, async (t) => {
  const { raw, projectId, clock, open } = await redisRig(t);
  const rival = open();
  let rivalRuns = 0;
  const store = open({
    beforeCommit: async () => {
      if (rivalRuns++ > 0) return;
      await edit(rival, (s) => {
        s.errors.push({ at: 0, message: 'rival' });
        return OK;
      });
    },
  });
  await closedTasks(rival, 1);
  clock.at += TASK_RETENTION_MS;
  await edit(store, (s) => {
    s.errors.push({ at: 1, message: 'mine' });
    return OK;
  });
  const moved = await streamTasks(raw, `${keyPrefixOf(projectId)}board-history`);
  assert.deepEqual(moved.map((m) => m.id), ['t1']);
  assert.equal(await store.readLatest((s) => s.board!.tasks.t1), undefined);
});

test('migrate carries the board history from files to Redis and back, and task show finds a retired task on either', { skip }, async (t) => {
  const server = await startRedis(t);
  const source = tempDir(t);
  const clock = { at: 1_000_000 };
  const files = createStore({ projectDir: source, codec: DEFAULT_CODEC, now: () => clock.at });
  await closedTasks(files, 2);
  clock.at += TASK_RETENTION_MS;
  await edit(files, () => OK);
  const boardFile = join(source, '.opencomms', 'history', 'board.jsonl');
  assert.equal(readFileSync(boardFile, 'utf8').split('\n').filter(Boolean).length, 2);
  const copy = (await readFileProject({ projectDir: source, codec: DEFAULT_CODEC }))!;
  assert.equal(copy.board.length, 2);
  const keys = keysOf(keyPrefixOf('acme'));
  const client = new RedisClient({ host: '127.0.0.1', port: server.port, isTls: false, username: USERS.agent.name, password: USERS.agent.password, db: 0, timeoutMs: 5_000 });
  t.after(() => client.close());
  const version = await writeRedisProject(client, keys, copy);
  assert.deepEqual(await compareRedisProject(client, keys, copy, version), []);
  assert.deepEqual((await streamTasks(client, keys.board)).map((m) => m.id), ['t1', 't2']);
  const onRedis = openStore({ projectDir: tempDir(t), selection: { kind: 'redis', config: configFor(server.port, 'acme') } });
  t.after(() => onRedis.close());
  assert.equal((await onRedis.boardHistory.find('t2'))?.status, 'cancelled');
  const back = (await readRedisProject(client, keys, DEFAULT_CODEC))!;
  assert.deepEqual(back.board, copy.board);
  const home = tempDir(t);
  assert.deepEqual(await writeFileProject({ projectDir: home, codec: DEFAULT_CODEC }, back), []);
  assert.equal(readFileSync(join(home, '.opencomms', 'history', 'board.jsonl'), 'utf8'), readFileSync(boardFile, 'utf8'));
  assert.equal((await openStore({ projectDir: home }).boardHistory.find('t1'))?.result, 'result 0');
});
