// A burst of writers: many sender processes, each sending a few messages to
// one member at the same moment, through the real store and codec with the
// default lock timeout. Used by the suite (a small burst), by the bench
// (send times and throughput against the number of writers) and by
// `npm run storm -- --burst` (64 writers x 10 sends).
import { spawn, ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createChannel, joinChannel } from '../../src/engine';
import type { ToolResult } from '../../src/engine/types';
import { MAX_MEMBERS_CEILING } from '../../src/engine/constants';
import { openStore } from '../../src/store';
import { onLines } from '../helpers/lines';

const WORKER = join(__dirname, '..', '..', '..', 'test', 'store', 'fixtures', 'burst-worker.cjs');
const RECEIVER = 'inbox';

export interface BurstOptions {
  dir: string;
  writers: number;
  sendsEach: number;
  /** Registers cleanup (t.after in a test). */
  onCleanup?: (fn: () => void) => void;
  /** SIGKILLs this many writers (chosen by `random`, maybe one twice) at random moments within `withinMs` of "go". */
  kills?: { count: number; withinMs: number; random: () => number };
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
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function expectOk(result: ToolResult): void {
  if (!result.ok) throw new Error(`burst setup refused: ${result.message}`);
}

/** A channel "burst" with the receiver and as many sender members as a channel holds. */
async function setUpChannel(dir: string): Promise<string[]> {
  const store = openStore({ projectDir: dir });
  const base = { channel: 'burst', role_prompt: 'p', delivery_mode: 'pull', project_id: 'burst-project', worktree: dir } as const;
  await store.mutate((s, ctx) => {
    const created = createChannel(s, { ...base, role: 'receiver', session_id: RECEIVER, rate_limit: 1_000, max_agent_streak: 0, max_members: MAX_MEMBERS_CEILING }, ctx);
    expectOk(created);
    return created;
  });
  const senders = Array.from({ length: MAX_MEMBERS_CEILING - 1 }, (_, i) => `sender${i}`);
  await store.mutate((s, ctx) => {
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

function startWriter(dir: string, count: number, tag: string, member: string, lines: string[], stderr: string[]): Writer {
  const child = spawn(process.execPath, [WORKER, dir, String(count), tag, member, RECEIVER], { stdio: ['pipe', 'pipe', 'pipe'] });
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  onLines(child.stdout!, (line) => {
    if (line === 'ready') markReady();
    else lines.push(line);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  child.stdin!.on('error', () => undefined);
  return { child, ready, exited: once(child, 'exit') };
}

/** Runs one burst on a fresh project folder `dir` and checks the state it leaves. */
export async function runBurst(options: BurstOptions): Promise<BurstOutcome> {
  const { dir, writers, sendsEach } = options;
  const senders = await setUpChannel(dir);
  const lines: string[] = [];
  const stderr: string[] = [];
  const all = Array.from({ length: writers }, (_, i) => startWriter(dir, sendsEach, `w${i}`, senders[i % senders.length]!, lines, stderr));
  options.onCleanup?.(() => all.forEach((w) => w.child.kill('SIGKILL')));
  await withTimeout(Promise.all(all.map((w) => w.ready)), 60_000 + writers * 1_000, 'writers ready');
  const started = process.hrtime.bigint();
  for (const w of all) w.child.stdin!.write('go\n');
  const timers = Array.from({ length: options.kills?.count ?? 0 }, () => {
    const { random, withinMs } = options.kills!;
    const victim = all[Math.floor(random() * all.length)]!;
    return setTimeout(() => victim.child.kill('SIGKILL'), random() * withinMs);
  });
  await withTimeout(Promise.all(all.map((w) => w.exited)), 60_000 + writers * sendsEach * 1_000, `writers done: ${stderr.join('')}`);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
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
  const state = openStore({ projectDir: dir }).snapshot();
  for (const envelope of Object.values(state.messages)) seen.set(envelope.content, (seen.get(envelope.content) ?? 0) + 1);
  let lost = 0;
  for (const label of acked) if (!seen.has(label)) lost++;
  let duplicated = 0;
  for (const n of seen.values()) if (n > 1) duplicated += n - 1;
  return { acked: acked.size, refused, lost, duplicated, sendMs, wallMs, stderr: stderr.join('') };
}

/** The q-quantile (0..1) of `values`, nearest rank; NaN for none. */
export function quantileOf(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))]!;
}
