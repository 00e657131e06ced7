// Reading whole files under .opencomms/, into fresh buffers or into reused
// scratch ones; the opening and its checks are own-files.ts.
import { openOwnForRead } from './own-files';
import type { FsPort } from './fs-port';

/**
 * Reads a whole file under .opencomms/, or undefined when it does not exist.
 * A link or anything but a regular file of ours is refused (openOwnFile);
 * other errors are thrown.
 */
export function tryReadFile(port: FsPort, path: string): Buffer | undefined {
  const opened = openOwnForRead(port, path);
  if (opened === undefined) return undefined;
  try {
    return readToEnd(port, opened.fd, Buffer.allocUnsafe(opened.size + 1), (bigger) => Buffer.allocUnsafe(bigger));
  } finally {
    port.closeSync(opened.fd);
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
  const opened = openOwnForRead(port, path);
  if (opened === undefined) return undefined;
  try {
    // One spare byte, so a file that grew since the fstat is still read to its end.
    return readToEnd(port, opened.fd, scratchOf('read', opened.size + 1), (bigger) => scratchOf('read', bigger));
  } finally {
    port.closeSync(opened.fd);
  }
}
// Reads from offset 0 until a read returns nothing, growing the buffer as needed.
function readToEnd(port: FsPort, fd: number, first: Buffer, grow: (bytes: number) => Buffer): Buffer {
  let buffer = first;
  let got = 0;
  for (;;) {
    if (got === buffer.length) {
      const bigger = grow(2 * buffer.length);
      buffer.copy(bigger, 0, 0, got);
      buffer = bigger;
    }
    const n = port.readSync(fd, buffer, got, buffer.length - got, got);
    if (n <= 0) return buffer.subarray(0, got);
    got += n;
  }
}

/** `text` as UTF-8 in a scratch buffer, valid until the next call. */
export function encodeReusing(text: string): Buffer {
  // At most 3 bytes per UTF-16 unit; the exact count only when that bound is too big to keep.
  const bound = 3 * text.length;
  const buffer = scratchOf('encode', bound <= SCRATCH_KEEP_BYTES ? bound : Buffer.byteLength(text, 'utf8'));
  return buffer.subarray(0, buffer.write(text, 'utf8'));
}
