// Both MCP eras on one server. The first legacy version, the initialize
// reply (the bundle's own version) and server/discover go through a real
// server process; the other cases run the same wiring in this process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type Json } from '../helpers/server';
import { startInProcess } from '../helpers/server-in-process';


const PACKAGE_VERSION = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).version;

function modernMeta(version = '2026-07-28', capabilities: unknown = {}): Json {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'test', version: '0' },
  };
}

for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
  test(`initialize echoes the supported legacy version ${version}`, async (t) => {
    const server = version === '2024-11-05' ? startServer(t) : startInProcess(t);
    const reply = await server.initialize(version);
    assert.equal(reply.result.protocolVersion, version);
  });
}

for (const version of ['2099-01-01', '2026-07-28', 'garbage']) {
  test(`initialize answers 2025-11-25 to the unsupported version ${version}`, async (t) => {
    const server = startInProcess(t);
    const reply = await server.initialize(version);
    assert.equal(reply.result.protocolVersion, '2025-11-25');
  });
}

test('initialize names the server, its package version, capabilities and instructions', async (t) => {
  const server = startServer(t);
  const { result } = await server.initialize();
  assert.deepEqual(result.serverInfo, { name: 'opencomms', version: PACKAGE_VERSION });
  assert.deepEqual(result.capabilities.tools, { listChanged: false });
  assert.equal(typeof result.instructions, 'string');
  assert.ok(result.instructions.length > 40);
});

test('ping answers an empty object in the legacy era', async (t) => {
  const server = startInProcess(t);
  await server.initialize();
  assert.deepEqual((await server.request('ping')).result, {});
});

test('server/discover answers the modern versions, capabilities and cache hints', async (t) => {
  const server = startServer(t);
  const { result } = await server.request('server/discover', { _meta: modernMeta() });
  assert.equal(result.resultType, 'complete');
  assert.deepEqual(result.supportedVersions, ['2026-07-28']);
  assert.deepEqual(result.capabilities.tools, { listChanged: false });
  assert.equal(typeof result.ttlMs, 'number');
  assert.ok(['public', 'private'].includes(result.cacheScope));
  assert.deepEqual(result._meta['io.modelcontextprotocol/serverInfo'], { name: 'opencomms', version: PACKAGE_VERSION });
});

test('server/discover without the modern _meta is refused with -32602', async (t) => {
  const server = startInProcess(t);
  assert.equal((await server.request('server/discover', {})).error.code, -32602);
});

test('a modern request with an unsupported version gets -32022 naming supported and requested', async (t) => {
  const server = startInProcess(t);
  const reply = await server.request('tools/list', { _meta: modernMeta('2099-01-01') });
  assert.equal(reply.error.code, -32022);
  assert.deepEqual(reply.error.data, { supported: ['2026-07-28'], requested: '2099-01-01' });
});

test('the modern _meta is checked on every request, not only the first', async (t) => {
  const server = startInProcess(t);
  assert.equal((await server.request('server/discover', { _meta: modernMeta() })).result.resultType, 'complete');
  assert.equal((await server.request('tools/list', { _meta: modernMeta() })).result.resultType, 'complete');
  const late = await server.request('tools/list', { _meta: modernMeta('2099-01-01') });
  assert.equal(late.error.code, -32022);
});

test('a modern request without clientCapabilities is refused with -32602', async (t) => {
  const server = startInProcess(t);
  const reply = await server.request('tools/list', {
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
  });
  assert.equal(reply.error.code, -32602);
});

test('modern tools/list carries resultType, ttlMs, cacheScope and serverInfo', async (t) => {
  const server = startInProcess(t);
  const { result } = await server.request('tools/list', { _meta: modernMeta() });
  assert.equal(result.resultType, 'complete');
  assert.equal(typeof result.ttlMs, 'number');
  assert.ok(['public', 'private'].includes(result.cacheScope));
  assert.ok(Array.isArray(result.tools) && result.tools.length > 0);
  assert.equal(result._meta['io.modelcontextprotocol/serverInfo'].name, 'opencomms');
});

test('modern tools/call results carry resultType complete', async (t) => {
  const server = startInProcess(t);
  const { result } = await server.request('tools/call', { name: 'opencomms_status', arguments: {}, _meta: modernMeta() });
  assert.equal(result.resultType, 'complete');
  assert.equal(typeof result.isError, 'boolean');
});

for (const method of ['ping', 'initialize']) {
  test(`${method} is -32601 in the modern era`, async (t) => {
    const server = startInProcess(t);
    const reply = await server.request(method, { _meta: modernMeta() });
    assert.equal(reply.error.code, -32601);
  });
}

test('a legacy request carrying _meta.progressToken stays legacy', async (t) => {
  const server = startInProcess(t);
  await server.initialize('2025-06-18');
  const { result } = await server.request('tools/list', { _meta: { progressToken: 0 } });
  assert.equal('resultType' in result, false);
  assert.equal('ttlMs' in result, false);
  assert.deepEqual((await server.request('ping', { _meta: { progressToken: 1 } })).result, {});
});

test('legacy tools/list has no modern fields and every tool has the full descriptor', async (t) => {
  const server = startInProcess(t);
  await server.initialize();
  const { result } = await server.request('tools/list');
  assert.equal('resultType' in result, false);
  for (const tool of result.tools) {
    assert.match(tool.name, /^[a-z_]{1,64}$/);
    for (const key of ['title', 'description', 'inputSchema', 'outputSchema', 'annotations']) {
      assert.ok(key in tool, `${tool.name} lacks ${key}`);
    }
    assert.equal(tool.inputSchema.type, 'object');
    assert.equal(tool.inputSchema.additionalProperties, false);
    assert.equal(tool.annotations.openWorldHint, false);
  }
});

test('a tool result has text content, structuredContent and isError that agree', async (t) => {
  const server = startInProcess(t);
  const { result } = await server.request('tools/call', { name: 'opencomms_status', arguments: {} });
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, 'text');
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  assert.equal(typeof result.structuredContent.ok, 'boolean');
  assert.equal(typeof result.structuredContent.message, 'string');
  assert.equal(result.isError, !result.structuredContent.ok);
});

test('a wrongly typed argument is a tool error naming the argument, not a wire error', async (t) => {
  const server = startInProcess(t);
  const { result } = await server.request('tools/call', { name: 'opencomms_status', arguments: { channel: 42 } });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.data.reason, 'invalid_argument');
  assert.equal(result.structuredContent.data.argument, 'channel');
  assert.match(result.structuredContent.message, /channel/);
});

test('an unknown argument is a tool error naming it', async (t) => {
  const server = startInProcess(t);
  const { result } = await server.request('tools/call', { name: 'opencomms_status', arguments: { sender: 'x' } });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.data.argument, 'sender');
});
