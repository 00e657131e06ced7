// The OpenCode plugin on a Redis project: an OpenCode session on one machine
// (its own folder) joins a channel an MCP server opened on another machine,
// is pushed the mail sent there (woken by the commit notice), and its own
// sends reach the server's member. Real redis-server, real server process,
// the plugin in this process with a stand-in OpenCode client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResult } from '../../../src/engine';
import { startOpenComms } from '../../../src/opencode';
import { startServer, tempProject } from '../../helpers/server';
import { create, ok } from '../../e2e/tools-support';
import { FAKE_SCHEMA, FakeClient } from '../../opencode/helpers';
import { configFor, eventually, SKIP_WITHOUT_REDIS, startRedis, storeEnv } from './server';

const skip = SKIP_WITHOUT_REDIS;

test('an OpenCode session joins a channel another machine opened on Redis, is pushed its mail, and its sends arrive there', { skip, timeout: 60_000 }, async (t) => {
  const redis = await startRedis(t);
  const folderA = tempProject(t);
  const server = startServer(t, {
    project: folderA,
    args: ['--project', folderA, '--host', 'mcp'],
    env: { ...storeEnv(redis, 'oc-across'), OPENCOMMS_MEMBER_ID: 'sess_alice' },
  });
  await server.initialize();
  await create(server, 'ops', 'lead');

  const folderB = tempProject(t);
  const client = new FakeClient();
  const logs: string[] = [];
  const plugin = await startOpenComms({ client, project: { id: 'opencode-own-project-hash' }, directory: folderB, worktree: folderB }, {
    selection: { kind: 'redis', config: configFor(redis.port, 'oc-across') },
    loadSchema: async () => FAKE_SCHEMA,
    log: (line) => logs.push(line),
  });
  t.after(() => plugin.hooks.dispose());
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> =>
    JSON.parse(await plugin.hooks.tool![name]!.execute(args, { sessionID: 'ses_opencode_1' })) as ToolResult;

  const joined = await call('opencomms_join', { channel: 'ops', role: 'helper', role_prompt: 'You help.' });
  assert.equal(joined.ok, true, `${JSON.stringify(joined)} / ${logs.join('; ')}`);
  await ok(server, 'opencomms_send', { channel: 'ops', to: 'helper', content: 'deploy window at noon' });
  await eventually('the push into the OpenCode session', () => client.prompts.some((p) => p.text.includes('deploy window at noon')));
  assert.equal(client.prompts.find((p) => p.text.includes('deploy window at noon'))!.id, 'ses_opencode_1');

  const sent = await call('opencomms_send', { channel: 'ops', to: 'lead', content: 'noon works for me' });
  assert.equal(sent.ok, true, JSON.stringify(sent));
  const pulled = await ok(server, 'opencomms_pull', {});
  assert.match(JSON.stringify(pulled), /noon works for me/);
  assert.equal(existsSync(join(folderB, '.opencomms', 'state.json')), false, 'nothing in the OpenCode folder: the state is in Redis');
});
