// The handful of synchronous fs calls the store makes, behind one seam so
// tests can inject ENOSPC/EACCES/EPERM faults without patching node:fs.
// Everything is synchronous on purpose: the locked critical section must not
// yield, and the lock wait is the only place that awaits (on timers).
import * as fs from 'node:fs';

/** The fs calls the store uses. `node:fs` satisfies it; tests wrap it to inject faults. */
export interface FsPort {
  openSync(path: string, flags: string, mode?: number): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, len?: number): void;
  fstatSync(fd: number): fs.Stats;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  linkSync(existing: string, link: string): void;
  unlinkSync(path: string): void;
  readFileSync(path: string): Buffer;
  statSync(path: string): fs.Stats;
  /** statSync, but undefined instead of an ENOENT error: a cheap probe for files that are usually absent. */
  statIfExists(path: string): fs.Stats | undefined;
  mkdirSync(path: string, options: { recursive: true }): string | undefined;
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
  closeSync: (fd) => fs.closeSync(fd),
  renameSync: (a, b) => fs.renameSync(a, b),
  linkSync: (a, b) => fs.linkSync(a, b),
  unlinkSync: (p) => fs.unlinkSync(p),
  readFileSync: (p) => fs.readFileSync(p),
  statSync: (p) => fs.statSync(p),
  statIfExists: (p) => fs.statSync(p, { throwIfNoEntry: false }),
  mkdirSync: (p, o) => fs.mkdirSync(p, o),
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

/** Reads a whole file, or undefined when it does not exist. Other errors are thrown. */
export function tryReadFile(port: FsPort, path: string): Buffer | undefined {
  try {
    return port.readFileSync(path);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return undefined;
    throw err;
  }
}

// Reading or encoding a whole state file into a fresh Buffer costs more than
// parsing it: every new large buffer is fresh memory, page-faulted in on first
// touch. These grow-only scratch buffers are reused instead, up to
// SCRATCH_KEEP_BYTES (a larger file gets a one-off buffer).
const SCRATCH_KEEP_BYTES = 8 << 20;
const scratch = { read: Buffer.alloc(0), encode: Buffer.alloc(0) };

function scratchOf(kind: keyof typeof scratch, bytes: number): Buffer {
  if (scratch[kind].length >= bytes) return scratch[kind];
  const grown = Buffer.allocUnsafe(Math.max(bytes, Math.min(2 * scratch[kind].length, SCRATCH_KEEP_BYTES)));
  if (grown.length <= SCRATCH_KEEP_BYTES) scratch[kind] = grown;
  return grown;
}

/**
 * Reads a whole file, or undefined when it does not exist (other errors are
 * thrown), into a scratch buffer: the result is only valid until the next
 * call, so copy what must outlive it.
 */
export function tryReadFileReusing(port: FsPort, path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = port.openSync(path, 'r');
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return undefined;
    throw err;
  }
  try {
    // One spare byte, so a file that grew since the fstat is still read to its end.
    let buffer = scratchOf('read', port.fstatSync(fd).size + 1);
    let got = 0;
    for (;;) {
      if (got === buffer.length) {
        const bigger = scratchOf('read', 2 * buffer.length);
        buffer.copy(bigger, 0, 0, got);
        buffer = bigger;
      }
      const n = port.readSync(fd, buffer, got, buffer.length - got, got);
      if (n <= 0) return buffer.subarray(0, got);
      got += n;
    }
  } finally {
    port.closeSync(fd);
  }
}

/** `text` as UTF-8 in a scratch buffer, valid until the next call. */
export function encodeReusing(text: string): Buffer {
  // At most 3 bytes per UTF-16 unit; the exact count only when that bound is too big to keep.
  const bound = 3 * text.length;
  const buffer = scratchOf('encode', bound <= SCRATCH_KEEP_BYTES ? bound : Buffer.byteLength(text, 'utf8'));
  return buffer.subarray(0, buffer.write(text, 'utf8'));
}

/** Unlinks, swallowing every error: for cleanup paths that must not mask the first failure. */
export function unlinkQuietly(port: FsPort, path: string): void {
  try {
    port.unlinkSync(path);
  } catch {
    // cleanup is best effort by design; the caller already has the error worth reporting
  }
}
