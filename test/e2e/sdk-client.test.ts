import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DIST, tempProject } from '../helpers/server';

test('the official SDK client connects, lists tools and calls opencomms_status', async (t) => {
  const project = tempProject(t);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [DIST, '--project', project],
    env: { ...process.env, OPENCOMMS_MEMBER_ID: 'sess_sdk_client' } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sdk-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  assert.equal(client.getServerVersion()?.name, 'opencomms');
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'opencomms_status'));
  const result = await client.callTool({ name: 'opencomms_status', arguments: {} });
  assert.equal(result.isError, false);
  assert.equal((result.structuredContent as { ok: boolean }).ok, true);
});
