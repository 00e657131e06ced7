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
import { hasHookSessionEnded, memberOfSession, waitingMail, type HookSession, type PresenceClaim, type State } from '../engine';
import type { Store } from '../store';
import type { StateWatcher } from '../local/state-dir-watch';
import { randomHex } from '../process/crypto';
import { isPidAlive, thisRecordedProcess } from '../process/liveness';
import { EMPTY_ANSWER } from './answer';
import { hookSessionOf, type EnvMember } from './bind';
import type { HookEvent } from './events';

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


/** This waiter as a presence record names it (its pid and machine are its lease's too). */
function waiterClaim(): PresenceClaim {
  return { ...thisRecordedProcess(), kind: 'waiter' };
}

function woken(notice: string): WaitOutcome {
  return { answer: EMPTY_ANSWER, exitCode: 2, notice };
}

/** The waiter: its member, how its session is found, and its lease's token and claim (the lease changes' arguments). */
interface Waiter {
  member: string;
  session: HookSession;
  found_by_session: boolean;
  claim: PresenceClaim;
  token: string;
}

/** Resolves when the member has deliverable mail (exit 2 + notice), else exit 0 on timeout, session end or a live rival waiter. */
export async function waitForMail(store: Store, snapshot: State, event: HookEvent, env: EnvMember, options: WaitOptions = {}): Promise<WaitOutcome> {
  const session = hookSessionOf(event);
  const memberId = env.kind === 'id' ? env.memberId : memberOfSession(snapshot, session);
  if (memberId === undefined) return QUIET;
  // The session this hook speaks for is over when its member is gone from
  // every channel, stale everywhere (SessionEnd ran), or, for a member found
  // by session id, bound to another session since.
  const found = env.kind === 'id' ? null : session;
  const hasEnded = (state: State): boolean => hasHookSessionEnded(state, memberId, found);
  if (hasEnded(snapshot)) return QUIET;

  const waiter: Waiter = { member: memberId, session, found_by_session: found !== null, claim: waiterClaim(), token: randomHex(16) };
  // Taken from whoever holds it unless mail already waits or a live rival should wake the agent instead (engine/changes/hooks-wait.ts).
  const started = await store.mutate('hook_wait_start', { ...waiter, lease_ms: WAIT_LEASE_MS, renew_ms: LEASE_RENEW_MS }, { member: memberId });
  if (!started.ok) return QUIET;
  if (started.data.start === 'wake') return woken(started.data.notice);
  if (started.data.start === 'quiet') return QUIET;
  return waitHoldingLease(store, waiter, hasEnded, options);
}

function waitHoldingLease(store: Store, waiter: Waiter, hasEnded: (state: State) => boolean, options: WaitOptions): Promise<WaitOutcome> {
  const { member: memberId, token } = waiter;
  return new Promise((resolveWait) => {
    let isStopping = false;
    let watcher: StateWatcher | undefined;
    let parentPoll: NodeJS.Timeout | undefined;
    let lastNotice: string | undefined;

    /** Releases the lease (if still ours) and, when mail or the deadline stopped us, decides on the mail under the same lock. */
    const settle = async (reason: StopReason): Promise<WaitOutcome> => {
      let outcome: WaitOutcome = QUIET;
      try {
        // Mail is looked for under the same lock, so a rival that stood down because we held the lease cannot miss mail that came meanwhile.
        const released = await store.mutate('hook_wait_release', { ...waiter, look: reason === 'mail' || reason === 'timeout' }, { member: memberId });
        if (released.ok && released.data.notice !== undefined) outcome = woken(released.data.notice);
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
      store.mutate('hook_wait_renew', {
        member: memberId, claim: waiter.claim, token, lease_ms: WAIT_LEASE_MS, renew_ms: LEASE_RENEW_MS,
      }, { member: memberId }).then((result) => {
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
