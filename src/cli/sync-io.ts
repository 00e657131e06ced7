// Blocking reads and writes on the standard descriptors, for the hook: a host
// spawns it on every prompt, hands it a few hundred bytes and waits for one
// line back. Plain read(2)/write(2) need none of the stream machinery that
// process.stdin and process.stdout would load first. A descriptor that is
// non-blocking (EAGAIN) is handed to the stream fallback for whatever is left.
import { readSync, writeSync } from 'node:fs';

const CHUNK_BYTES = 65_536;

function isWouldBlock(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EAGAIN' || code === 'EWOULDBLOCK';
}

/** Everything up to end of input on `fd`, as UTF-8. */
export async function readAll(fd: number, readRestFromStream: () => Promise<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  for (;;) {
    let bytes: number;
    try {
      bytes = readSync(fd, buffer, 0, buffer.length, null);
    } catch (err) {
      if (isWouldBlock(err)) {
        chunks.push(await readRestFromStream());
        break;
      }
      if ((err as NodeJS.ErrnoException).code === 'EOF') break; // Windows reports the end of a pipe this way
      throw err;
    }
    if (bytes === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, bytes)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Writes all of `text` to `fd`; what a non-blocking descriptor refuses goes to
 * `writeRest`. Settles only once every byte was written, and rejects when any
 * write failed (the fallback's too), so the caller knows whether the reader
 * could have the text.
 */
export async function writeFully(fd: number, text: string, writeRest: (rest: Buffer) => Promise<void>): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (err) {
      if (!isWouldBlock(err)) throw err;
      await writeRest(bytes.subarray(done));
      return;
    }
  }
}
