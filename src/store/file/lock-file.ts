// One stamped file claimed exclusively: the lock, the breaker file and a
// waiter's ticket are all made the same way. The claimer writes its stamp to
// a private temp file and hard-links it into place; `link` fails if the name
// is taken, so the claim is exclusive like an O_EXCL create, and no such file
// is ever empty (a holder that dies at any moment leaves a stamp naming it).
import { randomHex } from '../../process/crypto';
import { basename, dirname, join } from 'node:path';
import { tryReadFile } from '../../files/file-read';
import { errnoOf, FsPort, unlinkQuietly, writeAll } from '../../files/fs-port';
import { checkOwnDir, ensureOwnDir, openOwnFile } from '../../files/own-files';
import { StoreFault, unwritable } from '../../files/faults';
import { LOCK_REFRESH_MS, LockHandle, LockOptions, LockOwner, markHeld, parseLockOwner, stampFor } from './lock-stamp';

// A stamp staged this long ago is re-stamped before it is linked into place.
const RESTAMP_BEFORE_LINK_MS = 1_000;
// Filesystems without hard links (FAT, some network mounts) say so with these;
// there the lock falls back to an O_EXCL create followed by the stamp.
const NO_LINK_CODES = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** A stamp written to a private temp file, waiting to be linked into place. */
export interface Staged {
  temp: string;
  fd: number;
  owner: LockOwner;
}

/** `.state.lock` → `.state.lock.<pid>.<8 hex>.tmp`: the temp-file pattern the leftover sweep knows. */
function stagingPathFor(beside: string): string {
  return join(dirname(beside), `.${basename(beside).replace(/^\./, '')}.${process.pid}.${randomHex(4)}.tmp`);
}

/**
 * Writes this process's stamp for `target` to a private temp file named after
 * `beside` (the target itself unless given), in a folder the leftover sweep
 * looks in.
 */
export function stageStamp(options: LockOptions, target: string, at: number, beside = target): Staged {
  const { port } = options;
  const dir = dirname(beside);
  const temp = stagingPathFor(beside);
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

export function discardStaged(port: FsPort, staged: Staged): void {
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
 * when the target is taken, or 'restage' when the staged file (or the
 * target's folder) is gone.
 */
export function linkStaged(options: LockOptions, target: string, staged: Staged, at: number): LockHandle | undefined | 'restage' {
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
  // Known before the file can be seen, so a judge in this very process never takes it for a dead pid's.
  markHeld(token, true);
  try {
    port.linkSync(staged.temp, target);
  } catch (err) {
    markHeld(token, false);
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
  discardStaged(options.port, staged);
  return createInPlace(options, target, staged.owner.t, staged.owner.token as string);
}

/**
 * Creates `target` with O_EXCL and writes our stamp into it: one folder
 * operation where staging and linking take three, for files whose brief
 * emptiness no reader mistakes (an empty file counts as live for
 * EMPTY_LOCK_STALE_MS): the lock where links are unsupported, and queue
 * tickets. Undefined when `target` exists.
 */
export function createInPlace(options: LockOptions, target: string, at: number, token: string = randomHex(16)): LockHandle | undefined {
  const { port } = options;
  let fd: number;
  try {
    fd = openOwnFile(port, target, 'create');
  } catch (err) {
    if (errnoOf(err) === 'EEXIST') return undefined;
    if (err instanceof StoreFault) throw err;
    throw unwritable('create the lock', target, err);
  }
  const owner = stampFor(options, at, token);
  markHeld(token, true);
  try {
    writeAll(port, fd, Buffer.from(JSON.stringify(owner)), 0);
  } catch (err) {
    try {
      port.closeSync(fd);
    } catch {
      // keep the write error
    }
    unlinkQuietly(port, target);
    markHeld(token, false);
    throw unwritable('write the lock', target, err);
  }
  return { path: target, owner, fd, stampedAt: owner.t };
}

/** A lock file as read: its bytes, parsed stamp and identity. */
export interface LockFile {
  bytes: Buffer;
  owner: LockOwner | undefined;
  ino: number;
  mtimeMs: number;
  size: number;
}

export function readLockFile(port: FsPort, path: string): LockFile | undefined {
  const bytes = tryReadFile(port, path);
  if (bytes === undefined) return undefined;
  const stat = port.statSync(path);
  return { bytes, owner: parseLockOwner(bytes), ino: stat.ino, mtimeMs: stat.mtimeMs, size: bytes.length };
}

/** Whether `current` is the very lock file judged: the same token, or for a stamp without one the same bytes, inode and mtime. */
export function isSameLockFile(current: LockFile, judged: LockFile): boolean {
  if (judged.owner?.token !== undefined) return current.owner?.token === judged.owner.token;
  return current.bytes.equals(judged.bytes) && current.ino === judged.ino && current.mtimeMs === judged.mtimeMs;
}

/**
 * Re-stamps `t` when the last stamp is older than LOCK_REFRESH_MS, or lies
 * ahead of `at` (this clock went back: judges would take the old stamp for
 * one from the future); a no-op otherwise.
 */
export function refreshLock(port: FsPort, handle: LockHandle, at: number): void {
  if (handle.fd === undefined || (at - handle.stampedAt < LOCK_REFRESH_MS && at >= handle.stampedAt)) return;
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
  if (handle.owner.token !== undefined) markHeld(handle.owner.token, false);
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
