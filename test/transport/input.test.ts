// The stdin readers other than the pipe one, which the end-to-end tests
// already drive: a regular file (positional reads into one buffer) and a
// plain stream (a TTY, or anything else).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { nonBlockingFifo } from '../helpers/fifo';
import { fdInput, READ_BUFFER_BYTES, stdinInput, streamInput, type InputSource } from '../../src/transport/input';

function drain(source: InputSource): Promise<{ text: string; chunks: number }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    source.start((chunk) => parts.push(Buffer.from(chunk)), () => resolve({ text: Buffer.concat(parts).toString('utf8'), chunks: parts.length }), reject);
  });
}

function tempFile(t: { after: (fn: () => void) => void }, content: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-input-'));
  const path = join(dir, 'stdin.txt');
  writeFileSync(path, content);
  const fd = openSync(path, 'r');
  t.after(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  return fd;
}

test('a regular file is read whole, in buffer-sized chunks, then ends', { timeout: 10_000 }, async (t) => {
  const content = 'x'.repeat(READ_BUFFER_BYTES * 2 + 10);
  const fd = tempFile(t, content);
  const read = await drain(stdinInput(fd, () => assert.fail('a file needs no stream')));
  assert.equal(read.text, content);
  assert.equal(read.chunks, 3);
});

test('a file reader paused at its first chunk delivers the rest and the end once resumed', { timeout: 10_000 }, async (t) => {
  const fd = tempFile(t, 'a'.repeat(READ_BUFFER_BYTES + 1));
  const source = fdInput(fd, () => assert.fail('no fallback'));
  const chunks: number[] = [];
  await new Promise<void>((resolve, reject) => {
    source.start((chunk) => {
      chunks.push(chunk.length);
      if (chunks.length === 1) {
        source.pause();
        setImmediate(() => source.resume());
      }
    }, resolve, reject);
  });
  assert.deepEqual(chunks, [READ_BUFFER_BYTES, 1]);
});

test('a non-blocking descriptor with nothing to read (EAGAIN) hands over to the stream fallback', { skip: process.platform === 'win32', timeout: 10_000 }, async (t) => {
  const { reader: fd } = nonBlockingFifo(t);
  const fallback = new PassThrough();
  let fellBack = false;
  const source = fdInput(fd, () => {
    fellBack = true;
    return streamInput(fallback);
  });
  const done = drain(source);
  source.pause();
  source.resume();
  // the PassThrough keeps this until the fallback starts reading it
  fallback.end('from the fallback');
  assert.equal((await done).text, 'from the fallback');
  assert.equal(fellBack, true);
});

test('a plain stream is adapted: strings become bytes, end ends, stop detaches', { timeout: 10_000 }, async () => {
  const stream = new PassThrough();
  const source = streamInput(stream);
  const done = drain(source);
  stream.write('héllo ');
  stream.write(Buffer.from('world'));
  stream.end();
  assert.equal((await done).text, 'héllo world');

  const later = new PassThrough();
  const detached = streamInput(later);
  let seen = 0;
  let ended = false;
  detached.start(() => seen++, () => (ended = true), () => undefined);
  detached.pause();
  detached.resume();
  detached.stop();
  // someone else drains the stream to its end: a detached reader hears none of it
  const drained = new Promise((resolve) => later.on('end', resolve));
  later.resume();
  later.end('ignored');
  await drained;
  assert.equal(seen, 0);
  assert.equal(ended, false);
});
