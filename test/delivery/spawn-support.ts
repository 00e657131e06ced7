// Shared set-up for the spawn driver unit tests: a real store in a temp dir
// on a hand-moved clock, a fake child process, and timers fired by hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { processHostTag } from '../../src/process/place';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import {
  createChannel, joinChannel, sendMessage, type Envelope, type HistoryRecord, type State, type ToolResult,
} from '../../src/engine/index';
import { openStore, type Store } from '../../src/store/index';
import { createSpawnDriver, type SpawnDriver, type SpawnDriverOptions } from '../../src/delivery/spawn-driver';
import type { SpawnOutcome, SpawnRequest } from '../../src/delivery/spawn-process';
import { edit } from '../helpers/edit';

export const HOST = processHostTag();
export const START = 1_700_000_000_000;

export interface Clock { t: number }

export class FakeSpawn {
  readonly calls: SpawnRequest[] = [];
  /** Outcomes to give, in order; exit 0 once they run out. */
  readonly outcomes: SpawnOutcome[] = [];
  private held: (() => void)[] = [];
  isHolding = false;

  readonly fn = (request: SpawnRequest): Promise<SpawnOutcome> => {
    this.calls.push(request);
    const outcome = this.outcomes.shift() ?? { code: 0, signal: null, timedOut: false };
    if (!this.isHolding) return Promise.resolve(outcome);
    return new Promise((resolve) => this.held.push(() => resolve(outcome)));
  };

  /** Lets every held child end. */
  release(): void {
    this.isHolding = false;
    const held = this.held;
    this.held = [];
    for (const end of held) end();
  }

  /** The framed batch of call `n`: always the last argument. */
  batch(n: number): string {
    const args = this.calls[n]!.args;
    return args[args.length - 1]!;
  }
}

export class FakeTimers {
  readonly pending: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  readonly schedule = (fn: () => void, ms: number): (() => void) => {
    const entry = { fn, ms, cancelled: false };
    this.pending.push(entry);
    return () => { entry.cancelled = true; };
  };

  live(): { fn: () => void; ms: number; cancelled: boolean }[] {
    return this.pending.filter((e) => !e.cancelled);
  }

  /** Runs every live timer once (they are removed first, as real timers are). */
  fireAll(): void {
    const due = this.live();
    this.pending.length = 0;
    for (const entry of due) entry.fn();
  }
}

export interface Setup {
  project: string;
  store: Store;
  clock: Clock;
  spawn: FakeSpawn;
  timers: FakeTimers;
  alive: Set<number>;
  driver(overrides?: Partial<SpawnDriverOptions>): SpawnDriver;
  send(content: string, to?: string, from?: string): Promise<string>;
  state(): State;
  finished(id: string): HistoryRecord | undefined;
  channelId: string;
}

function must(result: ToolResult): ToolResult {
  if (!result.ok) throw new Error(`refused: ${result.message}`);
  return result;
}

/**
 * A project with channel "review": alice (pull, host mcp) created it, bob
 * joined as spawn_push on `host` with `hostSessionId`.
 */
export async function setup(
  t: TestContext,
  options: { host?: string; hostSessionId?: string | null; machine?: string } = {},
): Promise<Setup> {
  const project = mkdtempSync(join(tmpdir(), 'oc-spawn-'));
  t.after(() => rmSync(project, { recursive: true, force: true }));
  const clock: Clock = { t: START };
  const store = openStore({ projectDir: project, now: () => clock.t });
  const spawn = new FakeSpawn();
  const timers = new FakeTimers();
  const alive = new Set<number>([1001, 1002]);
  const common = { project_id: 'p', worktree: project, surface: 'mcp' as const };
  await edit(store, (state, ctx) => must(createChannel(state, {
    channel: 'review', role: 'author', role_prompt: 'Write.', session_id: 'alice', host: 'mcp', delivery_mode: 'pull', ...common,
  }, ctx)));
  await edit(store, (state, ctx) => must(joinChannel(state, {
    channel: 'review', role: 'reviewer', role_prompt: 'Review.', session_id: 'bob', host: options.host ?? 'claude-code',
    delivery_mode: 'spawn_push', host_session_id: options.hostSessionId === undefined ? 'hs-bob-1' : options.hostSessionId,
    ...(options.machine === undefined ? {} : { machine: options.machine }),
    stale_policy: { mode: 'window', window_ms: 300_000 }, ...common,
  }, ctx)));
  const channelId = store.snapshot().channels.review!.id;
  const drivers: SpawnDriver[] = [];
  t.after(() => { for (const d of drivers) d.close(); });
  return {
    project, store, clock, spawn, timers, alive, channelId,
    driver(overrides = {}) {
      const driver = createSpawnDriver({
        store, projectDir: project, env: { OPENCOMMS_MEMBER_ID: 'alice' }, log: () => undefined,
        now: () => clock.t, spawnFn: spawn.fn, schedule: timers.schedule, pid: 1001, host: HOST,
        isPidAlive: (pid) => alive.has(pid), platform: 'linux', ...overrides,
      });
      drivers.push(driver);
      return driver;
    },
    async send(content, to = 'bob', from = 'alice') {
      clock.t += 1;
      const result = await edit(store, (state, ctx) => must(sendMessage(state, { channel: 'review', session_id: from, content, to }, ctx)));
      return (result.data!.message_ids as string[])[0]!;
    },
    state: () => store.snapshot(),
    finished: (id) => store.history.find(channelId, id),
  };
}

export function envelope(state: State, id: string): Envelope | undefined {
  return Object.prototype.hasOwnProperty.call(state.messages, id) ? state.messages[id] : undefined;
}
