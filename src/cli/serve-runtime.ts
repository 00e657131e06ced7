// The server's working half: the tool registry with its services, and the
// push paths (doorbell, spawn driver) on one shared watch of .opencomms.
// serve.ts builds it on the first tools/* request or at the end of the
// handshake, whichever comes first, so the initialize reply never waits for it.
import { ToolRegistry } from '../tools/registry';
import { buildTools } from '../tools/catalog';
import { ToolServices } from '../tools/services';
import { startDoorbell, type Doorbell } from '../delivery/doorbell';
import { type StoreSelection } from '../store';
import { readTurnRecord } from '../local/turn-records';
import { type StateWatcher } from '../local/state-dir-watch';
import { createHostDoor, type HostDoorBell } from '../delivery/host-door';
import { createWorkDoor } from '../delivery/work-door';
import { inboxAddressOf, ringInbox } from '../delivery/inbox-door';
import { codexBinOf, ringCodexQueue } from '../delivery/codex-door';
import { isLeaseAlive } from '../process/liveness';
import * as engine from '../engine';

export interface ServeRuntimeOptions {
  projectDir: string;
  selection?: StoreSelection;
  host: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  notify: (method: string, params: Record<string, unknown>) => void;
}

export interface ServeRuntime {
  readonly tools: ToolRegistry;
  /** Starts the watch, the doorbell and the spawn driver; once only. */
  startPush(): void;
  /** Stops whatever startPush started; resolves once this process has left its members' presence (bounded). */
  close(): Promise<void>;
}

export function createServeRuntime(options: ServeRuntimeOptions): ServeRuntime {
  const { log } = options;
  const services = new ToolServices({ projectDir: options.projectDir, selection: options.selection, host: options.host, env: options.env, log });
  const tools = new ToolRegistry(buildTools(services));
  let doorbell: Doorbell | undefined;
  let watcher: StateWatcher | undefined;
  let isClosed = false;
  return {
    tools,
    startPush() {
      if (isClosed || watcher) return;
      const { store } = services;
      // A server speaking as a pinned member through OPENCOMMS_MEMBER_ID says
      // so at once, before its first call, so no new session adopts that pin.
      void services.identities.claimOverride();
      // One watch of the state serves both push paths of this process.
      const shared = store.watch({ log });
      watcher = shared;
      // The store is brought up to date before the doorbell's first look (files, read on every look, at once).
      store.refresh().catch((err: unknown) => log(`could not load the state: ${err instanceof Error ? err.message : String(err)}`)).finally(() => startRinging(shared));
    },
    close() {
      if (isClosed) return Promise.resolve();
      isClosed = true;
      doorbell?.close();
      // Only a server that got as far as its watch has a spawn driver to stop.
      if (watcher) services.spawnDriver?.close();
      watcher?.close();
      return services.presence.leave();
    },
  };

  function memberAtStart(): string | undefined {
    try {
      return services.identities.processMember(services.store.snapshot());
    } catch (err) {
      log(`could not read the state to find this session's member: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  // The doorbell and the spawn driver, on the shared watch.
  function startRinging(shared: StateWatcher): void {
    if (isClosed) return;
    // A resumed session's member is present from the start, not only from its first call (read once the store is loaded).
    // A state that cannot be read leaves that to the first call, which reports the trouble to the agent.
    const resumed = memberAtStart();
    if (resumed !== undefined) void services.presence.keep(resumed);
    services.spawnDriver?.attach(shared);
    const door = services.door === undefined ? undefined : hostDoorOf(services, options);
    doorbell = startDoorbell({
      door,
      watch: () => shared,
      stateDir: services.store.stateDir,
      snapshot: () => services.store.snapshot(),
      memberId: (state) => services.identities.processMember(state),
      notify: options.notify,
      log,
      sweep: () => services.pulls.sweepAbandoned(),
      isOwnerAlive: services.pulls.isOwnerAlive,
    });
    // Only Claude Code shows the bell to its model: elsewhere a pull after
    // a bell is still the agent's own pull.
    const bell = doorbell;
    if (options.host === 'claude-code') services.isAnnounced = (id) => bell.hasRung(id);
  }
}

/**
 * The host door of this server (delivery/host-door): Claude Code's inbox at
 * the socket the host handed us, or `codex queue` on the thread the calls
 * come from. Rings, records and problems go through the store.
 */
function hostDoorOf(services: ToolServices, options: ServeRuntimeOptions): HostDoorBell {
  const { env, log, projectDir } = options;
  const inboxAddress = inboxAddressOf(env);
  const claudeSession = env.CLAUDE_CODE_SESSION_ID?.trim();
  const ring = (notice: string, doorSession: string, written: () => void): ReturnType<typeof ringInbox> =>
    (inboxAddress !== undefined ? ringInbox(inboxAddress, notice, {}, written) : ringCodexQueue(codexBinOf(env), doorSession, notice, env, written));
  const session = (): string | undefined => (inboxAddress !== undefined ? claudeSession || undefined : services.identities.lastThread);
  const turn = (id: string): ReturnType<typeof readTurnRecord> => readTurnRecord(projectDir, id);
  const hasWaiter = (state: engine.State, memberId: string): boolean => {
    const now = Date.now();
    return engine.activeWaitLease(state, memberId, now, (lease) => isLeaseAlive(lease, now, services.machine)) !== undefined;
  };
  // The board's wakes go through the same door, with a notice of their own (delivery/work-door).
  const work = createWorkDoor({ ring, session, turn, hasWaiter, log: (line) => log(`host door: ${line}`) });
  const door = createHostDoor({
    door: services.door!,
    snapshot: () => services.store.snapshot(),
    ring,
    session,
    turn,
    hasWaiter,
    // The member's own server keeps these records for it (`member`); taking a ring back names no member.
    recordRung: async (memberId, ids, at) => {
      await services.store.mutate('host_door_rung', { member_id: memberId, ids: [...ids], door: services.door!, at }, { member: memberId });
    },
    clearRung: async (ids, at) => {
      await services.store.mutate('host_door_unrung', { ids: [...ids], at });
    },
    recordUnwoken: async (memberId, ids, rings, at) => {
      await services.store.mutate('host_door_unwoken', { member_id: memberId, ids: [...ids], door: services.door!, rings, at }, { member: memberId });
    },
    recordProblem: async (memberId, message) => {
      await services.store.mutate('host_door_problem', { member_id: memberId, message }, { member: memberId });
    },
    log: (line) => log(`host door: ${line}`),
  });
  services.doorReport = () => ({ ...door.report() });
  return {
    ...door,
    offer: (state, memberId) => {
      door.offer(state, memberId);
      work.offer(state, memberId);
    },
  };
}
