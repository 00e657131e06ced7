import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startServer } from '../helpers/server';

const MAX_FRAME_BYTES = 1_048_576;

/** A ping whose JSON is exactly `bytes` UTF-8 bytes long, padded with `unit` (1, 3 or 4 bytes each). */
function pingOfSize(id: number, bytes: number, unit: string): string {
  const unitBytes = Buffer.byteLength(unit);
  const head = `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"_meta":{"pad":"`;
  const tail = '"}}}';
  let room = bytes - Buffer.byteLength(head) - Buffer.byteLength(tail);
  let pad = unit.repeat(Math.floor(room / unitBytes));
  room -= Buffer.byteLength(pad);
  pad += 'a'.repeat(room);
  const line = head + pad + tail;
  assert.equal(Buffer.byteLength(line), bytes);
  JSON.parse(line);
  return line;
}

for (const [label, unit] of [
  ['1-byte', 'a'],
  ['3-byte', '\u20ac'],
  ['4-byte', '\u{1F600}'],
] as const) {
  test(`accepts a frame of exactly 1 MiB built from ${label} characters`, async (t) => {
    const server = startServer(t);
    server.writeRaw(pingOfSize(1, MAX_FRAME_BYTES, unit) + '\n');
    assert.deepEqual((await server.reply(1)).result, {});
  });

  test(`refuses a frame one byte over 1 MiB built from ${label} characters and serves the next`, async (t) => {
    const server = startServer(t);
    server.writeRaw(pingOfSize(1, MAX_FRAME_BYTES + 1, unit) + '\n');
    const refusal = await server.nthReply(0);
    assert.equal(refusal.error.code, -32700);
    assert.match(refusal.error.message, /^Oversized/);
    assert.equal('id' in refusal, false);
    assert.deepEqual((await server.request('ping')).result, {});
  });
}

test('accepts a 1 MiB frame ended by CRLF: the CR does not count toward the limit', async (t) => {
  const server = startServer(t);
  server.writeRaw(pingOfSize(1, MAX_FRAME_BYTES, 'a') + '\r\n');
  assert.deepEqual((await server.reply(1)).result, {});
});

test('tolerates CRLF line ends and ignores blank lines', async (t) => {
  const server = startServer(t);
  server.writeRaw('\n\r\n   \n{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  assert.deepEqual((await server.reply(1)).result, {});
  assert.deepEqual((await server.reply(2)).result, {});
  assert.equal(server.replies.length, 2);
});

test('serves a frame that arrives split across many writes', async (t) => {
  const server = startServer(t);
  const line = '{"jsonrpc":"2.0","id":"split","method":"ping"}\n';
  for (const ch of line) server.writeRaw(ch);
  assert.deepEqual((await server.reply('split')).result, {});
});

function rssKiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

test('discards a 50 MiB line while it streams in, keeping memory bounded', async (t) => {
  const server = startServer(t);
  assert.deepEqual((await server.request('ping')).result, {});
  const before = rssKiB(server.child.pid as number);
  if (before === undefined) {
    t.skip('no /proc on this platform');
    return;
  }
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  let peak = before;
  for (let i = 0; i < 50; i++) {
    if (!server.child.stdin.write(chunk)) await new Promise((r) => server.child.stdin.once('drain', r));
    peak = Math.max(peak, rssKiB(server.child.pid as number) ?? 0);
  }
  server.writeRaw('\n{"jsonrpc":"2.0","id":"after","method":"ping"}\n');
  const refusal = await server.nthReply(1);
  assert.equal(refusal.error.code, -32700);
  assert.deepEqual((await server.reply('after')).result, {});
  peak = Math.max(peak, rssKiB(server.child.pid as number) ?? 0);
  const grownMiB = (peak - before) / 1024;
  assert.ok(grownMiB < 8, `RSS grew by ${grownMiB.toFixed(1)} MiB while a 50 MiB line streamed in`);
});
