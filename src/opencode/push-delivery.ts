// Pushes a member's mail into its OpenCode session with client.session.prompt,
// in three steps so the lock is never held across a host call:
//   1. locked: sweep abandoned deliveries, drain this member's queue (in_flight, owned by us), frame;
//   2. unlocked: prompt the member's session;
//   3. locked: commit as 'push', or requeue and record an error, then retry after RETRY_DELAY_MS.
// Retries stop by themselves: every handover counts an attempt, and the
// engine dead-letters an envelope after MAX_DELIVERY_ATTEMPTS.
import { findGoneHolders, type DeliveryOwner } from '../engine';
import type { Store } from '../store';
import { describeFailure } from './error-log';
import type { HostClient } from './host-types';

export { isPushMember } from '../engine';

/** Delay before the one retry a failed push schedules. */
export const RETRY_DELAY_MS = 2_000;
/**
 * How long our in-flight claim protects a push from other processes' sweeps.
 * session.prompt returns only when the model has answered, which can take
 * many minutes; a push still running after this long may be delivered twice
 * (the residual risk of a lease without renewal).
 */
export const PUSH_LEASE_MS = 30 * 60_000;
/** Slack added to a cooldown wait so the drain after it is past the cooldown. */
const COOLDOWN_SLACK_MS = 25;

/** Schedules `fn` after `ms`; returns a cancel. The default never keeps the process alive. */
export type Schedule = (fn: () => void, ms: number) => () => void;

export const unrefSchedule: Schedule = (fn, ms) => {
  const handle = setTimeout(fn, ms);
  handle.unref?.();
  return () => clearTimeout(handle);
};

export interface PushDeliveryOptions {
  store: Store;
  client: HostClient;
  /** This process as a delivery owner; `lease_until` is filled in per drain. */
  pid: number;
  host: string;
  isOwnerAlive: (owner: DeliveryOwner) => boolean;
  /**
   * The OpenCode session of this instance that speaks as the member, or
   * undefined when none lives here. Every push asks, so a retry or wake-up
   * that outlived the session (deleted meanwhile) prompts no one (PROTOCOL
   * 7.3).
   */
  sessionOf: (memberId: string) => string | undefined;
  /**
   * Whether that session is running a turn. Every push checks it (a state
   * change, a send, a retry, a cooldown wake-up, a re-run); a busy session
   * is left alone and gets its mail at its next idle (PROTOCOL 7.3).
   */
  isBusy?: (sessionId: string) => boolean;
  schedule?: Schedule;
  log?: (line: string) => void;
}

export type PushOutcome =
  | { kind: 'delivered'; ids: string[] }
  | { kind: 'failed'; requeued: string[]; deadLettered: string[]; retryScheduled: boolean }
  | { kind: 'nothing' }
  | { kind: 'not_push_member' }
  | { kind: 'already_delivering' }
  | { kind: 'busy' }
  | { kind: 'not_hosted' };

/** Whether an SDK answer reports failure: the default client returns `{error}` instead of throwing. */
function failureOf(answer: unknown): unknown {
  if (answer && typeof answer === 'object' && 'error' in answer) {
    const error = (answer as { error?: unknown }).error;
    if (error !== undefined && error !== null) return error;
  }
  return undefined;
}

export class PushDelivery {
  private readonly delivering = new Set<string>();
  private readonly wanted = new Set<string>();
  private readonly timers = new Map<string, () => void>();
  private readonly running = new Set<Promise<unknown>>();
  private readonly schedule: Schedule;
  private readonly log: (line: string) => void;
  private isClosed = false;

  constructor(private readonly options: PushDeliveryOptions) {
    this.schedule = options.schedule ?? unrefSchedule;
    this.log = options.log ?? (() => undefined);
  }

  /**
   * Delivers everything waiting for `memberId` into its session here. One
   * push at a time per member in this process: a call made while one runs is
   * remembered and runs once that one is done, so mail that arrived
   * meanwhile still goes.
   */
  deliver(memberId: string): Promise<PushOutcome> {
    if (this.isClosed) return Promise.resolve({ kind: 'nothing' });
    const sessionId = this.options.sessionOf(memberId);
    if (sessionId === undefined) return Promise.resolve({ kind: 'not_hosted' });
    // Its next idle delivers; a prompt now would queue behind the running turn or, refused, burn an attempt.
    if (this.options.isBusy?.(sessionId)) return Promise.resolve({ kind: 'busy' });
    if (this.delivering.has(memberId)) {
      this.wanted.add(memberId);
      return Promise.resolve({ kind: 'already_delivering' });
    }
    this.delivering.add(memberId);
    const run = this.push(memberId, sessionId).finally(() => {
      this.delivering.delete(memberId);
      this.running.delete(run);
      if (this.wanted.delete(memberId)) this.redeliver(memberId, 're-run');
    });
    this.running.add(run);
    return run;
  }

  /** Resolves once no push is running (including ones started while waiting). */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Cancels pending retries; pushes already running finish on their own. */
  close(): void {
    this.isClosed = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  /** Forgets a member whose session left this instance: its pending retry or wake-up and any re-run it asked for. */
  forget(memberId: string): void {
    this.timers.get(memberId)?.();
    this.timers.delete(memberId);
    this.wanted.delete(memberId);
  }

  /** Whether a retry or cooldown wake-up is waiting for this member. */
  hasWakeScheduled(memberId: string): boolean {
    return this.timers.has(memberId);
  }

  private wakeLater(memberId: string, ms: number): void {
    if (this.isClosed || this.timers.has(memberId)) return;
    const cancel = this.schedule(() => {
      this.timers.delete(memberId);
      this.redeliver(memberId, 'retry');
    }, ms);
    this.timers.set(memberId, cancel);
  }

  // A push this class starts itself (a retry, a cooldown wake-up, a re-run) has no caller to
  // catch for it: a store fault (lock_timeout, state_unwritable) would otherwise be an unhandled
  // rejection, which ends the host process. It is logged and tried again like a failed push.
  private redeliver(memberId: string, what: string): void {
    this.deliver(memberId).catch((err: unknown) => {
      this.log(`${what} of the push to member ${memberId} failed: ${err instanceof Error ? err.message : String(err)}`);
      this.wakeLater(memberId, RETRY_DELAY_MS);
    });
  }

  private async push(memberId: string, sessionId: string): Promise<PushOutcome> {
    const { store, client, pid, host } = this.options;
    // Holders are judged here, by this process's check, on a snapshot; the drain treats the rest as alive
    // and sweeps back only deliveries whose owner is gone or whose lease ran out.
    const gone = store.read((state) => findGoneHolders(state, this.options.isOwnerAlive));
    const drained = await store.mutate('push_drain', { member: memberId, pid, host, lease_ms: PUSH_LEASE_MS, gone });
    if (!drained.ok) throw new Error(drained.message);
    // `owner` is the record this drain wrote on the envelopes: commit and requeue touch only mail still under it.
    const data = drained.data;
    if (!data.member) return { kind: 'not_push_member' };
    const { owner } = data;
    if (data.ids.length === 0 || owner === undefined) {
      // Mail held back only by the cooldown would otherwise wait for the next event.
      if (data.wait > 0) this.wakeLater(memberId, data.wait + COOLDOWN_SLACK_MS);
      return { kind: 'nothing' };
    }
    let failure: unknown;
    try {
      const answer = await client.session.prompt({ path: { id: sessionId }, body: { parts: [{ type: 'text', text: data.text }] } });
      failure = failureOf(answer);
    } catch (err) {
      failure = err ?? new Error('prompt failed');
    }
    if (failure === undefined) {
      const committed = await store.mutate('push_commit', { member: memberId, ids: data.ids, owner });
      if (!committed.ok) throw new Error(committed.message);
      const { ids } = committed.data;
      this.log(`pushed ${ids.length} message(s) for member ${memberId} to OpenCode session ${sessionId}`);
      return { kind: 'delivered', ids };
    }
    return this.giveBack(memberId, sessionId, data.ids, owner, failure);
  }

  private async giveBack(memberId: string, sessionId: string, ids: string[], owner: DeliveryOwner, failure: unknown): Promise<PushOutcome> {
    const detail = describeFailure(failure);
    const result = await this.options.store.mutate('push_give_back', { member: memberId, ids, owner, session_id: sessionId, detail });
    if (!result.ok) throw new Error(result.message);
    const { requeued, failed } = result.data;
    this.log(`push to OpenCode session ${sessionId} (member ${memberId}) failed: ${detail}`);
    const retryScheduled = requeued.length > 0 && !this.isClosed && !this.timers.has(memberId);
    if (requeued.length > 0) this.wakeLater(memberId, RETRY_DELAY_MS);
    return { kind: 'failed', requeued, deadLettered: failed, retryScheduled };
  }
}
