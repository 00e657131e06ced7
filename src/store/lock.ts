// The cross-process state lock: `.state.lock` created with O_EXCL ("wx") and
// stamped with an owner token. Liveness, not age, decides whether a holder on
// this host may lose its lock; age is only the fallback for other hosts.
import { randomHex } from './crypto';
import { basename, dirname, join } from 'node:path';
import { errnoOf, FsPort, tryReadFile, unlinkQuietly, writeAll } from './fs-port';
import { StoreFault, unwritable } from './faults';
import { removeLeftovers } from './leftovers';

/** Give up waiting for the lock after this long. */
export const LOCK_TIMEOUT_MS = 5_000;
/** A holder on another host whose stamp is older than this is presumed gone. */
export const LOCK_STALE_MS = 15_000;
/** A long holder re-stamps `t` this often, so peers on other hosts never judge it stale. */
export const LOCK_REFRESH_MS = 4_000;
const POLL_MIN_MS = 5;
// A waiter that holds the turn polls faster: everyone else is standing back.
const TURN_POLL_MS = 1;
const STARVING_AFTER_MS = 25;
// A turn older than this is ignored: its writer gave up or lost track of it.
const TURN_TTL_MS = 2_000;
const POLL_JITTER_MS = 5;
// A lock file judged to have a live holder is judged again after this long.
const RECHECK_MS = 20;

// The tokens of the locks this process holds right now (several stores in one
// process may each hold a lock of their own project). A lock stamped with our
// own pid and host but none of these tokens was left by an earlier process
// that had our pid (a container restarted after a crash often gets the same
// pid): its holder is gone, however alive "our" pid looks.
const HELD_TOKENS = new Set<string>();

/** What `.state.lock` holds. */
export interface LockOwner {
  pid: number;
  host: string;
  t: number;
  token: string;
}

/** A held lock. Only `releaseLock` and `refreshLock` should touch it. */
export interface LockHandle {
  readonly path: string;
  readonly owner: LockOwner;
  fd: number | undefined;
  stampedAt: number;
}

export interface LockOptions {
  port: FsPort;
  lockPath: string;
  host: string;
  timeoutMs?: number;
  now?: () => number;
  /** Tells whether a pid on this host is alive; injectable for tests. */
  isPidAlive?: (pid: number) => boolean;
}

/** Whether `pid` names a live process on this host. EPERM means alive but not ours. */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoOf(err) !== 'ESRCH';
  }
}

/** Parses lock file bytes into an owner, or undefined when they are not a complete stamp. */
export function parseLockOwner(bytes: Buffer): LockOwner | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const o = value as Partial<LockOwner> | null;
  if (!o || typeof o !== 'object') return undefined;
  if (!Number.isSafeInteger(o.pid) || typeof o.host !== 'string' || typeof o.t !== 'number' || typeof o.token !== 'string') {
    return undefined;
  }
  return { pid: o.pid as number, host: o.host, t: o.t, token: o.token };
}

/**
 * Takes the lock, waiting without blocking the event loop. A holder that is
 * dead on this host is displaced at once; a live one never is. Throws
 * `state_unwritable` for any open error other than EEXIST, and `lock_timeout`
 * (naming the file and the holder's pid) when the wait runs out.
 */
export async function claimLock(options: LockOptions): Promise<LockHandle> {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? LOCK_TIMEOUT_MS;
  const startedAt = now();
  const deadline = startedAt + timeoutMs;
  const turn = new Turn(options, now);
  const seen: Seen = {};
  try {
    for (;;) {
      const mayClaim = turn.mayClaim();
      if (mayClaim) {
        const handle = tryCreateLock(options, now);
        if (handle) return handle;
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
      fd = port.openSync(this.path, 'wx', 0o644);
    } catch {
      return; // someone else queued first, or the directory is read-only; both are fine
    }
    try {
      this.token ??= randomHex(16);
      const owner: LockOwner = { pid: process.pid, host: this.options.host, t: this.now(), token: this.token };
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
    if (other.host === this.options.host && !(this.options.isPidAlive ?? isPidAlive)(other.pid)) return undefined;
    return other;
  }
}

function tryCreateLock(options: LockOptions, now: () => number): LockHandle | undefined {
  const { port, lockPath } = options;
  let fd: number;
  try {
    fd = port.openSync(lockPath, 'wx', 0o644);
  } catch (err) {
    const code = errnoOf(err);
    if (code === 'EEXIST') return undefined;
    if (code === 'ENOENT') {
      // the state directory is missing (first use, or removed under us)
      try {
        port.mkdirSync(dirname(lockPath), { recursive: true });
      } catch (mkdirErr) {
        throw unwritable('create the directory of', lockPath, mkdirErr);
      }
      return tryCreateLock(options, now);
    }
    throw unwritable('create the lock', lockPath, err);
  }
  const owner: LockOwner = { pid: process.pid, host: options.host, t: now(), token: randomHex(16) };
  const handle: LockHandle = { path: lockPath, owner, fd, stampedAt: owner.t };
  HELD_TOKENS.add(owner.token);
  try {
    writeAll(port, fd, Buffer.from(JSON.stringify(owner)), 0);
  } catch (err) {
    // the lock is ours and empty; give it back before reporting
    try {
      port.closeSync(fd);
    } catch {
      // keep the write error
    }
    unlinkQuietly(port, lockPath);
    HELD_TOKENS.delete(owner.token);
    throw unwritable('write the lock', lockPath, err);
  }
  return handle;
}

type Verdict = LockOwner | undefined | 'displaced' | 'vanished';

/** The lock file a waiter last judged to have a live holder, and when. */
interface Seen {
  lock?: { ino: number; mtimeMs: number; at: number; owner: LockOwner | undefined };
}

// Looks at the current lock. Returns 'displaced' when it removed an abandoned
// lock, 'vanished' when the lock disappeared meanwhile, else the live holder
// (undefined when its stamp is not readable yet). A lock file (same inode and
// mtime) judged live less than RECHECK_MS ago is not read and judged again:
// under contention the waiters' polls then cost one stat each, and a holder
// that dies is still found out within RECHECK_MS plus a poll. The shortcut
// only ever delays a takeover; it never causes one.
function displaceIfAbandoned(options: LockOptions, now: () => number, seen: Seen): Verdict {
  const { port, lockPath } = options;
  let bytes: Buffer | undefined;
  let stat: ReturnType<FsPort['statSync']> | undefined;
  try {
    const last = seen.lock;
    if (last) {
      stat = port.statIfExists(lockPath);
      if (stat === undefined) return 'vanished';
      if (stat.ino === last.ino && stat.mtimeMs === last.mtimeMs && now() - last.at < RECHECK_MS) return last.owner;
    }
    bytes = tryReadFile(port, lockPath);
    if (bytes === undefined) return 'vanished';
    stat = port.statSync(lockPath);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return 'vanished';
    throw unwritable('read the lock', lockPath, err);
  }
  const owner = parseLockOwner(bytes);
  const at = now();
  if (!isAbandoned(options, owner, stat.mtimeMs, at)) {
    seen.lock = { ino: stat.ino, mtimeMs: stat.mtimeMs, at, owner };
    return owner;
  }
  seen.lock = undefined;
  return breakLock(options, { bytes, owner, ino: stat.ino, mtimeMs: stat.mtimeMs }) ? 'displaced' : owner;
}

function isAbandoned(options: LockOptions, owner: LockOwner | undefined, mtimeMs: number, at: number): boolean {
  if (owner && owner.host === options.host) {
    if (owner.pid === process.pid) return !HELD_TOKENS.has(owner.token);
    // A pid reused by an unrelated live process keeps the lock held until it
    // exits; we accept a lock_timeout over ever stealing from a live holder.
    return !(options.isPidAlive ?? isPidAlive)(owner.pid);
  }
  // Another host (or a stamp still being written): only age can tell.
  const stampedAt = Math.max(owner?.t ?? 0, mtimeMs);
  return at - stampedAt > LOCK_STALE_MS;
}

/** The lock file as it was when judged abandoned. */
interface JudgedLock {
  bytes: Buffer;
  owner: LockOwner | undefined;
  ino: number;
  mtimeMs: number;
}

function isJudgedLock(port: FsPort, path: string, judged: JudgedLock): boolean {
  let moved: Buffer | undefined;
  try {
    moved = tryReadFile(port, path);
    if (moved === undefined) return false;
    if (judged.owner) return parseLockOwner(moved)?.token === judged.owner.token;
    const stat = port.statSync(path);
    return moved.equals(judged.bytes) && stat.ino === judged.ino && stat.mtimeMs === judged.mtimeMs;
  } catch {
    return false;
  }
}

// Moves the abandoned lock aside under a unique name, then checks that what
// was moved is the very lock judged abandoned: the same owner token, or, for a
// lock never stamped (its holder died between the create and the stamp), the
// same bytes, inode and mtime, since a peer's brand-new lock is empty too and
// may even reuse the freed inode, but never has a mtime old enough to have
// been judged stale. If a newer lock was moved instead, it is linked back;
// `link` refuses to overwrite, so a third process that created a lock in
// between keeps its own. Remaining window: while the
// newer lock is aside (between our rename and our link), a third process can
// create a fresh lock; the link then fails and the newer holder runs without a
// file, so two holders can overlap once. It needs three contenders and a
// dead holder at the same instant.
function breakLock(options: LockOptions, judged: JudgedLock): boolean {
  const { port, lockPath } = options;
  const aside = join(dirname(lockPath), `${basename(lockPath)}.${process.pid}.${randomHex(4)}.stale`);
  try {
    port.renameSync(lockPath, aside);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return true; // someone else removed it; retry the create
    throw unwritable('break the lock', lockPath, err);
  }
  const { owner } = judged;
  if (isJudgedLock(port, aside, judged)) {
    unlinkQuietly(port, aside);
    // A break is rare: the moment to clear the dead holder's temp files, and
    // older leftovers of any other dead process too.
    removeLeftovers({
      port, stateDir: dirname(lockPath), isPidAlive: options.isPidAlive ?? isPidAlive, now: Date.now(),
      deadHolderPid: owner && owner.host === options.host ? owner.pid : undefined,
    });
    return true;
  }
  try {
    port.linkSync(aside, lockPath);
  } catch {
    // the path is taken again (the window named above); nothing safe to do
  }
  unlinkQuietly(port, aside);
  return false;
}

/** Re-stamps `t` when the last stamp is older than LOCK_REFRESH_MS; a no-op otherwise. */
export function refreshLock(port: FsPort, handle: LockHandle, at: number): void {
  if (handle.fd === undefined || at - handle.stampedAt < LOCK_REFRESH_MS) return;
  const owner: LockOwner = { ...handle.owner, t: at };
  const bytes = Buffer.from(JSON.stringify(owner));
  try {
    port.ftruncateSync(handle.fd, 0);
    writeAll(port, handle.fd, bytes, 0);
    handle.stampedAt = at;
  } catch {
    // a failed re-stamp only matters to peers on other hosts; the save itself reports real I/O trouble
  }
}

/**
 * Releases the lock if the file still holds our token; a lock that is no
 * longer ours is left alone. Never throws. Residual window: between our read
 * and our unlink another host could judge us stale and replace the file.
 */
export function releaseLock(port: FsPort, handle: LockHandle): void {
  HELD_TOKENS.delete(handle.owner.token);
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
