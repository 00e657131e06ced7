// The stamp in `.state.lock` (and in the breaker file and the waiters'
// tickets) and the judgement of its holder. Liveness, not age, decides
// whether a holder in our own pid namespace is gone; age is only the fallback
// for holders elsewhere (another machine, another container).
import { processStartEpochMs, processStartTicks, ProcessPlace, thisProcessPlace } from '../../process/place';
import { isPidAlive } from '../../process/liveness';
import { isBelievableTime } from '../../engine/times';
import type { FsPort } from '../../files/fs-port';

export { LOCK_TIMEOUT_MS } from '../limits';
/** A holder elsewhere (another machine or pid namespace) whose stamp is older than this is presumed gone. */
export const LOCK_STALE_MS = 15_000;
/** A long holder re-stamps `t` this often, so peers elsewhere never judge it stale. */
export const LOCK_REFRESH_MS = 4_000;
/**
 * An empty lock file older than this is abandoned. This build never leaves
 * one (the stamp is linked into place whole); older builds did for a few ms.
 */
export const EMPTY_LOCK_STALE_MS = 2_000;
// /proc gives boot time in whole seconds: a live pid whose process started more
// than this after a stamp without `start` was written is a reused pid.
const START_SLACK_MS = 1_500;

// The tokens this process holds right now: its locks (several stores in one
// process may each hold a lock of their own project) and its waiting
// tickets. A stamp with our own pid but none of these tokens was left by an
// earlier process that had our pid (a container restarted after a crash often
// gets the same pid): its holder is gone, however alive "our" pid looks.
const HELD_TOKENS = new Set<string>();

/** Marks a token as held by this process (before its file can be seen), or no longer held. */
export function markHeld(token: string, isHeld: boolean): void {
  if (isHeld) HELD_TOKENS.add(token);
  else HELD_TOKENS.delete(token);
}

/** What `.state.lock` holds. `token`, `ns` and `start` are absent in the documented three-field stamp. */
export interface LockOwner {
  pid: number;
  host: string;
  t: number;
  token?: string;
  /** `<boot id>/<pid namespace id>` of the holder (process/place.ts). */
  ns?: string;
  /** The holder's start time in clock ticks since boot. */
  start?: number;
}

/** A held lock. Only `releaseLock` and `refreshLock` should touch it. */
export interface LockHandle {
  readonly path: string;
  readonly owner: LockOwner;
  fd: number | undefined;
  stampedAt: number;
}

/** When a pid on this machine started: ticks since boot, or epoch ms (about a second's accuracy). */
export type ProcessStartOf = (pid: number, unit: 'ticks' | 'epoch_ms') => number | undefined;

/** Wakes `onChange` when the file or folder at a path changes; undefined when it cannot watch (then waiters poll). */
export type WatchPath = (path: string, onChange: () => void) => { close(): void } | undefined;

export interface LockOptions {
  port: FsPort;
  lockPath: string;
  host: string;
  /** Give up once one holder has kept the lock this long without a release (LOCK_TIMEOUT_MS by default). */
  timeoutMs?: number;
  now?: () => number;
  /** Tells whether a pid in our namespace is alive; injectable for tests. */
  isPidAlive?: (pid: number) => boolean;
  /** This process's place (machine and pid namespace); read from /proc by default. */
  place?: ProcessPlace;
  /** Start times of local pids; read from /proc by default when /proc shows our namespace. */
  processStart?: ProcessStartOf;
  /** How a waiter sleeps until the file ahead of it goes; node:fs watch by default. */
  watch?: WatchPath;
}

function defaultProcessStart(place: ProcessPlace): ProcessStartOf {
  if (!place.isProcOurs) return () => undefined;
  return (pid, unit) => (unit === 'ticks' ? processStartTicks(pid) : processStartEpochMs(pid));
}

/** Parses lock file bytes into an owner, or undefined when they are not at least the three-field stamp. */
export function parseLockOwner(bytes: Buffer): LockOwner | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const o = value as Partial<LockOwner> | null;
  if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
  if (!Number.isSafeInteger(o.pid) || typeof o.host !== 'string' || typeof o.t !== 'number' || !Number.isFinite(o.t)) return undefined;
  const owner: LockOwner = { pid: o.pid as number, host: o.host, t: o.t };
  if (typeof o.token === 'string') owner.token = o.token;
  if (typeof o.ns === 'string') owner.ns = o.ns;
  if (Number.isSafeInteger(o.start)) owner.start = o.start;
  return owner;
}

/** This process's stamp at `t` with `token`. */
export function stampFor(options: LockOptions, t: number, token: string): LockOwner {
  const place = options.place ?? thisProcessPlace();
  const owner: LockOwner = { pid: process.pid, host: options.host, t, token };
  if (place.ns !== undefined) owner.ns = place.ns;
  if (place.start !== undefined) owner.start = place.start;
  return owner;
}

/**
 * Whether a stamp was written in our own pid namespace on this machine, where
 * `kill(pid, 0)` reaches the very process it names. A stamp without `ns`
 * (the documented three-field stamp, or an older build) from our host counts
 * as ours; one carrying another namespace never does, whatever its host says.
 */
export function isSameNamespace(owner: LockOwner, host: string, place: ProcessPlace): boolean {
  if (owner.host !== host) return false;
  return owner.ns === undefined || owner.ns === place.ns;
}

/** Whether a stamp comes from our own namespace, judged with the options' place. */
export function isLocalStamp(options: LockOptions, owner: LockOwner): boolean {
  return isSameNamespace(owner, options.host, options.place ?? thisProcessPlace());
}

/**
 * How long ago a stamped file was last written, as far as a judge can
 * believe it: since the newer of the stamp's `t` and the file's mtime,
 * leaving out either one that is from the future (written by hand or by a
 * clock far ahead: engine isBelievableTime); Infinity when both are. A
 * committed lock or ticket with a `t` far ahead so ages by its mtime, the
 * time of its checkout, like any file left there.
 */
export function stampAgeMs(owner: LockOwner | undefined, file: { mtimeMs: number }, at: number): number {
  const times = [owner?.t, file.mtimeMs].filter((t): t is number => t !== undefined && isBelievableTime(t, at));
  return times.length === 0 ? Number.POSITIVE_INFINITY : at - Math.max(...times);
}

/**
 * Whether the holder a stamp from our own namespace names is gone: its pid
 * names no single process (0, negative), it is our pid without a token this
 * process holds, it is dead, or it now belongs to a process that started
 * after the stamp was written (a reused pid; judged without `start` only
 * by a time not from the future, and gone when it has none).
 */
function isLocalHolderGone(options: LockOptions, owner: LockOwner, file: { mtimeMs: number }, at: number): boolean {
  if (!(owner.pid > 0)) return true;
  if (owner.pid === process.pid) return !(owner.token !== undefined && HELD_TOKENS.has(owner.token));
  if (!(options.isPidAlive ?? isPidAlive)(owner.pid)) return true;
  const startOf = options.processStart ?? defaultProcessStart(options.place ?? thisProcessPlace());
  if (owner.start !== undefined) {
    const ticks = startOf(owner.pid, 'ticks');
    return ticks !== undefined && ticks !== owner.start;
  }
  const startedAt = startOf(owner.pid, 'epoch_ms');
  if (startedAt === undefined) return false;
  // When the stamp says it was written; its file's mtime in place of a `t` from the future.
  const written = [owner.t, file.mtimeMs].find((t) => isBelievableTime(t, at));
  return written === undefined || startedAt > written + START_SLACK_MS;
}

/**
 * Whether a lock (or breaker, or ticket) file is abandoned at `at`. A stamp
 * from our own namespace is judged by its holder's liveness alone, however
 * old; any other by age (stampAgeMs, which leaves out a time from the
 * future) over LOCK_STALE_MS; a file that holds no stamp by its mtime alone
 * (EMPTY_LOCK_STALE_MS when it is empty).
 */
export function isAbandoned(options: LockOptions, owner: LockOwner | undefined, file: { mtimeMs: number; size: number }, at: number): boolean {
  if (!owner) return stampAgeMs(undefined, file, at) > (file.size === 0 ? EMPTY_LOCK_STALE_MS : LOCK_STALE_MS);
  if (isLocalStamp(options, owner)) return isLocalHolderGone(options, owner, file, at);
  return stampAgeMs(owner, file, at) > LOCK_STALE_MS;
}

/**
 * Whether a waiter's ticket is dead at `at`: judged as a lock is, except
 * that a ticket whose `t` is from the future is dead at once, whatever its
 * file's age. Dropping a live waiter's ticket only costs it its place (it
 * still waits, then takes the lock itself); keeping a planted one would
 * hold every burst behind it.
 */
export function isTicketAbandoned(options: LockOptions, owner: LockOwner | undefined, file: { mtimeMs: number; size: number }, at: number): boolean {
  if (owner !== undefined && !isBelievableTime(owner.t, at)) return true;
  return isAbandoned(options, owner, file, at);
}

/**
 * Whether a holder may apply the change waiting beside this ticket
 * (waiting-changes.ts): the ticket names a process of this very boot and pid
 * namespace (its `ns` equals ours, which a repository cannot know; where
 * there is no /proc, its host equals ours and it has no `ns` either), that
 * process is alive and is the one that wrote it (isLocalHolderGone), and its
 * stamp is neither from the future nor older than LOCK_STALE_MS (a waiter
 * re-stamps it every LOCK_REFRESH_MS). Any other ticket still keeps its
 * place, but its waiter applies its change itself.
 */
export function isServableTicket(options: LockOptions, owner: LockOwner | undefined, file: { mtimeMs: number }, at: number): boolean {
  if (owner === undefined || !isBelievableTime(owner.t, at) || at - owner.t > LOCK_STALE_MS) return false;
  const place = options.place ?? thisProcessPlace();
  if (owner.host !== options.host || owner.ns !== place.ns) return false;
  return !isLocalHolderGone(options, owner, file, at);
}
