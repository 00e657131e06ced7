// The cross-process state lock: `.state.lock`, stamped with its holder before
// it ever appears. A claimer writes its stamp to a private temp file and
// hard-links it into place; `link` fails if the name is taken, so the lock is
// exclusive like an O_EXCL create, and no lock file is ever empty (a holder
// that dies at any moment leaves a stamp naming it). Liveness, not age,
// decides whether a holder in our own pid namespace may lose its lock; age is
// only the fallback for holders elsewhere (another machine, another container).
import { randomHex } from '../process/crypto';
import { basename, dirname, join } from 'node:path';
import { checkOwnDir, ensureOwnDir, errnoOf, FsPort, openOwnFile, tryReadFile, unlinkQuietly, writeAll } from './fs-port';
import { StoreFault, unwritable } from './faults';
import { removeLeftovers } from './leftovers';
import { processStartEpochMs, processStartTicks, ProcessPlace, thisProcessPlace } from '../process/place';
import { isPidAlive } from '../process/liveness';

/** Give up waiting for the lock after this long. */
export const LOCK_TIMEOUT_MS = 5_000;
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
// A stamp staged this long ago is re-stamped before it is linked into place.
const RESTAMP_BEFORE_LINK_MS = 1_000;
const POLL_MIN_MS = 5;
// A waiter that holds the turn polls faster: everyone else is standing back.
const TURN_POLL_MS = 1;
const STARVING_AFTER_MS = 25;
// A turn older than this is ignored: its writer gave up or lost track of it.
const TURN_TTL_MS = 2_000;
const POLL_JITTER_MS = 5;
// A lock file judged to have a live holder is judged again after this long.
const RECHECK_MS = 20;
// Filesystems without hard links (FAT, some network mounts) say so with these;
// there the lock falls back to an O_EXCL create followed by the stamp.
const NO_LINK_CODES = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

// The tokens of the locks this process holds right now (several stores in one
// process may each hold a lock of their own project). A lock stamped with our
// own pid but none of these tokens was left by an earlier process that had
// our pid (a container restarted after a crash often gets the same pid): its
// holder is gone, however alive "our" pid looks.
const HELD_TOKENS = new Set<string>();

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

export interface LockOptions {
  port: FsPort;
  lockPath: string;
  host: string;
  timeoutMs?: number;
  now?: () => number;
  /** Tells whether a pid in our namespace is alive; injectable for tests. */
  isPidAlive?: (pid: number) => boolean;
  /** This process's place (machine and pid namespace); read from /proc by default. */
  place?: ProcessPlace;
  /** Start times of local pids; read from /proc by default when /proc shows our namespace. */
  processStart?: ProcessStartOf;
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

function stampFor(options: LockOptions, t: number, token: string): LockOwner {
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

/**
 * Whether the holder a stamp from our own namespace names is gone: its pid
 * names no single process (0, negative), it is our pid without a token this
 * process holds, it is dead, or it now belongs to a process that started
 * after the stamp was written (a reused pid).
 */
function isLocalHolderGone(options: LockOptions, owner: LockOwner): boolean {
  if (!(owner.pid > 0)) return true;
  if (owner.pid === process.pid) return !(owner.token !== undefined && HELD_TOKENS.has(owner.token));
  if (!(options.isPidAlive ?? isPidAlive)(owner.pid)) return true;
  const startOf = options.processStart ?? defaultProcessStart(options.place ?? thisProcessPlace());
  if (owner.start !== undefined) {
    const ticks = startOf(owner.pid, 'ticks');
    return ticks !== undefined && ticks !== owner.start;
  }
  const startedAt = startOf(owner.pid, 'epoch_ms');
  return startedAt !== undefined && startedAt > owner.t + START_SLACK_MS;
}

/**
 * Whether a lock (or breaker) file is abandoned at `at`. A stamp from our own
 * namespace is judged by its holder's liveness alone, however old; any other
 * by age: `max(t, mtime)` older than LOCK_STALE_MS, or, for a file that holds
 * no stamp at all, its mtime (EMPTY_LOCK_STALE_MS when it is empty).
 */
function isAbandoned(options: LockOptions, owner: LockOwner | undefined, file: { mtimeMs: number; size: number }, at: number): boolean {
  if (!owner) return at - file.mtimeMs > (file.size === 0 ? EMPTY_LOCK_STALE_MS : LOCK_STALE_MS);
  if (isSameNamespace(owner, options.host, options.place ?? thisProcessPlace())) return isLocalHolderGone(options, owner);
  return at - Math.max(owner.t, file.mtimeMs) > LOCK_STALE_MS;
}

/**
 * Takes the lock, waiting without blocking the event loop. A holder that is
 * gone from our namespace is displaced at once; a live one never is. Throws
 * `state_unwritable` for any file error other than a taken lock, and
 * `lock_timeout` (naming the file and the holder's pid) when the wait runs out.
 */
export async function claimLock(options: LockOptions): Promise<LockHandle> {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? LOCK_TIMEOUT_MS;
  const startedAt = now();
  const deadline = startedAt + timeoutMs;
  const turn = new Turn(options, now);
  const seen: Seen = {};
  let staged: Staged | undefined;
  try {
    for (;;) {
      const mayClaim = turn.mayClaim();
      if (mayClaim) {
        staged ??= stageStamp(options, options.lockPath, now());
        const linked = linkStaged(options, options.lockPath, staged, now());
        if (linked === 'restage') staged = undefined;
        else if (linked) {
          staged = undefined;
          return linked;
        }
      }
      const verdict = displaceIfAbandoned(options, now, seen);
      // Retry at once only when we may claim; a claimer standing back for
      // another's turn must sleep, or it would spin on a free lock.
      if (mayClaim && (verdict === 'displaced' || verdict === 'vanished')) continue;
      const holder = typeof verdict === 'string' ? undefined : verdict;
      if (now() >= deadline) {
        const who = holder ? `pid ${holder.pid} on ${holder.host}` : 'an unknown holder';
        throw new StoreFault('lock_timeout', `timed out after ${timeoutMs} ms waiting for ${options.lockPath}, held by ${who}`);
      }
      if (now() - startedAt >= STARVING_AFTER_MS) turn.request();
      const pause = turn.isMine ? TURN_POLL_MS : POLL_MIN_MS + Math.random() * POLL_JITTER_MS;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  } finally {
    turn.give();
    if (staged) discardStaged(options.port, staged);
  }
}

// Fairness. A process releasing the lock and claiming it again at once wins
// every race against waiters asleep in their poll, so a busy peer could starve
// them into lock_timeout. A waiter that has waited STARVING_AFTER_MS writes
// `<lock>.next` (O_EXCL, one at a time); every other claimer stands back while
// a live turn file names someone else. It is advisory only: mutual exclusion
// never depends on it, and a dead or expired turn is ignored and replaced.
// Residual race: a claimer that read "no turn" just before the file appeared
// may still win that one round.
class Turn {
  isMine = false;
  private readonly path: string;
  // Made when this claimer first asks for the turn: most claims never wait.
  private token: string | undefined;

  constructor(private readonly options: LockOptions, private readonly now: () => number) {
    this.path = `${options.lockPath}.next`;
  }

  mayClaim(): boolean {
    return this.isMine || this.readLive() === undefined;
  }

  request(): void {
    if (this.isMine) return;
    const { port } = this.options;
    if (this.readLive() !== undefined) return;
    // absent, expired or dead: an expired one is removed so a new turn can start
    unlinkQuietly(port, this.path);
    let fd: number;
    try {
      fd = openOwnFile(port, this.path, 'create');
    } catch {
      return; // someone else queued first, or the directory is read-only; both are fine
    }
    try {
      this.token ??= randomHex(16);
      const owner = stampFor(this.options, this.now(), this.token);
      writeAll(port, fd, Buffer.from(JSON.stringify(owner)), 0);
      this.isMine = true;
    } catch {
      unlinkQuietly(port, this.path);
    } finally {
      try {
        port.closeSync(fd);
      } catch {
        // advisory file; nothing depends on this close
      }
    }
  }

  give(): void {
    if (!this.isMine) return;
    this.isMine = false;
    try {
      const bytes = tryReadFile(this.options.port, this.path);
      if (bytes && parseLockOwner(bytes)?.token === this.token) unlinkQuietly(this.options.port, this.path);
    } catch {
      // an unreadable turn file expires on its own
    }
  }

  // The live turn holder other than us, or undefined when nobody (valid) waits.
  private readLive(): LockOwner | undefined {
    let bytes: Buffer | undefined;
    try {
      // Usually there is no turn file: a stat says so without the cost of a thrown ENOENT.
      if (this.options.port.statIfExists(this.path) === undefined) return undefined;
      bytes = tryReadFile(this.options.port, this.path);
    } catch {
      return undefined;
    }
    if (bytes === undefined) return undefined;
    const other = parseLockOwner(bytes);
    if (!other || (this.token !== undefined && other.token === this.token)) return undefined;
    const age = this.now() - other.t;
    if (age > TURN_TTL_MS || age < -TURN_TTL_MS) return undefined;
    const place = this.options.place ?? thisProcessPlace();
    if (isSameNamespace(other, this.options.host, place) && !(this.options.isPidAlive ?? isPidAlive)(other.pid)) return undefined;
    return other;
  }
}

/** A stamp written to a private temp file beside its target, waiting to be linked into place. */
interface Staged {
  temp: string;
  fd: number;
  owner: LockOwner;
}

/** `.state.lock` → `.state.lock.<pid>.<8 hex>.tmp`: the temp-file pattern the leftover sweep knows. */
function stagingPathFor(target: string): string {
  return join(dirname(target), `.${basename(target).replace(/^\./, '')}.${process.pid}.${randomHex(4)}.tmp`);
}

function stageStamp(options: LockOptions, target: string, at: number): Staged {
  const { port } = options;
  const dir = dirname(target);
  const temp = stagingPathFor(target);
  let fd: number;
  try {
    // a linked or foreign .opencomms/ is refused here, before anything is written through it
    if (!checkOwnDir(port, dir, true)) ensureOwnDir(port, dir); // first use, or removed under us
    fd = openOwnFile(port, temp, 'create');
  } catch (err) {
    if (err instanceof StoreFault) throw err;
    throw unwritable('create the lock', target, err);
  }
  const owner = stampFor(options, at, randomHex(16));
  try {
    writeAll(port, fd, Buffer.from(JSON.stringify(owner)), 0);
  } catch (err) {
    discardStaged(port, { temp, fd, owner });
    throw unwritable('write the lock', target, err);
  }
  return { temp, fd, owner };
}

function discardStaged(port: FsPort, staged: Staged): void {
  try {
    port.closeSync(staged.fd);
  } catch {
    // the descriptor is gone either way
  }
  unlinkQuietly(port, staged.temp);
}

// Rewrites a stamp in place: the new bytes first, then the length, so a
// reader never finds the file empty.
function restamp(port: FsPort, fd: number, owner: LockOwner): void {
  const bytes = Buffer.from(JSON.stringify(owner));
  writeAll(port, fd, bytes, 0);
  port.ftruncateSync(fd, bytes.length);
}

/**
 * Links a staged stamp into place as `target`. Returns the handle, undefined
 * when the target is taken, or 'restage' when the staged file is gone.
 */
function linkStaged(options: LockOptions, target: string, staged: Staged, at: number): LockHandle | undefined | 'restage' {
  const { port } = options;
  if (at - staged.owner.t >= RESTAMP_BEFORE_LINK_MS) {
    staged.owner.t = at;
    try {
      restamp(port, staged.fd, staged.owner);
    } catch (err) {
      throw unwritable('write the lock', target, err);
    }
  }
  const token = staged.owner.token as string;
  // Known before the lock can be seen, so a judge in this very process never takes it for a dead pid's.
  HELD_TOKENS.add(token);
  try {
    port.linkSync(staged.temp, target);
  } catch (err) {
    HELD_TOKENS.delete(token);
    const code = errnoOf(err);
    if (code === 'EEXIST') return undefined;
    if (code === 'ENOENT') {
      discardStaged(port, staged);
      return 'restage';
    }
    if (code !== undefined && NO_LINK_CODES.has(code)) return createWithoutLink(options, target, staged);
    throw unwritable('create the lock', target, err);
  }
  unlinkQuietly(port, staged.temp);
  return { path: target, owner: staged.owner, fd: staged.fd, stampedAt: staged.owner.t };
}

// The fallback where hard links are unsupported: an O_EXCL create, then the
// stamp. A holder killed between the two leaves an empty lock, which waiters
// break after EMPTY_LOCK_STALE_MS.
function createWithoutLink(options: LockOptions, target: string, staged: Staged): LockHandle | undefined {
  const { port } = options;
  discardStaged(port, staged);
  let fd: number;
  try {
    fd = openOwnFile(port, target, 'create');
  } catch (err) {
    if (errnoOf(err) === 'EEXIST') return undefined;
    if (err instanceof StoreFault) throw err;
    throw unwritable('create the lock', target, err);
  }
  const owner = stampFor(options, staged.owner.t, staged.owner.token as string);
  HELD_TOKENS.add(owner.token as string);
  try {
    writeAll(port, fd, Buffer.from(JSON.stringify(owner)), 0);
  } catch (err) {
    try {
      port.closeSync(fd);
    } catch {
      // keep the write error
    }
    unlinkQuietly(port, target);
    HELD_TOKENS.delete(owner.token as string);
    throw unwritable('write the lock', target, err);
  }
  return { path: target, owner, fd, stampedAt: owner.t };
}

type Verdict = LockOwner | undefined | 'displaced' | 'vanished';

/** The lock file a waiter last judged to have a live holder, and when. */
interface Seen {
  lock?: { ino: number; mtimeMs: number; at: number; owner: LockOwner | undefined };
}

/** A lock file as read: its bytes, parsed stamp and identity. */
interface LockFile {
  bytes: Buffer;
  owner: LockOwner | undefined;
  ino: number;
  mtimeMs: number;
  size: number;
}

function readLockFile(port: FsPort, path: string): LockFile | undefined {
  const bytes = tryReadFile(port, path);
  if (bytes === undefined) return undefined;
  const stat = port.statSync(path);
  return { bytes, owner: parseLockOwner(bytes), ino: stat.ino, mtimeMs: stat.mtimeMs, size: bytes.length };
}

// Looks at the current lock. Returns 'displaced' when it removed an abandoned
// lock, 'vanished' when the lock disappeared meanwhile, else the live holder
// (undefined when its stamp is unreadable). A lock file (same inode and
// mtime) judged live less than RECHECK_MS ago is not read and judged again:
// under contention the waiters' polls then cost one stat each, and a holder
// that dies is still found out within RECHECK_MS plus a poll. The shortcut
// only ever delays a takeover; it never causes one.
function displaceIfAbandoned(options: LockOptions, now: () => number, seen: Seen): Verdict {
  const { port, lockPath } = options;
  let file: LockFile | undefined;
  try {
    const last = seen.lock;
    if (last) {
      const stat = port.statIfExists(lockPath);
      if (stat === undefined) return 'vanished';
      if (stat.ino === last.ino && stat.mtimeMs === last.mtimeMs && now() - last.at < RECHECK_MS) return last.owner;
    }
    file = readLockFile(port, lockPath);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return 'vanished';
    throw unwritable('read the lock', lockPath, err);
  }
  if (file === undefined) return 'vanished';
  const at = now();
  if (!isAbandoned(options, file.owner, file, at)) {
    seen.lock = { ino: file.ino, mtimeMs: file.mtimeMs, at, owner: file.owner };
    return file.owner;
  }
  seen.lock = undefined;
  return breakLock(options, file, now) ? 'displaced' : file.owner;
}

/** Whether `current` is the very lock file judged: the same token, or for a stamp without one the same bytes, inode and mtime. */
function isSameLockFile(current: LockFile, judged: LockFile): boolean {
  if (judged.owner?.token !== undefined) return current.owner?.token === judged.owner.token;
  return current.bytes.equals(judged.bytes) && current.ino === judged.ino && current.mtimeMs === judged.mtimeMs;
}

/**
 * Removes an abandoned lock. Breakers are serialised: only the holder of the
 * breaker file `<lock>.break` may remove a lock, and it first reads the lock
 * again and checks that it is still the very file judged abandoned and still
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
    const place = options.place ?? thisProcessPlace();
    // A break is rare: the moment to clear the dead holder's temp files (only
    // a holder of our namespace: a pid elsewhere names another process here),
    // and older leftovers of any other dead process too.
    removeLeftovers({
      port, stateDir: dirname(lockPath), isPidAlive: options.isPidAlive ?? isPidAlive, now: Date.now(),
      deadHolderPid: owner && owner.pid > 0 && owner.pid !== process.pid && isSameNamespace(owner, options.host, place) ? owner.pid : undefined,
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
  /** ms since the stamp (or the file's mtime) was last written */
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
  const place = options.place ?? thisProcessPlace();
  return {
    owner: file.owner,
    ageMs: at - Math.max(file.owner?.t ?? 0, file.mtimeMs),
    isAbandoned: isAbandoned(options, file.owner, file, at),
    isLocal: file.owner !== undefined && isSameNamespace(file.owner, options.host, place),
  };
}

/** Removes the lock if, judged now, it is abandoned, by the same serialised break as a waiter. */
export function breakAbandonedLock(options: LockOptions): boolean {
  const now = options.now ?? Date.now;
  const file = readLockFile(options.port, options.lockPath);
  if (!file || !isAbandoned(options, file.owner, file, now())) return false;
  return breakLock(options, file, now);
}

/** Re-stamps `t` when the last stamp is older than LOCK_REFRESH_MS; a no-op otherwise. */
export function refreshLock(port: FsPort, handle: LockHandle, at: number): void {
  if (handle.fd === undefined || at - handle.stampedAt < LOCK_REFRESH_MS) return;
  try {
    restamp(port, handle.fd, { ...handle.owner, t: at });
    handle.stampedAt = at;
  } catch {
    // a failed re-stamp only matters to peers on other hosts; the save itself reports real I/O trouble
  }
}

/**
 * Releases the lock if the file still holds our token; a lock that is no
 * longer ours is left alone. Never throws. Residual window: between our read
 * and our unlink a judge elsewhere could take us for stale (we held the lock
 * for LOCK_STALE_MS without a re-stamp) and replace the file.
 */
export function releaseLock(port: FsPort, handle: LockHandle): void {
  if (handle.owner.token !== undefined) HELD_TOKENS.delete(handle.owner.token);
  if (handle.fd !== undefined) {
    try {
      port.closeSync(handle.fd);
    } catch {
      // the descriptor is gone either way
    }
    handle.fd = undefined;
  }
  let bytes: Buffer | undefined;
  try {
    bytes = tryReadFile(port, handle.path);
  } catch {
    return;
  }
  if (bytes !== undefined && parseLockOwner(bytes)?.token === handle.owner.token) unlinkQuietly(port, handle.path);
}
