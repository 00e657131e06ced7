// The cross-process state lock, `.state.lock`: claiming it, and waiting for
// it in the queue of `<lock>.queue/` when it is taken. The stamp and the
// judgement of a holder live in lock-stamp.ts, the stamped file itself in
// lock-file.ts, the break of an abandoned lock in lock-break.ts, the queue in
// lock-queue.ts.
import { StoreFault } from '../../files/faults';
import { LOCK_TIMEOUT_MS, LockHandle, LockOptions, LockOwner } from './lock-stamp';
import { discardStaged, linkStaged, readLockFile, refreshLock, releaseLock, Staged, stageStamp } from './lock-file';
import { displaceIfAbandoned, Seen } from './lock-break';
import { hasWaiters, leaveQueue, sleepUntilChanged, takeTicket, Ticket, ticketAhead, ticketPathOf } from './lock-queue';
import { changePathOf, dropChange, leaveChange, readChangeFile, type WaitingChange } from './waiting-changes';
import type { ToolResult } from '../../engine/types';

export { EMPTY_LOCK_STALE_MS, LOCK_REFRESH_MS, LOCK_STALE_MS, LOCK_TIMEOUT_MS, isSameNamespace, parseLockOwner } from './lock-stamp';
export type { LockHandle, LockOptions, LockOwner, ProcessStartOf, WatchPath } from './lock-stamp';
export { refreshLock, releaseLock } from './lock-file';
export { breakAbandonedLock, inspectLock } from './lock-break';
export type { LockInspection } from './lock-break';
export { servableTickets, queueDirOf } from './lock-queue';

// The head of the queue is woken by the holder's release; this poll is only
// the fallback (no watch, a dead holder, a lock from a build without the queue).
const HEAD_POLL_MS = 20;
// A waiter further back is woken when the ticket ahead goes; this slower poll
// finds a waiter ahead that died, and lets it try a lock left free by a head
// that stopped (a frozen process keeps its ticket alive): free at two polls
// in a row, never at one, so a head that is only slow (a loaded machine) is
// not overtaken. The poll grows with the waiter's place in the queue, up to
// QUEUE_POLL_STEPS times, so 48 waiters poll about 33 times a second rather
// than 240. The price: a waiter that died far back stalls the queue, once it
// is the head, for at most one long poll (2-2.5 s) of the waiter behind it.
const QUEUE_POLL_MS = 200;
const QUEUE_POLL_STEPS = 10;
// Without a usable queue, waiters poll the lock as older builds did.
const POLL_MIN_MS = 5;
const POLL_JITTER_MS = 5;

/**
 * The holding a waiter last saw change. A wait ends in lock_timeout only
 * when one holder has kept the lock for the whole timeout without a release:
 * a long queue that keeps moving is served, a stuck holder is reported.
 */
class Progress {
  private key: string | undefined;
  private since: number;
  holder: LockOwner | undefined;

  constructor(private readonly now: () => number) {
    this.since = now();
  }

  see(key: string, holder: LockOwner | undefined): void {
    if (key === this.key) return;
    this.key = key;
    this.holder = holder;
    this.since = this.now();
  }

  heldForMs(): number {
    return this.now() - this.since;
  }
}

function stuckFault(options: LockOptions, timeoutMs: number, progress: Progress): StoreFault {
  const holder = progress.holder;
  const who = holder ? `pid ${holder.pid} on ${holder.host}` : 'an unknown holder';
  return new StoreFault('lock_timeout',
    `timed out after ${timeoutMs} ms waiting for ${options.lockPath}: held by ${who}, which has not released it for ` +
    `${progress.heldForMs()} ms and looks stuck. If that process is not an OpenComms server busy with a change, stop it; ` +
    'a lock whose holder has exited is removed by the next claimer, and `opencomms doctor --fix` removes one it judges abandoned.');
}

// What a waiter further back learns of the lock without judging it: which holding is there now.
function peekHolding(options: LockOptions): { key: string; holder: LockOwner | undefined } {
  let file;
  try {
    file = readLockFile(options.port, options.lockPath);
  } catch {
    file = undefined;
  }
  if (file === undefined) return { key: 'free', holder: undefined };
  return { key: file.owner?.token ?? `${file.ino}:${file.mtimeMs}`, holder: file.owner };
}

/** Whether nobody holds the lock this moment (its file is absent); a file we cannot look at counts as held. */
function isLockFree(options: LockOptions): boolean {
  try {
    return options.port.statIfExists(options.lockPath) === undefined;
  } catch {
    return false;
  }
}

/** A waiting change a holder applied and answered while we waited: we never took the lock. */
export interface Answered {
  answered: ToolResult;
}

/**
 * The lock, taken by a waiter that left its change as data, and what a
 * holder left of that change: an answer prepared for a rewrite named
 * `commit`, when a holder applied it and stopped before it answered (the
 * change is in the state exactly when state.json carries that commit).
 */
export interface ClaimedWith {
  lock: LockHandle;
  prepared?: { commit: string; result: ToolResult };
}

/**
 * Takes the lock, waiting without blocking the event loop. A holder that is
 * gone from our namespace is displaced at once; a live one never is. Throws
 * `state_unwritable` for any file error other than a taken lock, and
 * `lock_timeout` (naming the file and the holder's pid and host) when one
 * holder keeps the lock for `timeoutMs` without releasing it.
 */
export async function claimLock(options: LockOptions): Promise<LockHandle> {
  return (await takeLock(options, undefined)) as LockHandle;
}

/**
 * claimLock for a change written as data: while it waits in the queue,
 * `change` waits beside its ticket, and a holder may apply and answer it
 * (waiting-changes.ts); then the answer is returned instead of the lock. A
 * waiter that gets the lock first takes its change back, to apply itself.
 */
export async function claimLockOrAnswer(options: LockOptions, change: WaitingChange): Promise<ClaimedWith | Answered> {
  return (await takeLock(options, change)) as ClaimedWith | Answered;
}

// Our change, read where it waits: the answer when a holder gave one.
function answerAt(options: LockOptions, changePath: string | undefined): Answered | undefined {
  if (changePath === undefined) return undefined;
  const file = readChangeFile(options.port, changePath);
  return file?.kind === 'answered' ? { answered: file.result } : undefined;
}

// Where our change waits beside our ticket, or undefined when it could not be left there (then we simply wait).
function leaveChangeBeside(options: LockOptions, ticket: Ticket, change: WaitingChange): string | undefined {
  const path = changePathOf(ticketPathOf(options, ticket));
  try {
    leaveChange(options.port, path, change);
    return path;
  } catch {
    dropChange(options.port, path);
    return undefined;
  }
}

// What we hold once the lock is ours: the answer a holder gave our change meanwhile (then the lock goes back),
// or the lock with any answer a holder prepared for it.
function heldOrAnswered(options: LockOptions, lock: LockHandle, change: WaitingChange | undefined, changePath: string | undefined): LockHandle | ClaimedWith | Answered {
  if (change === undefined) return lock;
  // Nobody can answer our change while we hold the lock: it is answered now or never was.
  const left = changePath === undefined ? undefined : readChangeFile(options.port, changePath);
  if (left?.kind === 'answered') {
    releaseLock(options.port, lock);
    return { answered: left.result };
  }
  return left?.kind === 'prepared' ? { lock, prepared: { commit: left.commit, result: left.result } } : { lock };
}

async function takeLock(options: LockOptions, change: WaitingChange | undefined): Promise<LockHandle | ClaimedWith | Answered> {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? LOCK_TIMEOUT_MS;
  const progress = new Progress(now);
  const seen: Seen = {};
  let staged: Staged | undefined;
  let ticket: Ticket | undefined;
  let changePath: string | undefined;
  let isQueueUsable = true;
  let wasFreeAtLastPoll = false;
  // With nobody queued, try the lock at once; otherwise take a ticket behind them.
  let mayContend = !hasWaiters(options);
  const isAnswered = (): boolean => answerAt(options, changePath) !== undefined;
  try {
    for (;;) {
      const answered = answerAt(options, changePath);
      if (answered) return answered;
      if (mayContend) {
        staged ??= stageStamp(options, options.lockPath, now());
        const linked = linkStaged(options, options.lockPath, staged, now());
        if (linked === 'restage') staged = undefined;
        else if (linked) {
          staged = undefined;
          return heldOrAnswered(options, linked, change, changePath);
        }
        const verdict = displaceIfAbandoned(options, now, seen);
        if (verdict === 'displaced' || verdict === 'vanished') continue;
        progress.see(verdict.key, verdict.holder);
      } else {
        const holding = peekHolding(options);
        progress.see(holding.key, holding.holder);
      }
      if (progress.heldForMs() >= timeoutMs) {
        // A change answered meanwhile is committed: reporting a timeout would invite a second send.
        const lastAnswer = answerAt(options, changePath);
        if (lastAnswer) return lastAnswer;
        throw stuckFault(options, timeoutMs, progress);
      }
      if (ticket === undefined && isQueueUsable) {
        ticket = takeTicket(options, now());
        isQueueUsable = ticket !== undefined;
        if (ticket !== undefined && change !== undefined) changePath = leaveChangeBeside(options, ticket, change);
      }
      if (ticket === undefined) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MIN_MS + Math.random() * POLL_JITTER_MS));
        mayContend = true;
        continue;
      }
      refreshLock(options.port, ticket.handle, now()); // a long wait stays fresh for judges on other machines
      const ahead = ticketAhead(options, ticket, now());
      if (ahead === undefined) {
        // First in line: a waiter that just got here tries at once, then sleeps until the holder lets go.
        if (mayContend) await sleepUntilChanged(options, options.lockPath, HEAD_POLL_MS, changePath, isAnswered);
        mayContend = true;
      } else {
        const pollMs = QUEUE_POLL_MS * Math.min(ahead.count, QUEUE_POLL_STEPS);
        const isWoken = await sleepUntilChanged(options, ahead.path, pollMs + Math.random() * pollMs / 4, changePath, isAnswered);
        const isFree = !isWoken && isLockFree(options);
        mayContend = isFree && wasFreeAtLastPoll;
        wasFreeAtLastPoll = isFree;
      }
    }
  } finally {
    if (changePath) dropChange(options.port, changePath);
    if (ticket) leaveQueue(options.port, ticket);
    if (staged) discardStaged(options.port, staged);
  }
}
