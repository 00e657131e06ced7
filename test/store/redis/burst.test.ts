// A burst of writer processes on one Redis project: the line they join after
// a conflict (src/store/redis/turns.ts) serves them in turn, so no change is
// run more than twice (its optimistic attempt, then once on its turn), none is
// lost or applied twice, and every writer finishes. Real redis-server, real
// processes, the ACL PROTOCOL.md asks operators to grant (the line needs
// PUBLISH and SUBSCRIBE for its bells). Speed belongs in bench/redis.mjs; the bound on runs is
// what tells a fair line from optimistic retries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createRedisStore } from '../../../src/store/redis/redis-store';
import { TEST_CODEC } from '../test-codec';
import { configFor, MINIMAL_PROJECT, SKIP_WITHOUT_REDIS, startRedis, USERS } from './server';
import { onLines } from '../../helpers/lines';

const skip = SKIP_WITHOUT_REDIS;
const WORKER = join(__dirname, '..', '..', '..', '..', 'test', 'store', 'redis', 'fixtures', 'burst-writer.cjs');
const WRITERS = 16;
const CHANGES = 5;
// Generous: a slow CI machine must not see a live holder's lease run out between its heartbeats.
const LEASE_MS = 10_000;
const LOCK_TIMEOUT_MS = 60_000;

interface Writer {
  child: ChildProcess;
  ready: Promise<void>;
  /** Per change: [runs, ms]. */
  done: [number, number][];
  stderr: string[];
}

function startWriter(config: string, tag: string): Writer {
  const child = spawn(process.execPath, [WORKER, config, tag, String(CHANGES), String(LOCK_TIMEOUT_MS), String(LEASE_MS)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const done: [number, number][] = [];
  const stderr: string[] = [];
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  onLines(child.stdout!, (text) => {
    const line = text.split(' ');
    if (line[0] === 'ready') markReady();
    else if (line[0] === 'done') done.push([Number(line[2]), Number(line[3])]);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  return { child, ready, done, stderr };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

test(`a burst of ${WRITERS} writers on Redis is served fairly: every change applied once, none lost, none twice, none run more than twice, no writer starved`, { skip, timeout: 180_000 }, async (t) => {
  const server = await startRedis(t);
  const config = configFor(server.port, MINIMAL_PROJECT, USERS.minimal);
  const writers = Array.from({ length: WRITERS }, (_, w) => startWriter(JSON.stringify(config), `w${w}`));
  t.after(() => writers.forEach((w) => w.child.kill('SIGKILL')));
  await withTimeout(Promise.all(writers.map((w) => w.ready)), 60_000, 'every writer connected');
  for (const w of writers) w.child.stdin!.write('go\n');
  const exits = await withTimeout(Promise.all(writers.map((w) => once(w.child, 'exit'))), 150_000, 'every writer finished');
  exits.forEach(([code], i) => assert.equal(code, 0, `writer w${i} failed: ${writers[i]!.stderr.join('')}`));

  const reader = createRedisStore({ config, codec: TEST_CODEC, projectDir: __dirname });
  t.after(() => reader.close());
  const errors = await reader.readLatest((s) => s.errors);
  assert.equal(errors.length, WRITERS * CHANGES, 'every change applied exactly once');
  for (let w = 0; w < WRITERS; w++) {
    assert.deepEqual(errors.filter((e) => e.message === `w${w}`).map((e) => e.at), Array.from({ length: CHANGES }, (_, n) => n), `w${w}: each change once, in order`);
  }
  const runs = writers.flatMap((w) => w.done.map(([r]) => r));
  const waits = writers.flatMap((w) => w.done.map(([, ms]) => ms));
  t.diagnostic(`runs per change: max ${Math.max(...runs)}, total ${runs.reduce((a, b) => a + b, 0)} for ${runs.length}; longest change ${Math.max(...waits)} ms`);
  assert.equal(runs.length, WRITERS * CHANGES, 'every writer finished every change');
  // Optimistic retries let one writer lose again and again; in line, a change runs at most twice.
  assert.ok(Math.max(...runs) <= 2, `a change ran ${Math.max(...runs)} times`);
  // Bounded wait, generously: well under the lock timeout, however slow the machine.
  assert.ok(Math.max(...waits) < LOCK_TIMEOUT_MS / 2, `a change waited ${Math.max(...waits)} ms`);
});
