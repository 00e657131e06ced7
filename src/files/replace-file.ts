// Atomic file replacement: temp file in the same directory, fsync, rename,
// fsync the directory. Readers see the old bytes or the new bytes, never a mix.
// replaceFile and renameIntoPlace are for files under .opencomms/: the folder
// is checked (a real folder of ours, narrowed to DIR_MODE) and the new file is
// private (FILE_MODE); a rename replaces a link at the target, never follows
// it. replaceUserFile is for the user's own files (host configs).
import { randomHex } from '../process/crypto';
import { basename, dirname, join } from 'node:path';
import { errnoOf, FILE_MODE, FsPort, unlinkQuietly, writeAll } from './fs-port';
import { checkOwnDir, openOwnFile } from './own-files';
import { StoreFault } from './faults';

// Windows reports these while antivirus or a sync client holds the target
// open; they clear within milliseconds. Elsewhere they are permanent and the
// retries only cost a few ms on a path that is failing anyway.
const RENAME_RETRY_CODES = new Set(['EPERM', 'EBUSY', 'EACCES']);
const RENAME_BACKOFF_MS = [2, 8, 25];

// Platforms that cannot fsync a directory say so with one of these; the rename
// itself has already happened, so they are not failures of the save.
const DIR_FSYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL', 'EBADF', 'ENOTSUP', 'EACCES']);

const SLEEP_CELL = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(SLEEP_CELL, 0, 0, ms);
}

/** The temp name for `target`: `.<stem>.<pid>.<8 hex>.tmp` beside it, e.g. `.state.123.a1b2c3d4.tmp`. */
export function tempPathFor(target: string): string {
  const stem = basename(target).replace(/\.json$/, '');
  return join(dirname(target), `.${stem}.${process.pid}.${randomHex(4)}.tmp`);
}


/**
 * Writes `data` to a fresh temp file, fsyncs it and renames it over `target`,
 * then fsyncs the directory. On any failure the previous `target` is
 * untouched, the temp file is removed, and the FIRST error is rethrown.
 * For files under .opencomms/ (see renameIntoPlace).
 */
export function replaceFile(port: FsPort, target: string, data: string | Uint8Array, mode: number = FILE_MODE): void {
  renameIntoPlace(port, target, data, mode);
  fsyncDirectory(port, dirname(target));
}

/**
 * replaceFile without the final directory fsync: the new bytes are durable
 * and in place, but the rename is not durable until the caller fsyncs the
 * directory (fsyncDirectory), which it must do before it reports success.
 * The store uses this to release its lock before that last fsync. The folder
 * must be a real folder of ours (a link or another user's folder is refused,
 * state_unwritable) and is narrowed to DIR_MODE; the file gets `mode`
 * (FILE_MODE unless given). A link at `target` is replaced, not followed; a
 * folder at `target` is refused, never replaced. `beforeRename` runs once
 * the temp file is complete and durable, immediately before the rename; if it
 * throws, nothing is renamed and the temp file goes (the store's commit fence).
 */
export function renameIntoPlace(
  port: FsPort, target: string, data: string | Uint8Array, mode: number = FILE_MODE, beforeRename?: () => void,
): void {
  checkOwnDir(port, dirname(target), true);
  writeAndRename(port, target, data, (temp) => openOwnFile(port, temp, 'create', mode), beforeRename);
}

/**
 * Replaces one of the user's own files (a host config) atomically. With
 * `mode`, the new file gets exactly that mode whatever the umask (callers pass
 * the old file's, to keep it); without, a new file is 0644 less the umask. No
 * folder check and no narrowing: the file and its folder are not ours.
 */
export function replaceUserFile(port: FsPort, target: string, data: string | Uint8Array, mode?: number): void {
  writeAndRename(port, target, data, (temp) => {
    const fd = port.openSync(temp, 'wx', mode ?? USER_FILE_MODE);
    if (mode === undefined) return fd;
    try {
      port.fchmodSync(fd, mode);
    } catch (err) {
      port.closeSync(fd);
      unlinkQuietly(port, temp);
      throw err;
    }
    return fd;
  });
  fsyncDirectory(port, dirname(target));
}

const USER_FILE_MODE = 0o644;

function writeAndRename(
  port: FsPort, target: string, data: string | Uint8Array, openTemp: (temp: string) => number, beforeRename?: () => void,
): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const temp = tempPathFor(target);
  let fd: number | undefined = openTemp(temp);
  let isRenamed = false;
  try {
    writeAll(port, fd, bytes, 0);
    port.fsyncSync(fd);
    const open = fd;
    fd = undefined; // a failed close must not be retried in the cleanup below
    port.closeSync(open);
    beforeRename?.();
    renameWithRetry(port, temp, target);
    isRenamed = true;
  } finally {
    if (fd !== undefined) {
      try {
        port.closeSync(fd);
      } catch {
        // the write error already in flight is the one worth reporting
      }
    }
    if (!isRenamed) unlinkQuietly(port, temp);
  }
}

function renameWithRetry(port: FsPort, from: string, to: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      port.renameSync(from, to);
      return;
    } catch (err) {
      const code = errnoOf(err);
      if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST') throw folderRefusalOf(port, to) ?? err;
      if (attempt >= RENAME_BACKOFF_MS.length || code === undefined || !RENAME_RETRY_CODES.has(code)) throw err;
      sleepSync(RENAME_BACKOFF_MS[attempt]);
    }
  }
}

// A rename never replaces a folder; say so, and what to do, rather than EISDIR.
function folderRefusalOf(port: FsPort, target: string): StoreFault | undefined {
  try {
    if (!port.lstatIfExists(target)?.isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  return new StoreFault('state_unwritable',
    `${target} is a folder where a file belongs; it will not be replaced or deleted: move it elsewhere, then try again`, undefined, true);
}

/** Makes a finished rename durable. Unsupported platforms are tolerated; real I/O errors are thrown. */
export function fsyncDirectory(port: FsPort, dir: string): void {
  let fd: number;
  try {
    fd = port.openSync(dir, 'r');
  } catch (err) {
    if (DIR_FSYNC_UNSUPPORTED.has(errnoOf(err) ?? '')) return;
    throw err;
  }
  try {
    port.fsyncSync(fd);
  } catch (err) {
    if (!DIR_FSYNC_UNSUPPORTED.has(errnoOf(err) ?? '')) throw err;
  } finally {
    try {
      port.closeSync(fd);
    } catch {
      // closing a read-only directory handle cannot lose data
    }
  }
}

/**
 * Writes `data` to `target` only if `target` does not exist yet (no clobber),
 * durably: temp + fsync, then `link`, which fails with EEXIST when the name is
 * taken. Where hard links are unsupported it falls back to a `wx` create, which
 * is equally exclusive but can leave a partial file if the write fails.
 */
export function createFileExclusive(port: FsPort, target: string, data: Uint8Array): void {
  const temp = tempPathFor(target);
  try {
    writeDurably(port, temp, data);
    try {
      port.linkSync(temp, target);
    } catch (err) {
      if (!LINK_UNSUPPORTED.has(errnoOf(err) ?? '')) throw err;
      try {
        writeDurably(port, target, data);
      } catch (writeErr) {
        // only reached after our own `wx` create, so the partial file is ours
        if (errnoOf(writeErr) !== 'EEXIST') unlinkQuietly(port, target);
        throw writeErr;
      }
    }
  } finally {
    unlinkQuietly(port, temp);
  }
  fsyncDirectory(port, dirname(target));
}

const LINK_UNSUPPORTED = new Set(['EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP']);

function writeDurably(port: FsPort, path: string, data: Uint8Array): void {
  const fd = openOwnFile(port, path, 'create');
  let isClosed = false;
  try {
    writeAll(port, fd, data, 0);
    port.fsyncSync(fd);
    isClosed = true;
    port.closeSync(fd);
  } finally {
    if (!isClosed) {
      try {
        port.closeSync(fd);
      } catch {
        // keep the write error
      }
    }
  }
}
