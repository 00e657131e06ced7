// Fakes for the OpenCode side (client, watcher, scheduler, schema builder)
// and a temp project whose store runs on a clock the test moves.
import type { TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as engine from '../../src/engine';
import { openStore, type Store } from '../../src/store';
import type { StateWatcher } from '../../src/local/state-dir-watch';
import {
  memberOptionsFor, sessionRefOf, startOpenComms, type HostSession, type OpenCommsInstance, type SchemaKit, type SchemaNode,
} from '../../src/opencode';
import { edit } from '../helpers/edit';

export const HOST = 'test-host';
export const PROJECT_ID = 'proj_test';

export function tempProject(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-opencode-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export class Clock {
  constructor(public t = 1_700_000_000_000) {}
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

type SessionAnswer = { parentID?: string } | 'throw' | 'sdk_error';

/** Records every call; prompts fail on demand, by throwing or by the SDK's `{error}` answer. */
export class FakeClient {
  prompts: Array<{ id: string; text: string }> = [];
  failNext = 0;
  failWith: 'throw' | 'sdk_error' = 'throw';
  sessions = new Map<string, SessionAnswer>();
  gets: string[] = [];
  /** When set, prompts wait for this before answering. */
  gate: Promise<void> | undefined;
  /** Called as each prompt arrives, before it waits for the gate. */
  onPrompt: (() => void) | undefined;

  session = {
    get: async ({ path }: { path: { id: string } }): Promise<{ data?: HostSession; error?: unknown }> => {
      this.gets.push(path.id);
      const answer = this.sessions.get(path.id) ?? {};
      if (answer === 'throw') throw new Error('connection refused');
      if (answer === 'sdk_error') return { error: { name: 'NotFoundError' } };
      return { data: { id: path.id, ...answer } };
    },
    prompt: async ({ path, body }: { path: { id: string }; body: { parts: Array<{ type: 'text'; text: string }> } }): Promise<unknown> => {
      this.prompts.push({ id: path.id, text: body.parts.map((p) => p.text).join('') });
      this.onPrompt?.();
      if (this.gate) await this.gate;
      if (this.failNext > 0) {
        this.failNext -= 1;
        if (this.failWith === 'throw') throw new Error('prompt rejected');
        return { error: { name: 'BadRequest' } };
      }
      return { data: { info: { id: 'msg_1' } } };
    },
  };
}

export class FakeWatcher implements StateWatcher {
  private listeners = new Set<() => void>();
  closed = false;
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  close(): void {
    this.closed = true;
    this.listeners.clear();
  }
  fire(): void {
    for (const l of [...this.listeners]) l();
  }
}

/** A scheduler the test runs by hand. */
export class FakeSchedule {
  timers: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  schedule = (fn: () => void, ms: number): (() => void) => {
    const timer = { fn, ms, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };
  pending(): Array<{ fn: () => void; ms: number; cancelled: boolean }> {
    return this.timers.filter((x) => !x.cancelled);
  }
  runAll(): number {
    const due = this.pending();
    this.timers = [];
    for (const timer of due) timer.fn();
    return due.length;
  }
}

// Accepts every refinement and checks nothing: the argument checks under
// test are execute's own, and real zod is tested with the real package.
const node: SchemaNode & { min(): any; max(): any; int(): any } = {
  describe: () => node, optional: () => node, min: () => node, max: () => node, int: () => node,
};
export const FAKE_SCHEMA: SchemaKit = { string: () => node, number: () => node, boolean: () => node, enum: () => node, array: () => node };

export interface Harness {
  dir: string;
  store: Store;
  clock: Clock;
  client: FakeClient;
  watcher: FakeWatcher;
  timers: FakeSchedule;
  plugin: OpenCommsInstance;
  logs: string[];
}

export async function startHarness(t: TestContext, options: {
  setup?: (h: Omit<Harness, 'plugin'>) => Promise<void>;
  isOwnerAlive?: (owner: engine.DeliveryOwner) => boolean;
} = {}): Promise<Harness> {
  const dir = tempProject(t);
  const clock = new Clock();
  const store = openStore({ projectDir: dir, now: clock.now });
  const client = new FakeClient();
  const watcher = new FakeWatcher();
  const timers = new FakeSchedule();
  const logs: string[] = [];
  const base = { dir, store, clock, client, watcher, timers, logs };
  if (options.setup) await options.setup(base);
  const plugin = await startOpenComms({ client, project: { id: PROJECT_ID }, directory: dir, worktree: dir }, {
    store,
    watch: () => watcher,
    loadSchema: async () => FAKE_SCHEMA,
    schedule: timers.schedule,
    pid: process.pid,
    host: HOST,
    isOwnerAlive: options.isOwnerAlive ?? (() => true),
    now: clock.now,
    log: (line) => logs.push(line),
  });
  t.after(() => plugin.hooks.dispose());
  return { ...base, plugin };
}

function expectOk(result: engine.ToolResult): engine.ToolResult {
  if (!result.ok) throw new Error(`setup refused: ${result.message}`);
  return result;
}

/**
 * A channel with an MCP member `alice` (pull) and the given OpenCode sessions
 * as push members, each speaking as the member its session is linked to, as
 * the plugin links them. With `oldPlugin`, the sessions are members the way
 * the old plugin made them: named after the session, with no link.
 */
export async function channelWith(store: Store, dir: string, sessions: string[], channel = 'review', options: { oldPlugin?: boolean } = {}): Promise<string> {
  const existing = store.snapshot().channels[channel];
  const created = existing ? undefined : await edit(store, (state, ctx) => expectOk(engine.createChannel(state, {
    channel, role: 'lead', role_prompt: 'Coordinate.', session_id: 'alice', project_id: PROJECT_ID, worktree: dir,
    host: 'claude-code', surface: 'mcp', delivery_mode: 'pull',
  }, ctx)));
  for (const [i, sessionId] of sessions.entries()) {
    await edit(store, (state, ctx) => {
      const memberId = options.oldPlugin ? sessionId : engine.linkSession(state, [sessionRefOf(sessionId)], [], ctx)!.memberId;
      return expectOk(engine.joinChannel(state, {
        channel, role: `reviewer${i === 0 ? '' : i}`, role_prompt: 'Review every diff carefully.', project_id: PROJECT_ID, worktree: dir,
        session_id: memberId, ...memberOptionsFor(sessionId),
      }, ctx));
    });
  }
  return existing?.id ?? (created!.data!.channel_id as string);
}

/** The member an OpenCode session is linked to; fails the test when it has none. */
export function memberOf(store: Store, sessionId: string): string {
  const memberId = engine.findLinkedMember(store.snapshot(), [sessionRefOf(sessionId)]);
  if (memberId === undefined) throw new Error(`session ${sessionId} is linked to no member`);
  return memberId;
}

/** Alice sends `content` to one recipient; returns the message id. */
export async function send(store: Store, to: string, content: string, channel = 'review'): Promise<string> {
  const sent = await edit(store, (state, ctx) => expectOk(engine.sendMessage(state, { channel, session_id: 'alice', content, to }, ctx)));
  return (sent.data!.message_ids as string[])[0]!;
}

/** An envelope wherever it lives now: live in state.json, or finished in history. */
export function envelopeOf(store: Store, channelId: string, messageId: string): engine.Envelope | undefined {
  return store.snapshot().messages[messageId] ?? store.history.find(channelId, messageId);
}
