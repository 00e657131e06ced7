// Real writer processes racing on one project, released together by a barrier file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_FS } from '../../src/store/fs-port';
import { LEFTOVER_MIN_AGE_MS, leftoverPidOf, removeLeftovers } from '../../src/store/leftovers';
import { isPidAlive, LOCK_STALE_MS, parseLockOwner } from '../../src/store/lock';
import { OK, tempFilesIn, tempProject, testStore } from './helpers';

const WORKER = join(__dirname, '..', '..', '..', 'test', 'store', 'fixtures', 'worker.cjs');

interface Worker {
  child: ChildProcess;
  tag: string;
  ready: Promise<void>;
  /** Resolves at this worker's first acknowledged mutation. */
  firstAck: Promise<void>;
  exited: Promise<number | null>;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function startWorker(dir: string, barrier: string, count: number, tag: string, mode: string, acks: Set<string>, stderr: string[]): Worker {
  const child = spawn(process.execPath, [WORKER, dir, barrier, String(count), tag, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let buffered = '';
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let markAcked!: () => void;
  const firstAck = new Promise<void>((resolve) => (markAcked = resolve));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line === 'ready') markReady();
      else if (line.startsWith('ack ')) {
        acks.add(line.slice(4));
        markAcked();
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, tag, ready, firstAck, exited };
}

test('6 processes x 100 mutations apply exactly 600 updates and leave a clean directory', { timeout: 120_000 }, async (t) => {
  const dir = tempProject(t);
  const barrier = join(dir, 'go');
  const acks = new Set<string>();
  const stderr: string[] = [];
  const workers = Array.from({ length: 6 }, (_, i) => startWorker(dir, barrier, 100, `w${i}`, 'count', acks, stderr));
  t.after(() => workers.forEach((w) => w.child.kill('SIGKILL')));
  await withTimeout(Promise.all(workers.map((w) => w.ready)), 20_000, 'workers ready');
  writeFileSync(barrier, '');
  const codes = await withTimeout(Promise.all(workers.map((w) => w.exited)), 100_000, 'workers done');
  assert.deepEqual(codes, [0, 0, 0, 0, 0, 0], stderr.join(''));
  const store = testStore(dir);
  const labels = store.snapshot().errors.map((e) => e.message);
  assert.equal(labels.length, 600);
  assert.equal(new Set(labels).size, 600);
  for (let w = 0; w < 6; w++) {
    const mine = labels.filter((l) => l.startsWith(`w${w}-`)).map((l) => Number(l.split('-')[1]));
    assert.deepEqual(mine, Array.from({ length: 100 }, (_, i) => i), `worker ${w} in order`);
  }
  assert.equal(acks.size, 600);
  assert.equal(existsSync(store.lockPath), false);
  assert.deepEqual(tempFilesIn(store.stateDir), []);
});

test('a SIGKILL storm leaves a loadable state holding every acknowledged mutation', { timeout: 120_000 }, async (t) => {
  const dir = tempProject(t);
  const barrier = join(dir, 'go');
  const acks = new Set<string>();
  const stderr: string[] = [];
  const SLOTS = 4;
  const STORM_MS = 3_000;
  let generation = 0;
  const start = (slot: number) => startWorker(dir, barrier, 1_000_000, `s${slot}g${generation++}`, 'history', acks, stderr);
  const slots = Array.from({ length: SLOTS }, (_, i) => start(i));
  t.after(() => slots.forEach((w) => w.child.kill('SIGKILL')));
  await withTimeout(Promise.all(slots.map((w) => w.ready)), 20_000, 'workers ready');
  writeFileSync(barrier, '');
  const stopAt = Date.now() + STORM_MS;
  let kills = 0;
  const MIN_KILLS = 20;
  while (Date.now() < stopAt || kills < MIN_KILLS) {
    const slot = Math.floor(Math.random() * SLOTS);
    // Kill a writer only once it is under way (a slow machine starts workers
    // slowly), then at a random moment, most likely in the middle of a write.
    await withTimeout(slots[slot].firstAck, 20_000, 'a restarted worker acknowledges a mutation');
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
    slots[slot].child.kill('SIGKILL');
    await withTimeout(slots[slot].exited, 10_000, 'killed worker exit');
    kills++;
    slots[slot] = start(slot);
  }
  for (const w of slots) w.child.kill('SIGKILL');
  await withTimeout(Promise.all(slots.map((w) => w.exited)), 10_000, 'final exits');
  assert.ok(kills >= MIN_KILLS, `only ${kills} kills`);
  assert.ok(acks.size >= 50, `only ${acks.size} acknowledged mutations: ${stderr.join('')}`);

  const store = testStore(dir);
  // A dead holder's stamped lock is broken at once. One killed between its
  // O_EXCL create and its stamp left an empty lock that names no pid: only
  // its age can free it (LOCK_STALE_MS), as PROTOCOL 4.5 says.
  const leftLock = existsSync(store.lockPath) ? readFileSync(store.lockPath) : undefined;
  const isUnstamped = leftLock !== undefined && parseLockOwner(leftLock) === undefined;
  const deadline = Date.now() + (isUnstamped ? LOCK_STALE_MS + 5_000 : 1_000);
  for (;;) {
    try {
      await withTimeout(store.mutate(() => OK), Math.max(1, deadline - Date.now()), 'a mutate after the storm (breaks a dead holder\'s lock)');
      break;
    } catch (err) {
      // a lock_timeout (5 s) can come before an unstamped lock is old enough to break
      if (!isUnstamped || (err as { code?: string }).code !== 'lock_timeout' || Date.now() >= deadline) throw err;
    }
  }
  const state = store.snapshot();
  assert.ok(!state.errors.some((e) => /state file rejected/.test(e.message)), 'state.json still parses');
  const labels = new Set(state.errors.map((e) => e.message));
  const historyIds = new Set(store.history.list('chn_storm').map((r) => r.message_id));
  for (const label of acks) {
    assert.ok(labels.has(label), `acknowledged ${label} is in state`);
    const [tag, i] = label.split('-');
    assert.ok(historyIds.has(`ocm_${tag}_${i}`), `acknowledged ${label} is in history`);
  }
  assert.equal(labels.size, state.errors.length, 'no mutation was applied twice');
  assert.deepEqual(Object.keys(state.messages), [], 'every finished envelope left state.json');
  assert.equal(existsSync(store.lockPath), false);
  // A save's temp file goes when its writer's lock is broken. A breaker that
  // is itself killed mid-break (after moving the dead lock aside, before
  // deleting it or the dead writer's temp) leaves those behind: each names a
  // dead pid and goes with the next sweep of leftovers.
  const historyDir = join(store.stateDir, 'history');
  for (const name of [...tempFilesIn(store.stateDir), ...tempFilesIn(historyDir)]) {
    assert.equal(isPidAlive(leftoverPidOf(name) ?? process.pid), false, name);
  }
  removeLeftovers({ port: NODE_FS, stateDir: store.stateDir, isPidAlive, now: Date.now() + LEFTOVER_MIN_AGE_MS });
  assert.deepEqual(tempFilesIn(store.stateDir), []);
  assert.deepEqual(tempFilesIn(historyDir), []);
});
