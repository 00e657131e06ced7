// Request ids the server cannot echo exactly are refused, never answered under another id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../helpers/server';

// JSON-RPC 2.0: the reply MUST carry the same id value as the request. An
// integer id beyond 2^53 (legal JSON; an ordinary id for a host whose ids are
// Python ints, or i64/u64 in Rust or Go) passes the "finite number" check in
// src/jsonrpc/message.ts but JSON.parse rounds it, so the reply names a
// different request: the host cannot match it (above i64::MAX it cannot even
// parse it) and the call hangs until it times out. Either echo the id exactly
// or refuse it openly with -32600; never answer under a different id.
for (const [label, sentId] of [
  ['2^53 + 1', '9007199254740993'],
  ['i64::MAX', '9223372036854775807'],
] as const) {
  test(`an integer id of ${label} is echoed exactly or refused, never answered under a rounded id`, async (t) => {
    const server = startServer(t);
    server.writeRaw(`{"jsonrpc":"2.0","id":${sentId},"method":"ping"}\n`);
    const reply = await server.nthReply(0);
    const line = server.stdoutLines[0];
    const echoedExactly = new RegExp(`"id":${sentId}[,}]`).test(line);
    const refused = reply.error?.code === -32600 && !('id' in reply);
    assert.ok(echoedExactly || refused, `sent id ${sentId}, reply line was: ${line}`);
  });
}

test('tools/list lists everything in one page: a cursor (which this server never hands out) gets -32602', async (t) => {
  const server = startServer(t);
  const listed = await server.request('tools/list', {});
  assert.equal(listed.result.nextCursor, undefined);
  const reply = await server.request('tools/list', { cursor: 'page-2' });
  assert.equal(reply.error.code, -32602);
  assert.match(reply.error.message, /cursor/);
  assert.ok(Array.isArray((await server.request('tools/list', { cursor: null })).result.tools));
});

test('the largest exact integer id and the same digits as a string are both echoed unchanged', async (t) => {
  const server = startServer(t);
  server.writeRaw('{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}\n{"jsonrpc":"2.0","id":"9223372036854775807","method":"ping"}\n{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}\n');
  await server.nthReply(2);
  assert.match(server.stdoutLines[0]!, /"id":9007199254740991[,}]/);
  assert.match(server.stdoutLines[1]!, /"id":"9223372036854775807"[,}]/);
  assert.match(server.stdoutLines[2]!, /"id":-9007199254740991[,}]/);
});
