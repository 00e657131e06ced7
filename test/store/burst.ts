// A burst of writers: many sender processes, each sending a few messages to
// one member at the same moment, through the real store and codec with the
// default lock timeout, on the file store or on a Redis project. Used by the
// suite (a small burst), by the bench (send times and throughput against the
// number of writers) and by `npm run storm` (64 writers x 10 sends, and
// 32 writers on Redis with 8 of them killed).
import { spawn, ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createChannel, joinChannel } from '../../src/engine';
import type { ToolResult } from '../../src/engine/types';
import { MAX_MEMBERS_CEILING } from '../../src/engine/constants';
import { openStore } from '../../src/store';
import type { Store, StoreSelection } from '../../src/store';
import { onLines } from '../helpers/lines';
import { edit } from '../helpers/edit';

const WORKER = join(__dirname, '..', '..', '..', 'test', 'store', 'fixtures', 'burst-worker.cjs');
const RECEIVER = 'inbox';

export interface BurstOptions {
  dir: string;
  writers: number;
  sendsEach: number;
  /** Registers cleanup (t.after in a test). */
  onCleanup?: (fn: () => void) => void;
  /** SIGKILLs this many writers (chosen by `random`, each at most once) at random moments within `withinMs` of "go". */
  kills?: { count: number; withinMs: number; random: () => number };
  /** Runs once the writers were told to go (a Redis restart mid-burst); the burst ends when it and every writer are done. */
  midBurst?: () => Promise<void>;
  /** A Redis project instead of the file store in `dir`: the writers get it through `env` (OPENCOMMS_STORE and the rest). */
  redis?: { selection: StoreSelection; env: Record<string, string> };
}

export interface BurstOutcome {
  acked: number;
  /** Sends answered with a failure (lock_timeout or a refusal), by code. */
  refused: Record<string, number>;
  /** Acknowledged sends missing from the state. */
  lost: number;
  /** Messages found more than once in the state. */
  duplicated: number;
  /** Each acknowledged send's own time, in ms. */
  sendMs: number[];
  /** From "go" to the last answer, in ms. */
  wallMs: number;
  /** Whatever the writers printed on stderr. */
  stderr: string;
  /** Writers that died of a SIGKILL before they finished. */
  killed: number;
}

// `what` is worked out when the time is up, so it can name what the writers printed by then.
function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what()}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function expectOk(result: ToolResult): void {
  if (!result.ok) throw new Error(`burst setup refused: ${result.message}`);
}

/** A channel "burst" with the receiver and as many sender members as a channel holds. */
async function setUpChannel(store: Store, dir: string): Promise<string[]> {
  const base = { channel: 'burst', role_prompt: 'p', delivery_mode: 'pull', project_id: 'burst-project', worktree: dir } as const;
  await edit(store, (s, ctx) => {
    const created = createChannel(s, { ...base, role: 'receiver', session_id: RECEIVER, rate_limit: 1_000, max_agent_streak: 0, max_members: MAX_MEMBERS_CEILING }, ctx);
    expectOk(created);
    return created;
  });
  const senders = Array.from({ length: MAX_MEMBERS_CEILING - 1 }, (_, i) => `sender${i}`);
  await edit(store, (s, ctx) => {
    for (const [i, member] of senders.entries()) expectOk(joinChannel(s, { ...base, role: `s${i}`, session_id: member }, ctx));
    return { ok: true, message: 'joined' };
  });
  return senders;
}

interface Writer {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<unknown>;
}

function startWriter(dir: string, count: number, tag: string, member: string, lines: string[], stderr: string[], env: NodeJS.ProcessEnv, onAnswer: () => void): Writer {
  const child = spawn(process.execPath, [WORKER, dir, String(count), tag, member, RECEIVER], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  onLines(child.stdout!, (line) => {
    if (line === 'ready') markReady();
    else {
      lines.push(line);
      onAnswer();
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  child.stdin!.on('error', () => undefined);
  return { child, ready, exited: once(child, 'exit') };
}

/** Runs one burst on a fresh project folder `dir` and checks the state it leaves. */
export async function runBurst(options: BurstOptions): Promise<BurstOutcome> {
  const { dir, writers, sendsEach } = options;
  const store = openStore({ projectDir: dir, selection: options.redis?.selection });
  const senders = await setUpChannel(store, dir);
  const lines: string[] = [];
  const stderr: string[] = [];
  const env = { ...process.env, OPENCOMMS_STORE: 'file', ...options.redis?.env };
  // The burst ends at the last answer a writer prints, not when the writers have exited: 48
  // processes ending on 2 cores take about 100 ms, which is no part of any send.
  let lastAnswerAt: bigint | undefined;
  const all = Array.from({ length: writers }, (_, i) => startWriter(dir, sendsEach, `w${i}`, senders[i % senders.length]!, lines, stderr, env, () => {
    lastAnswerAt = process.hrtime.bigint();
  }));
  options.onCleanup?.(() => all.forEach((w) => w.child.kill('SIGKILL')));
  await withTimeout(Promise.all(all.map((w) => w.ready)), 60_000 + writers * 1_000, () => `writers ready: ${stderr.join('')}`);
  const started = process.hrtime.bigint();
  for (const w of all) w.child.stdin!.write('go\n');
  const alive = [...all];
  const timers = Array.from({ length: Math.min(options.kills?.count ?? 0, all.length) }, () => {
    const { random, withinMs } = options.kills!;
    const [victim] = alive.splice(Math.floor(random() * alive.length), 1);
    return setTimeout(() => victim!.child.kill('SIGKILL'), random() * withinMs);
  });
  await withTimeout(Promise.all([...all.map((w) => w.exited), options.midBurst?.()]), 60_000 + writers * sendsEach * 1_000, () => `writers done: ${stderr.join('')}`);
  const wallMs = Number((lastAnswerAt ?? process.hrtime.bigint()) - started) / 1e6;
  timers.forEach(clearTimeout);

  const acked = new Set<string>();
  const refused: Record<string, number> = {};
  const sendMs: number[] = [];
  for (const line of lines) {
    const [verb, label, a, b] = line.split(' ');
    if (verb === 'ack') {
      acked.add(label!);
      sendMs.push(Number(a));
    } else if (verb === 'fail') {
      refused[a!] = (refused[a!] ?? 0) + 1;
    }
  }
  const seen = new Map<string, number>();
  const state = await store.readLatest((s) => s);
  await store.close();
  for (const envelope of Object.values(state.messages)) seen.set(envelope.content, (seen.get(envelope.content) ?? 0) + 1);
  let lost = 0;
  for (const label of acked) if (!seen.has(label)) lost++;
  let duplicated = 0;
  for (const n of seen.values()) if (n > 1) duplicated += n - 1;
  const killed = all.filter((w) => w.child.signalCode === 'SIGKILL').length;
  return { acked: acked.size, refused, lost, duplicated, sendMs, wallMs, stderr: stderr.join(''), killed };
}

/** The q-quantile (0..1) of `values`, nearest rank; NaN for none. */
export function quantileOf(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))]!;
}
