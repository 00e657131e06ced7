// Real processes racing for the lock where it used to break: many waiters
// breaking one dead holder's lock at once, and writers in two pid namespaces
// (containers sharing a volume and a hostname).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { OK, tempFilesIn, tempProject, testStore } from './helpers';
import { until } from '../helpers/wait';
import { queueDirOf } from '../../src/store/file/lock';
import { onLines } from '../helpers/lines';
import { edit } from '../helpers/edit';

const RACE_WORKER = join(__dirname, '..', '..', '..', 'test', 'store', 'fixtures', 'race-worker.cjs');

interface RaceWorker {
  child: ChildProcess;
  /** Every line the worker printed, as it came. */
  lines: string[];
  /** Resolves when a line passing `match` has been printed (now or later). */
  until(match: (line: string) => boolean, ms: number, what: string): Promise<void>;
  exited: Promise<unknown>;
}

function startRaceWorker(command: string, args: string[]): RaceWorker {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: { match: (line: string) => boolean; resolve: () => void }[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  onLines(child.stdout!, (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.match(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const exited = once(child, 'exit');
  return {
    child,
    lines,
    exited,
    until(match, ms, what) {
      if (lines.some(match)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}; stderr: ${stderr}`)), ms);
        waiters.push({ match, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

function ticketsIn(queueDir: string): number {
  try {
    return readdirSync(queueDir).length;
  } catch {
    return 0;
  }
}

const isSettled = (label: string) => (line: string) => line === `ack ${label}` || line.startsWith(`fail ${label} `);

test('six waiters breaking a dead holder\'s lock at once, 150 rounds: one holder at a time, every acknowledged change kept once', { timeout: 240_000 }, async (t) => {
  const dir = tempProject(t);
  const stateDir = join(dir, '.opencomms');
  mkdirSync(stateDir);
  const WAITERS = 6;
  const ROUNDS = 150;
  const workers = Array.from({ length: WAITERS }, () => startRaceWorker(process.execPath, [RACE_WORKER, dir]));
  t.after(() => workers.forEach((w) => w.child.kill('SIGKILL')));
  await Promise.all(workers.map((w) => w.until((l) => l === 'ready', 20_000, 'worker ready')));
  const lockPath = join(stateDir, '.state.lock');
  for (let round = 0; round < ROUNDS; round++) {
    // A holder that dies while every waiter is polling it: they all find it
    // dead within one recheck of each other and race to break its lock.
    const holder = spawn('sleep', ['600']);
    const holderExit = once(holder, 'exit');
    await once(holder, 'spawn');
    writeFileSync(lockPath, JSON.stringify({ pid: holder.pid, host: hostname(), t: Date.now(), token: randomBytes(16).toString('hex') }));
    for (let w = 0; w < WAITERS; w++) workers[w].child.stdin!.write(`go r${round}w${w}\n`);
    // every waiter has found the lock taken and queued: they are all waiting now
    await until(`round ${round}: waiters queued`, () => ticketsIn(queueDirOf(lockPath)) === WAITERS, { timeoutMs: 20_000, everyMs: 1 });
    holder.kill('SIGKILL');
    await holderExit;
    await Promise.all(workers.map((w, i) => w.until(isSettled(`r${round}w${i}`), 30_000, `round ${round} worker ${i}`)));
  }
  const all = workers.flatMap((w) => w.lines);
  assert.deepEqual(all.filter((l) => l.startsWith('overlap') || l.startsWith('fail')), [], 'two holders at once, or a change refused');
  const acked = all.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
  assert.equal(acked.length, WAITERS * ROUNDS);
  const saved = testStore(dir).snapshot().errors.map((e) => e.message);
  assert.equal(saved.length, WAITERS * ROUNDS, 'an acknowledged change was lost or applied twice');
  assert.deepEqual([...saved].sort(), [...acked].sort());
  for (const w of workers) w.child.stdin!.end();
  await Promise.all(workers.map((w) => w.exited));
  assert.deepEqual(tempFilesIn(stateDir), []);
});

function canUnsharePid(): boolean {
  if (process.platform !== 'linux') return false;
  const probe = spawnSync('unshare', ['--pid', '--fork', '--kill-child', 'true'], { timeout: 10_000 });
  return probe.status === 0;
}

test('writers in two pid namespaces sharing a folder and a hostname never break each other\'s live lock', { timeout: 120_000 }, async (t) => {
  if (!canUnsharePid()) return t.skip('unshare --pid needs Linux and root (CI runs as root)');
  const dir = tempProject(t);
  const EACH = 150;
  // each writer is pid 1 of its own namespace: equal pids, different processes
  const workers = [0, 1].map(() => startRaceWorker('unshare', ['--pid', '--fork', '--kill-child', process.execPath, RACE_WORKER, dir]));
  t.after(() => workers.forEach((w) => w.child.kill('SIGKILL')));
  await Promise.all(workers.map((w) => w.until((l) => l === 'ready', 20_000, 'worker ready')));
  for (let i = 0; i < EACH; i++) for (let w = 0; w < 2; w++) workers[w].child.stdin!.write(`go n${w}i${i}\n`);
  await Promise.all(workers.map((w, i) => w.until(isSettled(`n${i}i${EACH - 1}`), 90_000, `worker ${i} done`)));
  const all = workers.flatMap((w) => w.lines);
  assert.deepEqual(all.filter((l) => l.startsWith('overlap') || l.startsWith('fail')), [], 'a live lock was broken, or a change refused');
  const acked = all.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
  assert.equal(acked.length, 2 * EACH);
  const store = testStore(dir);
  const saved = store.snapshot().errors.map((e) => e.message);
  assert.deepEqual([...saved].sort(), [...acked].sort(), 'an acknowledged change was lost or applied twice');
  for (const w of workers) w.child.stdin!.end();
  await Promise.all(workers.map((w) => w.exited));
  await edit(store, () => OK);
});
