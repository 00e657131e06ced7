// One OpenComms presence inside one OpenCode instance: it learns which
// sessions live here from OpenCode's events, pushes their mail when they go
// idle or when the state changes, keeps their staleness in step with their
// lifetime, reminds them of their roles, and offers the tools through which
// they create, join and use channels as themselves.
import { hostname } from 'node:os';
import { clearStale, markStale, succeed, sweepInFlight, type DeliveryOwner, type State } from '../engine';
import { openStore, type Store } from '../store';
import { isPidAlive } from '../store/lock';
import { watchStateDir, type StateWatcher } from '../delivery/watcher';
import type { HostEvent, HostPluginInput, HostToolDefinition, SchemaKit } from './host-types';
import { locationOf } from './identity';
import { findProjectDir } from './project-dir';
import { PushDelivery, type Schedule } from './push-delivery';
import { roleSections } from './role-injection';
import { buildTools } from './tools';

export interface OpenCommsPluginDeps {
  /** The project whose .opencomms/ is used; found from the directory when absent. */
  projectDir?: string;
  store?: Store;
  watch?: (stateDir: string, log: (line: string) => void) => StateWatcher;
  /** OpenCode's tool schema builder; without one no tools are offered. */
  loadSchema?: () => Promise<SchemaKit | undefined>;
  pid?: number;
  host?: string;
  isOwnerAlive?: (owner: DeliveryOwner) => boolean;
  schedule?: Schedule;
  log?: (line: string) => void;
}

/** The hooks this plugin gives OpenCode (a subset of @opencode-ai/plugin's Hooks). */
export interface OpenCommsHooks {
  event(input: { event: HostEvent }): Promise<void>;
  'experimental.chat.system.transform'(input: { sessionID?: string }, output: { system: string[] }): Promise<void>;
  tool?: Record<string, HostToolDefinition>;
  dispose(): Promise<void>;
}

export interface OpenCommsInstance {
  hooks: OpenCommsHooks;
  delivery: PushDelivery;
  /** Sessions this instance has seen an event for: the only ones it pushes to on state changes. */
  localSessions: ReadonlySet<string>;
  /** Resolves when every piece of work started by an event or a state change has finished. */
  settle(): Promise<void>;
}

function sessionIdOf(event: HostEvent): string | undefined {
  const props = event.properties ?? {};
  if (typeof props.sessionID === 'string') return props.sessionID;
  const info = props.info as { id?: unknown } | undefined;
  return event.type.startsWith('session.') && typeof info?.id === 'string' ? info.id : undefined;
}

function isMember(state: State, sessionId: string): boolean {
  return Object.values(state.channels).some((c) => c.members.some((m) => m.session_id === sessionId));
}

function hasStaleMembership(state: State, sessionId: string): boolean {
  return Object.values(state.channels).some((c) => c.members.some((m) => m.session_id === sessionId && m.stale));
}

/** Starts the plugin for one OpenCode instance. */
export async function startOpenComms(input: HostPluginInput, deps: OpenCommsPluginDeps = {}): Promise<OpenCommsInstance> {
  const log = deps.log ?? ((line: string) => process.stderr.write(`opencomms(opencode): ${line}\n`));
  const store = deps.store ?? openStore({ projectDir: deps.projectDir ?? findProjectDir(input.directory, input.worktree) });
  const machine = deps.host ?? hostname();
  const pid = deps.pid ?? process.pid;
  // A delivery by another process on this machine is alive while its pid
  // runs; one from another machine can only be judged by its lease.
  const isOwnerAlive = deps.isOwnerAlive ?? ((owner: DeliveryOwner) => (owner.host === machine ? isPidAlive(owner.pid) : true));
  const local = new Set<string>();
  const busy = new Set<string>();
  const delivery = new PushDelivery({
    store, client: input.client, pid, host: machine, isOwnerAlive, isBusy: (id) => busy.has(id), isHosted: (id) => local.has(id),
    schedule: deps.schedule, log,
  });
  const work = new Set<Promise<unknown>>();

  function track(promise: Promise<unknown>, what: string): void {
    const guarded = promise.catch((err: unknown) => log(`${what} failed: ${err instanceof Error ? err.message : String(err)}`));
    work.add(guarded);
    void guarded.finally(() => work.delete(guarded));
  }

  function noteSession(sessionId: string): void {
    local.add(sessionId);
  }

  // Recover pushes a crashed process left in flight. Only dead or expired
  // owners are swept: a live process may be prompting right now, and taking
  // its mail back would deliver it twice.
  // A store fault here (lock_timeout, state_unwritable) must not keep the
  // plugin from loading: every push sweeps again before it drains.
  try {
    const atStart = store.snapshot();
    if (Object.values(atStart.messages).some((e) => e.delivery_status === 'in_flight')) {
      const swept = await store.mutate((state, ctx) => succeed('swept', { ...sweepInFlight(state, isOwnerAlive, ctx.now()) }));
      const requeued = (swept.data?.requeued as string[] | undefined)?.length ?? 0;
      if (requeued > 0) log(`start-up sweep re-queued ${requeued} abandoned delivery(ies)`);
    }
  } catch (err) {
    log(`start-up sweep failed; the next push sweeps instead: ${err instanceof Error ? err.message : String(err)}`);
  }

  async function onIdle(sessionId: string): Promise<void> {
    busy.delete(sessionId);
    const state = store.snapshot();
    if (!isMember(state, sessionId)) return;
    if (hasStaleMembership(state, sessionId)) {
      await store.mutate((s) => succeed('cleared', { changed: clearStale(s, sessionId) }));
    }
    await delivery.deliver(sessionId);
  }

  async function onDeleted(sessionId: string): Promise<void> {
    local.delete(sessionId);
    busy.delete(sessionId);
    // A retry scheduled before the deletion must not prompt the deleted session.
    delivery.forget(sessionId);
    if (!isMember(store.snapshot(), sessionId)) return;
    await store.mutate((s, ctx) => succeed('marked', { changed: markStale(s, sessionId, ctx.now()) }));
  }

  // Owner-side rule: only sessions proven to live in this instance are
  // prompted. Busy ones are skipped inside delivery.deliver, which every
  // push goes through, retries and re-runs included.
  function pushToLocal(sessionIds: readonly string[]): void {
    for (const sessionId of sessionIds) {
      if (local.has(sessionId)) track(delivery.deliver(sessionId), `push to ${sessionId}`);
    }
  }

  function onStateChange(): void {
    let pending: string[];
    try {
      pending = delivery.pendingSessions();
    } catch (err) {
      log(`reading state after a change failed: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    pushToLocal(pending);
  }

  const watcher = (deps.watch ?? ((dir, l) => watchStateDir(dir, { log: l })))(store.stateDir, log);
  const unsubscribe = watcher.onChange(onStateChange);

  const schema = deps.loadSchema ? await deps.loadSchema() : undefined;
  if (!schema) log('OpenCode tool schema builder not found; no opencomms_* tools are offered here');

  const hooks: OpenCommsHooks = {
    async event({ event }) {
      const sessionId = sessionIdOf(event);
      if (sessionId === undefined) return;
      if (event.type === 'session.deleted') {
        track(onDeleted(sessionId), `marking ${sessionId} stale`);
        return;
      }
      noteSession(sessionId);
      const status = (event.properties?.status as { type?: unknown } | undefined)?.type;
      if (event.type === 'session.idle' || (event.type === 'session.status' && status === 'idle')) {
        track(onIdle(sessionId), `idle delivery to ${sessionId}`);
      } else if (event.type === 'session.status' && (status === 'busy' || status === 'retry')) {
        busy.add(sessionId);
      }
    },

    async 'experimental.chat.system.transform'(transformInput, output) {
      const sessionId = transformInput.sessionID;
      if (typeof sessionId !== 'string' || sessionId === '') return;
      noteSession(sessionId);
      output.system.push(...store.read((state) => roleSections(state, sessionId)));
    },

    async dispose() {
      unsubscribe();
      watcher.close();
      delivery.close();
    },
  };
  if (schema) {
    // A send made here does not wait for the state watcher to notice it.
    hooks.tool = buildTools({ store, client: input.client, location: locationOf(input), noteSession, onSent: pushToLocal }, schema);
  }

  return {
    hooks,
    delivery,
    localSessions: local,
    async settle() {
      while (work.size > 0) await Promise.allSettled([...work]);
      await delivery.settle();
    },
  };
}
