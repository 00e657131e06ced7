import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { readAll, writeFully } from '../../src/cli/sync-io';
import { nonBlockingFifo } from '../helpers/fifo';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-sync-io-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('readAll reads a descriptor to its end in chunks, as UTF-8', { timeout: 10_000 }, async (t) => {
  const path = join(tempDir(t), 'in.txt');
  const text = `${'é'.repeat(70_000)}end`;
  writeFileSync(path, text);
  const fd = openSync(path, 'r');
  t.after(() => closeSync(fd));
  assert.equal(await readAll(fd, () => assert.fail('a blocking descriptor needs no stream')), text);
});

test('readAll hands a non-blocking descriptor to the stream for the rest, keeping what it read', { timeout: 10_000, skip: process.platform === 'win32' }, async (t) => {
  const { reader, writer } = nonBlockingFifo(t);
  writeFileSync(writer, 'first ');
  const text = await readAll(reader, async () => Buffer.from('and the rest'));
  assert.equal(text, 'first and the rest');
});

test('writeFully writes everything to a descriptor that takes it', (t) => {
  const path = join(tempDir(t), 'out.txt');
  const fd = openSync(path, 'w');
  void writeFully(fd, `{"answer":"${'ü'.repeat(50_000)}"}\n`, () => assert.fail('a file never refuses'));
  closeSync(fd);
  assert.equal(readFileSync(path, 'utf8'), `{"answer":"${'ü'.repeat(50_000)}"}\n`);
});

test('writeFully passes what a full non-blocking pipe refuses to the fallback, byte for byte', { skip: process.platform === 'win32' }, (t) => {
  const { reader, writer } = nonBlockingFifo(t);
  const text = 'x'.repeat(1 << 20); // more than any pipe buffer holds
  let rest: Buffer | undefined;
  void writeFully(writer, text, async (bytes) => {
    rest = Buffer.from(bytes);
  });
  assert.ok(rest !== undefined && rest.length > 0 && rest.length < text.length);
  // what went into the pipe plus what was handed over is the whole text
  const chunk = Buffer.alloc(1 << 20);
  let inPipe = 0;
  for (;;) {
    try {
      const n = readSync(reader, chunk, 0, chunk.length, null);
      if (n === 0) break;
      inPipe += n;
    } catch {
      break; // EAGAIN: drained
    }
  }
  assert.equal(inPipe + rest!.length, text.length);
});

test('writeFully reports a failure of the fallback, so a hook never counts an unwritten answer as sent', { skip: process.platform === 'win32' }, async (t) => {
  const { writer } = nonBlockingFifo(t);
  const text = 'x'.repeat(1 << 20);
  await assert.rejects(writeFully(writer, text, async () => {
    throw Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE' });
  }), { code: 'EPIPE' });
});

test('writeFully settles only once the fallback has written the rest', { skip: process.platform === 'win32' }, async (t) => {
  const { writer } = nonBlockingFifo(t);
  const events: string[] = [];
  const written = writeFully(writer, 'y'.repeat(1 << 20), async () => {
    await new Promise((resolve) => setImmediate(resolve));
    events.push('fallback done');
  });
  await written;
  events.push('writeFully settled');
  assert.deepEqual(events, ['fallback done', 'writeFully settled']);
});
