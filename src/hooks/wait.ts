// `opencomms hook --wait`: the asyncRewake Stop hook of Claude Code. It runs
// in the background after the agent stops, and when mail arrives it exits 2
// with a one-line notice on stderr, which wakes the idle agent. It never
// drains: the agent reads the mail itself with opencomms_pull, so
// "delivered" still means "the model has it".
//
// It exits 0 quietly when there is nothing to wake: on timeout, when the
// session ended (SessionEnd marked the member stale, the member left every
// channel, the parent process is gone, a signal came), or when another
// waiter already waits for the same member. That last rule is the waiter
// lease (engine/wait-leases.ts): Claude Code starts this hook after every
// turn, and without the lease waiters would pile up and wake the agent once
// each for the same mail.
import { processHostTag } from '../process/place';
import {
  activeWaitLease, hasSessionEnded, leavePresence, recordPresence, releaseWaitLease, renewWaitLease, replaceWaitLease, type PresenceClaim, type State,
} from '../engine';
import type { Store } from '../store';
import type { StateWatcher } from '../local/state-dir-watch';
import { randomHex } from '../process/crypto';
import { isHolderRunning, isPidAlive, thisRecordedProcess } from '../process/liveness';
import { EMPTY_ANSWER } from './answer';
import { memberBySession, type EnvMember } from './bind';
import { membershipsOf } from './deliver';
import type { HookEvent } from './events';
import { waitingMail } from './wait-notice';

/** How long a waiting hook waits when no --timeout is given. */
export const DEFAULT_WAIT_MS = 30 * 60_000;
/** How long a waiter lease holds unrenewed: a SIGKILLed waiter on another host frees its member after this. */
export const WAIT_LEASE_MS = 5 * 60_000;
/** Renewal well inside the lease, so one failed renewal (a busy lock) does not lose it. */
const LEASE_RENEW_MS = 2 * 60_000;
/** Where the platform cannot watch the folder, the watcher's poll re-reads the state this often. */
const WAIT_POLL_MS = 2_000;
/** A kill(pid, 0) this often notices a parent that went away without a SessionEnd. */
const PARENT_POLL_MS = 1_000;

export type WaitSignal = 'SIGTERM' | 'SIGINT' | 'SIGHUP';

export interface WaitOptions {
  timeoutMs?: number;
  /** The process that started the hook (the host, or its shell); when it is gone, the session is. */
  parentPid?: number;
  /** Registers a signal handler; a signal ends the wait quietly, the lease released. */
  onSignal?: (signal: WaitSignal, handler: () => void) => void;
}

export interface WaitOutcome {
  answer: Record<string, unknown>;
  exitCode: number;
  notice?: string;
}

const QUIET: WaitOutcome = { answer: EMPTY_ANSWER, exitCode: 0 };

/** Why a wait stops. Only 'mail' and 'timeout' look for mail once more under the lock. */
type StopReason = 'mail' | 'timeout' | 'ended' | 'lost';


/** This waiter as a presence record names it. */
function waiterClaim(): PresenceClaim {
  return { ...thisRecordedProcess(), kind: 'waiter' };
}

function woken(notice: string): WaitOutcome {
  return { answer: EMPTY_ANSWER, exitCode: 2, notice };
}

/** Resolves when the member has deliverable mail (exit 2 + notice), else exit 0 on timeout, session end or a live rival waiter. */
export async function waitForMail(store: Store, snapshot: State, event: HookEvent, env: EnvMember, options: WaitOptions = {}): Promise<WaitOutcome> {
  const memberId = env.kind === 'id' ? env.memberId : memberBySession(snapshot, event);
  if (memberId === undefined) return QUIET;
  // The session this hook speaks for is over when its member is gone from
  // every channel, stale everywhere (SessionEnd ran), or, for a member found
  // by session id, bound to another session since.
  const hasEnded = (state: State): boolean => {
    const memberships = membershipsOf(state, memberId);
    if (memberships.length === 0 || hasSessionEnded(state, memberId)) return true;
    return env.kind !== 'id' && memberBySession(state, event) !== memberId;
  };
  if (hasEnded(snapshot)) return QUIET;

  const token = randomHex(16);
  let start: WaitOutcome | undefined;
  await store.mutate((state, ctx) => {
    const now = ctx.now();
    start = undefined;
    const isOver = hasEnded(state);
    const holder = isOver ? undefined : activeWaitLease(state, memberId, now, isHolderRunning);
    const mail = isOver ? undefined : waitingMail(state, memberId, now);
    if (isOver) start = QUIET;
    // A live waiter with mail to wake for wakes the agent; one on another
    // machine cannot be told to stand down. Either way this one stays silent.
    else if (holder && (mail || holder.host !== processHostTag())) start = QUIET;
    // Mail already waiting wakes at once; no lease is needed for that, so nothing is written.
    else if (mail) start = woken(mail.notice);
    // This turn's waiter covers the member from now on: an earlier one here
    // sees its lease gone and ends quietly, instead of timing out first.
    else {
      replaceWaitLease(state, memberId, { pid: process.pid, host: processHostTag(), token, until: now + WAIT_LEASE_MS });
      // A waiting session is a present one (engine/presence), whatever its host.
      recordPresence(state, memberId, waiterClaim(), now, LEASE_RENEW_MS);
    }
    return { ok: true, message: start ? 'not waiting' : 'lease taken' };
  });
  if (start) return start;
  return waitHoldingLease(store, memberId, token, hasEnded, options);
}

function waitHoldingLease(
  store: Store,
  memberId: string,
  token: string,
  hasEnded: (state: State) => boolean,
  options: WaitOptions,
): Promise<WaitOutcome> {
  return new Promise((resolveWait) => {
    let isStopping = false;
    let watcher: StateWatcher | undefined;
    let parentPoll: NodeJS.Timeout | undefined;
    let lastNotice: string | undefined;

    /** Releases the lease (if still ours) and, when mail or the deadline stopped us, decides on the mail under the same lock. */
    const settle = async (reason: StopReason): Promise<WaitOutcome> => {
      let outcome: WaitOutcome = QUIET;
      try {
        await store.mutate((state, ctx) => {
          releaseWaitLease(state, memberId, token);
          leavePresence(state, memberId, waiterClaim(), ctx.now());
          outcome = QUIET;
          if (reason === 'mail' || reason === 'timeout') {
            // Under the lock, so a rival that stood down because we held the lease cannot miss mail that came meanwhile.
            const mail = hasEnded(state) ? undefined : waitingMail(state, memberId, ctx.now());
            if (mail) outcome = woken(mail.notice);
          }
          return { ok: true, message: 'lease released' };
        });
      } catch {
        // The lock is out of reach: the lease frees itself once this pid is gone,
        // and mail seen lock-free still deserves the wake-up.
        if (reason === 'mail' && lastNotice !== undefined) outcome = woken(lastNotice);
      }
      return outcome;
    };

    const stop = (reason: StopReason): void => {
      if (isStopping) return;
      isStopping = true;
      clearTimeout(deadline);
      clearInterval(renewal);
      if (parentPoll) clearInterval(parentPoll);
      watcher?.close();
      void settle(reason).then(resolveWait);
    };

    const recheck = (): void => {
      if (isStopping) return;
      let state: State;
      try {
        state = store.snapshot();
      } catch {
        // An unreadable moment: the next change or poll looks again.
        return;
      }
      if (hasEnded(state)) return stop('ended');
      const lease = state.wait_leases ? state.wait_leases[memberId] : undefined;
      // Our lease lapsed and another waiter took the member over: it wakes the agent now.
      if (!lease || lease.token !== token) return stop('lost');
      const mail = waitingMail(state, memberId, Date.now());
      if (mail) {
        lastNotice = mail.notice;
        stop('mail');
      }
    };

    const renew = (): void => {
      store.mutate((state, ctx) => {
        const kept = renewWaitLease(state, memberId, token, ctx.now() + WAIT_LEASE_MS);
        if (kept) recordPresence(state, memberId, waiterClaim(), ctx.now(), LEASE_RENEW_MS);
        return { ok: kept, message: kept ? 'lease renewed' : 'lease lost' };
      }).then((result) => {
        if (!result.ok) stop('lost');
      }, () => {
        // A busy or unwritable store: the lease outlives this miss, and the next renewal tries again.
      });
    };

    // The one timer that keeps the process alive; the others only watch.
    const deadline = setTimeout(() => stop('timeout'), options.timeoutMs ?? DEFAULT_WAIT_MS);
    const renewal = setInterval(renew, LEASE_RENEW_MS);
    renewal.unref();
    const { parentPid } = options;
    if (parentPid !== undefined) {
      parentPoll = setInterval(() => {
        if (!isPidAlive(parentPid)) stop('ended');
      }, PARENT_POLL_MS);
      parentPoll.unref();
    }
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) options.onSignal?.(signal, () => stop('ended'));
    watcher = store.watch({ pollMs: WAIT_POLL_MS });
    watcher.onChange(recheck);
    // Mail may have come between the locked start and the watch.
    recheck();
  });
}
