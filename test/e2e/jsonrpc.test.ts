import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../helpers/server';

test('answers -32700 without an id to a line that is not JSON, then keeps serving', async (t) => {
  const server = startServer(t);
  server.writeRaw('{not json\n');
  const reply = await server.nthReply(0);
  assert.equal(reply.error.code, -32700);
  assert.equal('id' in reply, false);
  assert.deepEqual((await server.request('ping')).result, {});
});

for (const [label, line, id] of [
  ['a batch array', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', undefined],
  ['a missing jsonrpc member', '{"id":7,"method":"ping"}', 7],
  ['a wrong jsonrpc version', '{"jsonrpc":"1.0","id":8,"method":"ping"}', 8],
  ['an id that is an object', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', undefined],
  ['an id that is null', '{"jsonrpc":"2.0","id":null,"method":"ping"}', undefined],
  ['an id that is a boolean', '{"jsonrpc":"2.0","id":true,"method":"ping"}', undefined],
  ['a method that is not a string', '{"jsonrpc":"2.0","id":9,"method":5}', 9],
  ['params that are a string', '{"jsonrpc":"2.0","id":10,"method":"ping","params":"x"}', 10],
  ['a JSON value that is not an object', '42', undefined],
] as const) {
  test(`answers -32600 to ${label}`, async (t) => {
    const server = startServer(t);
    server.writeRaw(line + '\n');
    const reply = await server.nthReply(0);
    assert.equal(reply.error.code, -32600);
    if (id === undefined) assert.equal('id' in reply, false);
    else assert.equal(reply.id, id);
  });
}

test('answers -32601 to an unknown method', async (t) => {
  const server = startServer(t);
  const reply = await server.request('resources/list');
  assert.equal(reply.error.code, -32601);
});

test('answers -32602 to an unknown tool', async (t) => {
  const server = startServer(t);
  const reply = await server.request('tools/call', { name: 'opencomms_nope', arguments: {} });
  assert.equal(reply.error.code, -32602);
  assert.match(reply.error.message, /opencomms_nope/);
});

for (const [label, params] of [
  ['no name', { arguments: {} }],
  ['a numeric name', { name: 5 }],
  ['arguments that are an array', { name: 'opencomms_status', arguments: [] }],
  ['arguments that are a string', { name: 'opencomms_status', arguments: 'x' }],
] as const) {
  test(`answers -32602 to a tools/call with ${label}`, async (t) => {
    const server = startServer(t);
    const reply = await server.request('tools/call', params);
    assert.equal(reply.error.code, -32602);
  });
}

test('never answers a notification, even for an unknown method', async (t) => {
  const server = startServer(t);
  server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  server.send({ jsonrpc: '2.0', method: 'notifications/whatever', params: {} });
  server.send({ jsonrpc: '2.0', method: 'tools/list' });
  const reply = await server.request('ping');
  assert.deepEqual(reply.result, {});
  assert.equal(server.replies.length, 1);
});

test('answers requests in the order they were read', async (t) => {
  const server = startServer(t);
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) {
    const message =
      i % 3 === 0
        ? { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'opencomms_status', arguments: {} } }
        : i % 3 === 1
          ? { jsonrpc: '2.0', id: i, method: 'ping' }
          : { jsonrpc: '2.0', id: i, method: 'tools/list' };
    lines.push(JSON.stringify(message));
  }
  server.writeRaw(lines.join('\n') + '\n');
  await server.reply(29);
  assert.deepEqual(
    server.replies.map((r) => r.id),
    Array.from({ length: 30 }, (_, i) => i),
  );
});

test('drops the response of a request cancelled before it was answered', async (t) => {
  const server = startServer(t);
  server.writeRaw(
    [
      JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'opencomms_status', arguments: {} } }),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'test' } }),
      JSON.stringify({ jsonrpc: '2.0', id: 'next', method: 'ping' }),
    ].join('\n') + '\n',
  );
  await server.reply('next');
  assert.deepEqual(
    server.replies.map((r) => r.id),
    ['next'],
  );
});

test('ignores a cancellation of a request that was already answered', async (t) => {
  const server = startServer(t);
  await server.request('ping');
  server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
  assert.deepEqual((await server.request('ping')).result, {});
});

test('ignores responses a client sends, since the server never asks anything', async (t) => {
  const server = startServer(t);
  server.send({ jsonrpc: '2.0', id: 99, result: {} });
  assert.deepEqual((await server.request('ping')).result, {});
  assert.equal(server.replies.length, 1);
});

test('writes only protocol messages to stdout and logs to stderr', async (t) => {
  const server = startServer(t);
  server.writeRaw('garbage\n');
  await server.initialize();
  await server.request('tools/list');
  await server.close();
  for (const line of server.stdoutLines) {
    const message = JSON.parse(line);
    assert.equal(message.jsonrpc, '2.0');
  }
  assert.match(server.stderr, /\[opencomms\]/);
});
