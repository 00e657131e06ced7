// Real writer processes racing on one project, released together by a barrier file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OK, tempFilesIn, tempProject, testStore } from './helpers';
import { runStorm } from './storm';
import { onLines } from '../helpers/lines';
import { lockPathOf } from '../helpers/store-paths';

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
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let markAcked!: () => void;
  const firstAck = new Promise<void>((resolve) => (markAcked = resolve));
  onLines(child.stdout!, (line) => {
    if (line === 'ready') markReady();
    else if (line.startsWith('ack ')) {
      acks.add(line.slice(4));
      markAcked();
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
  assert.equal(existsSync(lockPathOf(store)), false);
  assert.deepEqual(tempFilesIn(store.stateDir), []);
});

test('a SIGKILL storm leaves a loadable state holding every acknowledged mutation, none twice, and no stall', { timeout: 120_000 }, async (t) => {
  const dir = tempProject(t);
  const outcome = await runStorm({ dir, stormMs: 3_000, slots: 4, minKills: 20, onCleanup: (fn) => t.after(fn), reporter: t });
  assert.ok(outcome.kills >= 20, `only ${outcome.kills} kills`);
  assert.ok(outcome.acked >= 50, `only ${outcome.acked} acknowledged mutations`);
  assert.deepEqual(outcome.problems, []);
});
