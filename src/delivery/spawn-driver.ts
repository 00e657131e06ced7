// Spawn-push delivery: resumes a member's host session (`claude -p --resume`,
// `codex exec resume`) with its waiting mail as the last argument.
//
//   locked:   sweep → lease check → age out → size check → drain → frame → size check → take lease
//   unlocked: run the host CLI (up to SPAWN_TIMEOUT_MS)
//   locked:   commit (exit 0) or requeue (anything else) → release lease
//
// Any process with spawn enabled may deliver; the lease in state.spawn_leases
// makes it exactly one at a time per member. Triggers: the state watcher
// (any change), a successful send, the retry timer after a failure, the
// cooldown timer, and a re-check while another process holds the lease.
import { randomHex } from '../process/crypto';
import { processHostTag } from '../process/place';
import {
  activeSpawnLease, findGoneHolders, isAbandonedDelivery, spawnTargets, targetPending, type DeliveryOwner, type Envelope, type SpawnPlan, type State,
} from '../engine';
import type { Store } from '../store';
import { isHolderRunning, isPidAlive as isLocalPidAlive } from '../process/liveness';
import { resolveHostBinaries } from './spawn-command';
import { describeFailure, isAccepted, spawnHostProcess, type SpawnFn, type SpawnOutcome } from './spawn-process';

export { SPAWN_RETRY_BASE_MS } from '../engine';

/** The host CLI gets this long before it is killed and the mail requeued. */
export const SPAWN_TIMEOUT_MS = 10 * 60_000;
/** Lease and in-flight claim: the timeout, the kill grace and a margin for the commit's lock wait. */
export const SPAWN_LEASE_MS = SPAWN_TIMEOUT_MS + 2 * 60_000;
/** While another process holds a member's lease, look again this often (it may have died). */
export const LEASE_RECHECK_MS = 15_000;
/** A commit or requeue that cannot get the lock is tried this many times before the lease is left to expire. */
const FINISH_TRIES = 3;

/** What the driver needs of the state watcher (Store.watch). */
export interface StateWatcherLike {
  onChange(listener: () => void): () => void;
  close(): void;
}

/** Starts `fn` after `ms`, without keeping the process alive; returns a cancel function. */
export type ScheduleFn = (fn: () => void, ms: number) => () => void;

export interface SpawnDriverOptions {
  store: Store;
  projectDir: string;
  /** The process environment, read for OPENCOMMS_NO_SPAWN and the binary overrides; also the child's, minus the identity. */
  env: Readonly<Record<string, string | undefined>>;
  log: (line: string) => void;
  /** The clock for timers; give the store the same one in tests. Date.now by default. */
  now?: () => number;
  spawnFn?: SpawnFn;
  schedule?: ScheduleFn;
  /** Who this process is in leases and in-flight claims; process.pid and processHostTag() (hostname and pid namespace) by default. */
  pid?: number;
  host?: string;
  isPidAlive?: (pid: number) => boolean;
  platform?: string;
  leaseMs?: number;
  timeoutMs?: number;
}

export interface SpawnDriver {
  /** Looks for spawn_push mail to deliver: for these members, or for everyone with pending mail. */
  trigger(memberIds?: readonly string[]): void;
  /** Re-checks on every state change the watcher reports. */
  attach(watcher: StateWatcherLike): void;
  /** Stops triggers and timers; spawns already running still commit or requeue. */
  close(): void;
  /** Resolves once no delivery of this driver is running (for tests and orderly shutdown). */
  whenIdle(): Promise<void>;
}

const defaultSchedule: ScheduleFn = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** The child's environment: ours, minus our identity, which would otherwise leak into the resumed host's own servers. */
function childEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const copy = { ...env };
  delete copy.OPENCOMMS_MEMBER_ID;
  return copy;
}

export function createSpawnDriver(options: SpawnDriverOptions): SpawnDriver {
  const { store, log, env } = options;
  const isDisabled = env.OPENCOMMS_NO_SPAWN === '1';
  const spawnFn = options.spawnFn ?? spawnHostProcess;
  const schedule = options.schedule ?? defaultSchedule;
  const pid = options.pid ?? process.pid;
  const host = options.host ?? processHostTag();
  const pidAlive = options.isPidAlive ?? isLocalPidAlive;
  const leaseMs = options.leaseMs ?? SPAWN_LEASE_MS;
  const timeoutMs = options.timeoutMs ?? SPAWN_TIMEOUT_MS;
  const platform = options.platform ?? process.platform;
  const now = options.now ?? Date.now;
  // Another machine's pid cannot be checked from here; its lease decides.
  const isOwnerAlive = (owner: DeliveryOwner): boolean => isHolderRunning(owner, host, pidAlive);

  let isClosed = false;
  let detach: (() => void) | undefined;
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const timers = new Map<string, { at: number; cancel: () => void }>();
  // Members whose last attempt found nothing to do, by the pending mail it saw: skip the lock until that changes.
  const settled = new Map<string, string>();

  function pendingSignature(state: State, memberId: string): string {
    const pending = spawnTargets(state, memberId, host)
      .map((t) => `${t.host}|${t.hostSessionId}|${targetPending(state, memberId, t).map((e) => e.message_id).join(',')}`)
      .join(';');
    return `${pending}#${abandonedIds(state, memberId).join(',')}`;
  }

  function inFlightFor(state: State, memberId: string): Envelope[] {
    return Object.values(state.messages).filter((e) => e.recipient_session_id === memberId && e.delivery_status === 'in_flight');
  }

  /** In-flight mail for this member whose deliverer died or overran its lease: a plan sweeps it back first. */
  function abandonedIds(state: State, memberId: string): string[] {
    const at = now();
    return inFlightFor(state, memberId).filter((e) => isAbandonedDelivery(e, at, isOwnerAlive)).map((e) => e.message_id);
  }

  // In-flight mail under a live lease becomes recoverable by time alone, which no state change announces
  // and which the `settled` memo would otherwise sit on: look again a millisecond after the first such lease ends.
  function recheckAtLeaseEnd(state: State, memberId: string): void {
    if (spawnTargets(state, memberId, host).length === 0) return;
    const at = now();
    const ends = inFlightFor(state, memberId)
      .flatMap((e) => (e.delivery_owner && !isAbandonedDelivery(e, at, isOwnerAlive) ? [e.delivery_owner.lease_until] : []));
    if (ends.length > 0) later(memberId, Math.min(...ends) - at + 1);
  }

  function hasSpawnMail(state: State, memberId: string): boolean {
    const targets = spawnTargets(state, memberId, host);
    if (targets.length === 0) return false;
    return targets.some((t) => targetPending(state, memberId, t).length > 0) || abandonedIds(state, memberId).length > 0;
  }

  function later(memberId: string, ms: number): void {
    if (isClosed) return;
    const at = now() + ms;
    const existing = timers.get(memberId);
    if (existing && existing.at <= at) return;
    existing?.cancel();
    const cancel = schedule(() => {
      timers.delete(memberId);
      settled.delete(memberId);
      start(memberId);
    }, ms);
    timers.set(memberId, { at, cancel });
  }

  function start(memberId: string): void {
    if (isClosed || isDisabled) return;
    if (running.has(memberId)) {
      // One delivery per member per process; the running one looks again when it ends.
      again.add(memberId);
      return;
    }
    const work = deliverLoop(memberId)
      .catch((err) => log(`spawn delivery to ${memberId} failed: ${(err as Error).message}`))
      .finally(() => running.delete(memberId));
    running.set(memberId, work);
  }

  async function deliverLoop(memberId: string): Promise<void> {
    for (;;) {
      again.delete(memberId);
      const state = store.snapshot();
      recheckAtLeaseEnd(state, memberId);
      const signature = pendingSignature(state, memberId);
      if (!hasSpawnMail(state, memberId) || settled.get(memberId) === signature) return;
      // A lease seen lock-free (a delivery elsewhere, or a back-off) is re-checked when it could end, not now.
      const held = activeSpawnLease(state, memberId, now(), isOwnerAlive);
      const { plan, accepted } = held ? { plan: { kind: 'leased', until: held.until } as SpawnPlan, accepted: false } : await attempt(memberId, state);
      if (plan.kind === 'none' || plan.kind === 'refused') settled.set(memberId, signature);
      else settled.delete(memberId);
      if (plan.kind === 'leased') later(memberId, Math.max(1, Math.min(LEASE_RECHECK_MS, plan.until - now() + 1)));
      if (plan.kind === 'wait') later(memberId, plan.ms);
      // Only an accepted spawn can have left more mail to send now (the rest of a split batch, or mail sent meanwhile).
      if (isClosed || (!accepted && !again.has(memberId))) return;
    }
  }

  // `seen` is the snapshot this attempt was decided on: the holders it shows are judged here, by
  // this process's liveness check, and the change treats the rest as alive (engine/gone-holders.ts).
  async function attempt(memberId: string, seen: State): Promise<{ plan: SpawnPlan; accepted: boolean }> {
    const planned = await store.mutate('spawn_plan', {
      member: memberId, pid, host, gone: findGoneHolders(seen, isOwnerAlive), binaries: resolveHostBinaries(env), platform, lease_ms: leaseMs, token: randomHex(12),
    });
    if (!planned.ok) throw new Error(planned.message);
    const { plan } = planned.data;
    if (plan.kind !== 'spawn') return { plan, accepted: false };
    const outcome = await spawnFn({ file: plan.file, args: plan.args, cwd: options.projectDir, env: childEnv(env), timeoutMs });
    await finish(memberId, plan, outcome);
    return { plan, accepted: isAccepted(outcome) };
  }

  async function finish(memberId: string, plan: Extract<SpawnPlan, { kind: 'spawn' }>, outcome: SpawnOutcome): Promise<void> {
    const accepted = isAccepted(outcome);
    const failure = accepted ? '' : describeFailure(outcome);
    let retryMs: number | null = null;
    for (let tryNo = 1; ; tryNo += 1) {
      try {
        const finished = await store.mutate('spawn_finish', { member: memberId, ids: plan.ids, owner: plan.owner, token: plan.token, accepted, failure });
        if (!finished.ok) throw new Error(finished.message);
        retryMs = finished.data.retry_ms;
        break;
      } catch (err) {
        // Residual risk: if the commit never lands, the mail comes back when the lease expires and is delivered again.
        log(`spawn delivery to ${memberId}: could not record the outcome (try ${tryNo}): ${(err as Error).message}`);
        if (tryNo >= FINISH_TRIES) return;
      }
    }
    if (accepted) log(`spawn delivery to ${memberId}: ${plan.ids.length} message(s) delivered`);
    else log(`spawn delivery to ${memberId} failed: ${failure}`);
    // A millisecond past the back-off, so the lease has certainly lapsed when the retry looks.
    if (retryMs !== null) later(memberId, retryMs + 1);
  }

  function trigger(memberIds?: readonly string[]): void {
    if (isClosed || isDisabled) return;
    let ids = memberIds;
    if (ids === undefined) {
      let state: State;
      try {
        state = store.snapshot();
      } catch (err) {
        log(`spawn delivery: could not read the state: ${(err as Error).message}`);
        return;
      }
      // Queued mail, and in-flight mail whose deliverer may have died.
      const candidates = new Set([...Object.keys(state.queues), ...Object.values(state.messages).map((e) => e.recipient_session_id)]);
      ids = [...candidates].filter((id) => hasSpawnMail(state, id));
      for (const id of candidates) if (!ids.includes(id)) recheckAtLeaseEnd(state, id);
    }
    for (const id of new Set(ids)) start(id);
  }

  return {
    trigger,
    attach(watcher) {
      detach?.();
      detach = watcher.onChange(() => trigger());
      trigger();
    },
    close() {
      isClosed = true;
      detach?.();
      detach = undefined;
      for (const timer of timers.values()) timer.cancel();
      timers.clear();
    },
    async whenIdle() {
      while (running.size > 0) await Promise.all([...running.values()]);
    },
  };
}
