// Deeply nested and oversized values anywhere in a request: every one is
// answered with the error it earns, nothing echoed is unbounded, and the
// server keeps serving. The deepest version, a value deep in the whole line
// and the first long name go to a real server process; the other cases run
// the same wiring in this process, whose JSON reader and stack are the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type ServerProcess } from '../helpers/server';
import { InProcessServer, startInProcess } from '../helpers/server-in-process';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** JSON text of an array nested `depth` levels deep, built as text (JSON.stringify would overflow). */
function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

async function assertStillServing(server: ServerProcess | InProcessServer, id: string): Promise<void> {
  server.writeRaw(`{"jsonrpc":"2.0","id":"${id}","method":"ping"}\n`);
  assert.deepEqual((await server.reply(id)).result, {});
  if (server instanceof InProcessServer) assert.equal(server.isServing, true, 'the server is still serving');
  else assert.equal(server.child.exitCode, null, 'the server is still running');
}

const DEEP_VERSIONS: [string, string][] = [
  ['an array 4,117 levels deep (an 8 KB frame)', deepArray(4_117)],
  ['an array 100,000 levels deep', deepArray(100_000)],
  ['an array 500,000 levels deep (close to 1 MiB)', deepArray(500_000)],
  ['an object 150,000 levels deep', deepObject(150_000)],
];

for (const [label, version] of DEEP_VERSIONS) {
  test(`a modern request whose protocol version is ${label} gets -32022 with a bounded echo, and the server keeps serving`, async (t) => {
    const server = label.includes('500,000') ? startServer(t) : startInProcess(t);
    const frame = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"${VERSION_KEY}":${version},"${CAPABILITIES_KEY}":{}}}}`;
    assert.ok(Buffer.byteLength(frame) <= 1_048_576);
    server.writeRaw(`${frame}\n`);
    const reply = await server.reply(7);
    assert.equal(reply.error.code, -32022);
    assert.deepEqual(reply.error.data, { supported: ['2026-07-28'], requested: null });
    assert.ok(server.stdoutLines.every((line) => line.length < 1_000), 'no reply echoes the nested value');
    await assertStillServing(server, 'after');
  });
}

test('a modern request whose protocol version is a long string gets -32022 without the string echoed', async (t) => {
  const server = startInProcess(t);
  const reply = await server.request('tools/list', { _meta: { [VERSION_KEY]: 'v'.repeat(100_000), [CAPABILITIES_KEY]: {} } });
  assert.equal(reply.error.code, -32022);
  assert.deepEqual(reply.error.data, { supported: ['2026-07-28'], requested: null });
  assert.ok(JSON.stringify(reply).length < 1_000);
});

const DEEP_ELSEWHERE: [string, (deep: string) => string, number][] = [
  ['params of ping', (deep) => `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${deep}}}`, 0],
  ['_meta beside a legacy request', (deep) => `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":${deep}}}}`, 0],
  ['the modern client capabilities', (deep) => `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"${VERSION_KEY}":"2026-07-28","${CAPABILITIES_KEY}":{"x":${deep}}}}}`, 0],
  ['a tool argument', (deep) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"opencomms_status","arguments":{"channel":${deep}}}}`, 0],
  ['the tool name', (deep) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${deep}}}`, -32602],
  ['tools/call arguments', (deep) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"opencomms_status","arguments":${deep}}}`, -32602],
  ['the id', (deep) => `{"jsonrpc":"2.0","id":${deep},"method":"ping"}`, -32600],
  ['the method', (deep) => `{"jsonrpc":"2.0","id":1,"method":${deep}}`, -32600],
  ['a cancellation request id', (deep) => `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${deep}}}`, 0],
  ['the whole line', (deep) => deep, -32600],
];

for (const [label, frameOf, code] of DEEP_ELSEWHERE) {
  test(`a value nested 400,000 levels deep in ${label} is answered and the server keeps serving`, async (t) => {
    const server = label === 'the whole line' ? startServer(t) : startInProcess(t);
    server.writeRaw(`${frameOf(deepArray(400_000))}\n`);
    await assertStillServing(server, 'after');
    const others = server.replies.filter((r) => r.id !== 'after');
    if (label.startsWith('a cancellation')) {
      assert.equal(others.length, 0, 'a notification gets no reply');
      return;
    }
    assert.equal(others.length, 1);
    if (code === 0) assert.ok(others[0]!.result, JSON.stringify(others[0]));
    else assert.equal(others[0]!.error.code, code);
  });
}

test('an unknown method with a very long name is answered -32601 without echoing the whole name', async (t) => {
  const server = startServer(t);
  const reply = await server.request('m'.repeat(500_000));
  assert.equal(reply.error.code, -32601);
  assert.ok(reply.error.message.length < 200, `message of ${reply.error.message.length} characters`);
});

test('an unknown tool with a very long name is answered -32602 without echoing the whole name', async (t) => {
  const server = startInProcess(t);
  const reply = await server.request('tools/call', { name: 't'.repeat(500_000), arguments: {} });
  assert.equal(reply.error.code, -32602);
  assert.ok(reply.error.message.length < 200, `message of ${reply.error.message.length} characters`);
});

test('an unknown tool argument with a very long name is refused without echoing the whole name', async (t) => {
  const server = startInProcess(t);
  const result = await server.callTool('opencomms_status', { ['a'.repeat(500_000)]: 1 });
  assert.equal(result.data.reason, 'invalid_argument');
  assert.ok(result.message.length < 400, `message of ${result.message.length} characters`);
  assert.ok(result.data.argument.length < 100, `argument of ${result.data.argument.length} characters`);
});
