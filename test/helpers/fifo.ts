// A named pipe opened non-blocking at both ends, so reads and writes on it
// can meet EAGAIN: the case where the stdin/stdout readers fall back to streams.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export function nonBlockingFifo(t: TestContext): { reader: number; writer: number } {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-fifo-'));
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  t.after(() => {
    closeSync(writer);
    closeSync(reader);
    rmSync(dir, { recursive: true, force: true });
  });
  return { reader, writer };
}
