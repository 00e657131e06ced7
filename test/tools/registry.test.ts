import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StoreFault } from '../../src/files/faults';
import { ToolRegistry, type ToolDescriptor } from '../../src/tools/registry';

function registryThrowing(err: unknown): ToolRegistry {
  const tool: ToolDescriptor = {
    name: 'demo',
    title: 'Demo',
    description: 'Throws.',
    inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: () => {
      throw err;
    },
  };
  return new ToolRegistry([tool]);
}

test('a lock the store could not get is a tool error with reason lock_timeout, telling the agent to retry', async () => {
  const result = await registryThrowing(new StoreFault('lock_timeout', 'timed out after 5000 ms waiting for /p/.opencomms/.state.lock, held by pid 42 on vm')).call('demo', {});
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.ok, false);
  assert.deepEqual(result.structuredContent.data, { reason: 'lock_timeout' });
  assert.match(result.structuredContent.message, /held by pid 42 on vm\. Another OpenComms process kept the state lock too long; nothing was changed\. Try again/);
  assert.equal(JSON.parse(result.content[0]!.text).data.reason, 'lock_timeout');
});

test('an error that is not a store fault still propagates, for the dispatcher to answer -32603', async () => {
  await assert.rejects(registryThrowing(new TypeError('a bug')).call('demo', {}), /a bug/);
});
