import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../helpers/server';

test('on stdin EOF it answers what was already read, flushes and exits 0', async (t) => {
  const server = startServer(t);
  const lines = Array.from({ length: 50 }, (_, i) =>
    JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'opencomms_status', arguments: {} } }),
  );
  server.child.stdin.end(lines.join('\n') + '\n');
  const exit = await server.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.equal(server.replies.length, 50);
});

test('answers a final line that has no newline before exiting on EOF', async (t) => {
  const server = startServer(t);
  server.child.stdin.end('{"jsonrpc":"2.0","id":"last","method":"ping"}');
  assert.deepEqual(await server.exited, { code: 0, signal: null });
  assert.deepEqual(server.replies, [{ jsonrpc: '2.0', id: 'last', result: {} }]);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`on ${signal} it answers what was already read, flushes and exits 0`, async (t) => {
    const server = startServer(t);
    await server.request('ping'); // the server is up and has its signal handlers
    const lines = Array.from({ length: 20 }, (_, i) =>
      JSON.stringify({ jsonrpc: '2.0', id: `r${i}`, method: 'tools/call', params: { name: 'opencomms_status', arguments: {} } }),
    );
    server.writeRaw(lines.join('\n') + '\n');
    await server.reply('r0'); // the batch has been read
    server.child.kill(signal);
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    assert.equal(server.replies.filter((r) => String(r.id).startsWith('r')).length, 20);
  });
}

test('keeps serving while stdout is not being read, then catches up', async (t) => {
  const server = startServer(t);
  server.child.stdout.pause();
  const count = 3000;
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
  server.writeRaw(lines.join('\n') + '\n');
  server.child.stdout.resume();
  await server.reply(count - 1);
  assert.equal(server.replies.length, count);
});

test('on SIGTERM a half-received line is dropped, not answered with a parse error', async (t) => {
  const server = startServer(t);
  server.writeRaw('{"jsonrpc":"2.0","id":"whole","method":"ping"}\n{"jsonrpc":"2.0","id":"half","meth');
  await server.reply('whole');
  server.child.kill('SIGTERM');
  assert.deepEqual(await server.exited, { code: 0, signal: null });
  assert.deepEqual(server.replies.map((r) => r.id), ['whole']);
});
