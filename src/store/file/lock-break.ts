// Judging the lock a waiter finds, and removing it when its holder is gone.
// Breakers are serialised by a second lock, the breaker file, so the file a
// breaker checked is the file it removes.
import { randomHex } from '../../process/crypto';
import { basename, dirname, join } from 'node:path';
import { errnoOf, FsPort, unlinkQuietly } from '../../files/fs-port';
import { unwritable } from '../../files/faults';
import { removeLeftovers } from '../../local/leftovers';
import { isPidAlive } from '../../process/liveness';
import { isAbandoned, isLocalStamp, LockHandle, LockOptions, LockOwner, stampAgeMs } from './lock-stamp';
import { discardStaged, isSameLockFile, linkStaged, LockFile, readLockFile, releaseLock, stageStamp } from './lock-file';

// A lock file judged to have a live holder is judged again after this long.
const RECHECK_MS = 20;

/** What a waiter found: the live holder (undefined when its stamp is unreadable), or that the lock is gone. */
export type Verdict = { holder: LockOwner | undefined; key: string } | 'displaced' | 'vanished';

/** The lock file a waiter last judged to have a live holder, and when. */
export interface Seen {
  lock?: { ino: number; mtimeMs: number; at: number; verdict: Verdict };
}

/** Which holding a lock file is: its token, or for a stamp without one its inode and bytes. */
function holdingKeyOf(file: LockFile): string {
  return file.owner?.token ?? `${file.ino}:${file.bytes.toString('base64')}`;
}

/**
 * Looks at the current lock. Returns 'displaced' when it removed an abandoned
 * lock, 'vanished' when the lock disappeared meanwhile, else the live holder.
 * A lock file (same inode and mtime) judged live less than RECHECK_MS ago is
 * not read and judged again: a poll then costs one stat, and a holder that
 * dies is still found out within RECHECK_MS plus a poll. The shortcut only
 * ever delays a takeover; it never causes one.
 */
export function displaceIfAbandoned(options: LockOptions, now: () => number, seen: Seen): Verdict {
  const { port, lockPath } = options;
  let file: LockFile | undefined;
  try {
    const last = seen.lock;
    if (last) {
      const stat = port.statIfExists(lockPath);
      if (stat === undefined) return 'vanished';
      if (stat.ino === last.ino && stat.mtimeMs === last.mtimeMs && now() - last.at < RECHECK_MS) return last.verdict;
    }
    file = readLockFile(port, lockPath);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return 'vanished';
    throw unwritable('read the lock', lockPath, err);
  }
  if (file === undefined) return 'vanished';
  const at = now();
  const verdict = { holder: file.owner, key: holdingKeyOf(file) };
  if (!isAbandoned(options, file.owner, file, at)) {
    seen.lock = { ino: file.ino, mtimeMs: file.mtimeMs, at, verdict };
    return verdict;
  }
  seen.lock = undefined;
  return breakLock(options, file, now) ? 'displaced' : verdict;
}

/**
 * Removes an abandoned lock. Only the holder of the breaker file
 * `<lock>.break` may remove a lock, and it first reads the lock again and
 * checks that it is still the very file judged abandoned and still
 * abandoned. Nobody else removes a lock whose holder is gone (a holder only
 * removes its own), so the file checked is the file unlinked, and a lock
 * created by a newcomer after the break is never removed by a second breaker
 * acting on an old judgement. Residual risk, named here: a holder judged by
 * age (in another namespace or on another machine) that was only stalled for
 * LOCK_STALE_MS, not dead, still runs; the commit fence in store.ts stops its
 * save from overwriting the newcomer's.
 */
function breakLock(options: LockOptions, judged: LockFile, now: () => number): boolean {
  const { port, lockPath } = options;
  const breakerPath = `${lockPath}.break`;
  const breaker = claimBreaker(options, breakerPath, now);
  if (!breaker) return false;
  try {
    let current: LockFile | undefined;
    try {
      current = readLockFile(port, lockPath);
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') return true;
      throw unwritable('read the lock', lockPath, err);
    }
    if (current === undefined) return true; // released meanwhile: retry the create
    if (!isSameLockFile(current, judged) || !isAbandoned(options, current.owner, current, now())) return false;
    try {
      port.unlinkSync(lockPath);
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT') throw unwritable('break the lock', lockPath, err);
    }
    const { owner } = judged;
    // A break is rare: the moment to clear the dead holder's temp files (only
    // a holder of our namespace: a pid elsewhere names another process here),
    // and older leftovers of any other dead process too.
    removeLeftovers({
      port, stateDir: dirname(lockPath), isPidAlive: options.isPidAlive ?? isPidAlive, now: Date.now(),
      deadHolderPid: owner && owner.pid > 0 && owner.pid !== process.pid && isLocalStamp(options, owner) ? owner.pid : undefined,
    });
    return true;
  } finally {
    releaseLock(port, breaker);
  }
}

/**
 * Takes the breaker file, or returns undefined when another breaker holds it.
 * A breaker file whose holder is gone (a breaker killed mid-break) is moved
 * aside, checked, and deleted; the claim is tried again at the next poll.
 */
function claimBreaker(options: LockOptions, breakerPath: string, now: () => number): LockHandle | undefined {
  const { port } = options;
  const staged = stageStamp(options, breakerPath, now());
  let handle: LockHandle | undefined;
  try {
    const linked = linkStaged(options, breakerPath, staged, now());
    handle = linked === 'restage' ? undefined : linked;
  } finally {
    if (!handle) discardStaged(port, staged);
  }
  if (handle) return handle;
  let file: LockFile | undefined;
  try {
    file = readLockFile(port, breakerPath);
  } catch {
    return undefined;
  }
  if (file && isAbandoned(options, file.owner, file, now())) removeAbandonedBreaker(port, breakerPath, file);
  return undefined;
}

// Moves a dead breaker's file aside under a unique name, deletes it if it is
// the file judged, and otherwise links it back (`link` refuses to overwrite,
// so a breaker that started meanwhile keeps its file). Reaching this needs a
// breaker killed inside its break, which lasts microseconds.
function removeAbandonedBreaker(port: FsPort, breakerPath: string, judged: LockFile): void {
  const aside = join(dirname(breakerPath), `${basename(breakerPath)}.${process.pid}.${randomHex(4)}.stale`);
  try {
    port.renameSync(breakerPath, aside);
  } catch {
    return;
  }
  let moved: LockFile | undefined;
  try {
    moved = readLockFile(port, aside);
  } catch {
    moved = undefined;
  }
  if (!moved || !isSameLockFile(moved, judged)) {
    try {
      port.linkSync(aside, breakerPath);
    } catch {
      // taken again: the newer breaker keeps its own file
    }
  }
  unlinkQuietly(port, aside);
}

/** How the lock looks to a judge right now, for `doctor`. */
export interface LockInspection {
  owner: LockOwner | undefined;
  /** ms since the stamp (or the file's mtime) was last written, a time from the future left out (stampAgeMs) */
  ageMs: number;
  isAbandoned: boolean;
  /** whether the holder is in our namespace, so liveness (not age) decided */
  isLocal: boolean;
}

/** Reads and judges the lock, or undefined when it is free. */
export function inspectLock(options: LockOptions): LockInspection | undefined {
  const file = readLockFile(options.port, options.lockPath);
  if (!file) return undefined;
  const at = (options.now ?? Date.now)();
  return {
    owner: file.owner,
    ageMs: stampAgeMs(file.owner, file, at),
    isAbandoned: isAbandoned(options, file.owner, file, at),
    isLocal: file.owner !== undefined && isLocalStamp(options, file.owner),
  };
}

/** Removes the lock if, judged now, it is abandoned, by the same serialised break as a waiter. */
export function breakAbandonedLock(options: LockOptions): boolean {
  const now = options.now ?? Date.now;
  const file = readLockFile(options.port, options.lockPath);
  if (!file || !isAbandoned(options, file.owner, file, now())) return false;
  return breakLock(options, file, now);
}
