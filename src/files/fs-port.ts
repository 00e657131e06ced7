// The handful of synchronous fs calls the store makes, behind one seam so
// tests can inject ENOSPC/EACCES/EPERM faults without patching node:fs.
// Everything is synchronous on purpose: the locked critical section must not
// yield, and the lock wait is the only place that awaits (on timers).
import * as fs from 'node:fs';

/** The mode of every file OpenComms creates under .opencomms/, whatever the umask. */
export const FILE_MODE = 0o600;
/** The mode of every folder OpenComms creates under .opencomms/. */
export const DIR_MODE = 0o700;
/** The mode of the server copy in .opencomms/: a program, still for this user only. */
export const PROGRAM_MODE = 0o700;

/** The fs calls the store uses. `node:fs` satisfies it; tests wrap it to inject faults. */
export interface FsPort {
  /** `flags` as node:fs takes them: a string such as 'wx', or numeric O_* flags (how the checked opens below call it). */
  openSync(path: string, flags: string | number, mode?: number): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, len?: number): void;
  fstatSync(fd: number): fs.Stats;
  fchmodSync(fd: number, mode: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  linkSync(existing: string, link: string): void;
  unlinkSync(path: string): void;
  readFileSync(path: string): Buffer;
  statSync(path: string): fs.Stats;
  /** statSync, but undefined instead of an ENOENT error: a cheap probe for files that are usually absent. */
  statIfExists(path: string): fs.Stats | undefined;
  /** lstatSync (a link is described, not followed), undefined instead of an ENOENT error. */
  lstatIfExists(path: string): fs.Stats | undefined;
  /** Creates folders with DIR_MODE unless a mode is given (the umask can only narrow it further). */
  mkdirSync(path: string, options: { recursive?: boolean; mode?: number }): string | undefined;
  readdirSync(path: string): string[];
}

/** The real file system. */
export const NODE_FS: FsPort = {
  openSync: (p, flags, mode) => fs.openSync(p, flags, mode),
  writeSync: (fd, buf, off, len, pos) => fs.writeSync(fd, buf, off, len, pos),
  readSync: (fd, buf, off, len, pos) => fs.readSync(fd, buf, off, len, pos),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  ftruncateSync: (fd, len) => fs.ftruncateSync(fd, len),
  fstatSync: (fd) => fs.fstatSync(fd),
  fchmodSync: (fd, mode) => fs.fchmodSync(fd, mode),
  closeSync: (fd) => fs.closeSync(fd),
  renameSync: (a, b) => fs.renameSync(a, b),
  linkSync: (a, b) => fs.linkSync(a, b),
  unlinkSync: (p) => fs.unlinkSync(p),
  readFileSync: (p) => fs.readFileSync(p),
  statSync: (p) => fs.statSync(p),
  statIfExists: (p) => fs.statSync(p, { throwIfNoEntry: false }),
  lstatIfExists: (p) => fs.lstatSync(p, { throwIfNoEntry: false }),
  mkdirSync: (p, o) => fs.mkdirSync(p, { recursive: o.recursive ?? false, mode: o.mode ?? DIR_MODE }),
  readdirSync: (p) => fs.readdirSync(p),
};

/** The errno code of a thrown fs error, or undefined. */
export function errnoOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Writes every byte of `data` at `position` (or the current offset when null); a short write is continued, never ignored. */
export function writeAll(port: FsPort, fd: number, data: Uint8Array, position: number | null = null): void {
  let done = 0;
  while (done < data.length) {
    const pos = position === null ? null : position + done;
    const n = port.writeSync(fd, data, done, data.length - done, pos);
    if (n <= 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
    done += n;
  }
}

/** Unlinks, swallowing every error: for cleanup paths that must not mask the first failure. */
export function unlinkQuietly(port: FsPort, path: string): void {
  try {
    port.unlinkSync(path);
  } catch {
    // cleanup is best effort by design; the caller already has the error worth reporting
  }
}
