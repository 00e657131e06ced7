// A SIGKILL storm: writer processes mutate one project without pause while
// random ones are killed (often mid-save, often while holding the lock, while
// the others wait for it) and replaced. Used by the suite for a few seconds
// and by `npm run storm` for as long as asked (10 minutes by default).
import { spawn, ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_FS } from '../../src/files/fs-port';
import { LEFTOVER_MIN_AGE_MS, leftoverPidOf, removeLeftovers } from '../../src/local/leftovers';
import { isPidAlive } from '../../src/process/liveness';
import { OK, tempFilesIn, testStore } from './helpers';
import { seededRandom } from '../helpers/seeded-random';
import { onLines } from '../helpers/lines';
import { lockPathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

/** The history records a channel keeps by default (PROTOCOL 4.7). */
const HISTORY_KEEP = 2_000;

const WORKER = join(__dirname, '..', '..', '..', 'test', 'store', 'fixtures', 'worker.cjs');

export interface StormOptions {
  dir: string;
  stormMs: number;
  slots: number;
  minKills: number;
  /** Registers cleanup (t.after in a test). */
  onCleanup?: (fn: () => void) => void;
  /** Writers keep every history record (no retention), so every acknowledged record is checked there. */
  keepAllHistory?: boolean;
  /** Called now and then with progress, for long runs. */
  onProgress?: (kills: number, acked: number) => void;
  /** Where the storm's seed is reported (a test's t); stderr when absent. */
  reporter?: { diagnostic(message: string): void };
}

export interface StormOutcome {
  kills: number;
  acked: number;
  /** Every broken promise found, in words; empty when the storm left everything right. */
  problems: string[];
}

interface Writer {
  child: ChildProcess;
  ready: Promise<void>;
  firstAck: Promise<void>;
  exited: Promise<unknown>;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function startWriter(dir: string, barrier: string, tag: string, acks: Set<string>, stderr: string[], keepAllHistory: boolean): Writer {
  const env = keepAllHistory ? { ...process.env, OC_TEST_HISTORY_KEEP_ALL: '1' } : process.env;
  const child = spawn(process.execPath, [WORKER, dir, barrier, '1000000000', tag, 'history'], { stdio: ['ignore', 'pipe', 'pipe'], env });
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
  return { child, ready, firstAck, exited: once(child, 'exit') };
}

export async function runStorm(options: StormOptions): Promise<StormOutcome> {
  const { dir, slots: SLOTS } = options;
  const random = seededRandom('store storm', options.reporter);
  const barrier = join(dir, 'go');
  const acks = new Set<string>();
  const stderr: string[] = [];
  let generation = 0;
  const start = (slot: number) => startWriter(dir, barrier, `s${slot}g${generation++}`, acks, stderr, options.keepAllHistory === true);
  const slots = Array.from({ length: SLOTS }, (_, i) => start(i));
  options.onCleanup?.(() => slots.forEach((w) => w.child.kill('SIGKILL')));
  await withTimeout(Promise.all(slots.map((w) => w.ready)), 20_000, 'writers ready');
  writeFileSync(barrier, '');
  const stopAt = Date.now() + options.stormMs;
  let kills = 0;
  let lastReport = Date.now();
  while (Date.now() < stopAt || kills < options.minKills) {
    const slot = Math.floor(random() * SLOTS);
    // Kill a writer only once it is under way (a slow machine starts them
    // slowly), then at a random moment, most likely in the middle of a write.
    await withTimeout(slots[slot].firstAck, 20_000, `a restarted writer acknowledges a mutation: ${stderr.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, random() * 40));
    slots[slot].child.kill('SIGKILL');
    await withTimeout(slots[slot].exited, 10_000, 'killed writer exit');
    kills++;
    slots[slot] = start(slot);
    if (options.onProgress && Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      options.onProgress(kills, acks.size);
    }
  }
  for (const w of slots) w.child.kill('SIGKILL');
  await withTimeout(Promise.all(slots.map((w) => w.exited)), 10_000, 'final exits');

  const problems: string[] = [];
  const store = testStore(dir);
  // Every lock a killed writer left names its dead holder: the next change breaks it at once.
  await withTimeout(edit(store, () => OK), 1_000, 'a change after the storm (a stall: a lock nobody could break)');
  const state = store.snapshot();
  if (state.errors.some((e) => /state file rejected/.test(e.message))) problems.push('state.json no longer parses');
  const labels = state.errors.map((e) => e.message);
  const unique = new Set(labels);
  if (unique.size !== labels.length) problems.push(`${labels.length - unique.size} mutation(s) applied twice`);
  const historyIds = store.history.list('chn_storm').map((r) => r.message_id);
  if (new Set(historyIds).size !== historyIds.length) problems.push('a history record listed twice');
  const inHistory = new Set(historyIds);
  let lost = 0;
  let unlogged = 0;
  for (const label of acks) {
    const [tag, i] = label.split('-');
    if (!unique.has(label)) lost++;
    if (!inHistory.has(`ocm_${tag}_${i}`)) unlogged++;
  }
  if (lost > 0) problems.push(`${lost} acknowledged mutation(s) lost from state.json`);
  // History keeps a channel's newest HISTORY_KEEP records by design; a storm
  // longer than that checks every record only when its writers keep all.
  if (unlogged > 0 && (options.keepAllHistory || acks.size <= HISTORY_KEEP)) problems.push(`${unlogged} acknowledged record(s) missing from history`);
  if (Object.keys(state.messages).length > 0) problems.push('finished envelopes left in state.json');
  if (existsSync(lockPathOf(store))) problems.push('the lock was not released');
  // A writer's temp files go when its lock is broken; one killed outside the
  // lock (or a breaker killed mid-break) leaves files naming a dead pid, which
  // the next sweep of leftovers takes.
  const historyDir = join(store.stateDir, 'history');
  for (const name of [...tempFilesIn(store.stateDir), ...tempFilesIn(historyDir)]) {
    const pid = leftoverPidOf(name);
    if (pid === undefined || isPidAlive(pid)) problems.push(`${name} does not name a dead writer`);
  }
  removeLeftovers({ port: NODE_FS, stateDir: store.stateDir, isPidAlive, now: Date.now() + LEFTOVER_MIN_AGE_MS });
  const left = [...tempFilesIn(store.stateDir), ...tempFilesIn(historyDir)];
  if (left.length > 0) problems.push(`leftovers the sweep did not take: ${left.join(', ')}`);
  return { kills, acked: acks.size, problems };
}
