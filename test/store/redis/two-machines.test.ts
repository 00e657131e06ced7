// Two "machines" on one Redis project: real server processes of the shipped
// file, each with its own project folder (nothing shared on disk), speaking
// through a real redis-server. Mail crosses, the doorbell rings across, and
// saved sessions live in Redis where the other machine finds them.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempProject, type Json, type ServerProcess } from '../../helpers/server';
import { create, join as joinChannel, ok } from '../../e2e/tools-support';
import { SKIP_WITHOUT_REDIS, startRedis, storeEnv, type RedisServer } from './server';
import { startWatch } from '../../watch/watch-process';

const skip = SKIP_WITHOUT_REDIS;
const BELL = 'notifications/claude/channel';


/** A server on a folder of its own ("its machine"), as `memberId`, on the Redis project. */
async function machine(t: TestContext, redis: RedisServer, projectId: string, memberId: string, host = 'claude-code'): Promise<ServerProcess> {
  const folder = tempProject(t);
  const server = startServer(t, {
    project: folder,
    args: ['--project', folder, '--host', host],
    env: { ...storeEnv(redis, projectId), OPENCOMMS_MEMBER_ID: memberId },
  });
  await server.initialize();
  return server;
}

function bells(server: ServerProcess): Json[] {
  return server.replies.filter((r) => r.method === BELL);
}

test('two servers on different folders and one Redis project exchange mail, and the doorbell rings across', { skip }, async (t) => {
  const redis = await startRedis(t);
  const alice = await machine(t, redis, 'two-machines', 'sess_alice');
  const bob = await machine(t, redis, 'two-machines', 'sess_bob');
  await create(alice, 'review', 'writer');
  await joinChannel(bob, 'review', 'reviewer');

  await ok(alice, 'opencomms_send', { channel: 'review', content: 'please review parser.ts' });
  const bell = await bob.waitFor('a bell on the other machine', () => bells(bob)[0]);
  assert.deepEqual(bell.params.meta, { channel: 'review', from_role: 'writer', count: '1' });
  const pulled = await ok(bob, 'opencomms_pull', {});
  assert.equal(pulled.data.message_ids.length, 1);
  assert.match(JSON.stringify(pulled), /please review parser\.ts/);

  await ok(bob, 'opencomms_send', { channel: 'review', content: 'looks good' });
  await alice.waitFor('a bell back', () => bells(alice)[0]);
  const back = await ok(alice, 'opencomms_pull', {});
  assert.match(JSON.stringify(back), /looks good/);
  // Never rung for its own sends: each side rang exactly once.
  assert.equal(bells(alice).length, 1);
  assert.equal(bells(bob).length, 1);

  // Nothing went to either folder's .opencomms state: the state is in Redis.
  for (const server of [alice, bob]) assert.equal(existsSync(join(server.project, '.opencomms', 'state.json')), false);
});

test('history, status and a saved session made on one machine are what the other machine reads', { skip }, async (t) => {
  const redis = await startRedis(t);
  const alice = await machine(t, redis, 'shared-archive', 'sess_alice', 'mcp');
  const bob = await machine(t, redis, 'shared-archive', 'sess_bob', 'mcp');
  await create(alice, 'design', 'lead');
  await joinChannel(bob, 'design', 'helper');
  await ok(alice, 'opencomms_send', { channel: 'design', content: 'first idea: a ring buffer' });
  await ok(bob, 'opencomms_pull', {});
  const history = await ok(bob, 'opencomms_history', { channel: 'design', query: 'ring buffer' });
  assert.equal(history.data.messages.length, 1);
  const status = await ok(bob, 'opencomms_status', {});
  assert.deepEqual(status.data.channels.map((c: Json) => c.name), ['design']);

  const saved = await ok(alice, 'opencomms_save_session', { channel: 'design', summary: 'ring buffer chosen' });
  const listed = await ok(bob, 'opencomms_archive', {});
  assert.deepEqual(listed.data.archives.map((a: Json) => a.archive_id ?? a.channel_id), [saved.data.archive_id]);
  const summary = await ok(bob, 'opencomms_archive', { channel: 'design', mode: 'messages' });
  assert.match(JSON.stringify(summary), /ring buffer/);
  for (const server of [alice, bob]) assert.equal(existsSync(join(server.project, '.opencomms', 'archives')), false);

  const resumed = await ok(bob, 'opencomms_resume_session', { channel: 'design' });
  assert.equal(resumed.ok, true);
  await ok(alice, 'opencomms_delete_session', { channel: saved.data.archive_id, confirm: true });
  const after = await ok(bob, 'opencomms_archive', {});
  assert.deepEqual(after.data.archives, []);
});

test('watch on a third machine follows the Redis project: the store in its first line, then joins, sends and deliveries as they happen', { skip }, async (t) => {
  const redis = await startRedis(t);
  const env = storeEnv(redis, 'watched');
  const people = startWatch(t, ['--project', tempProject(t), '--json'], env);
  const start = await people.event('the watching line', (e) => e.event === 'watching');
  assert.match(start.store, new RegExp(`^redis://agent@127\\.0\\.0\\.1:${redis.port}/0, project watched$`));
  const alice = await machine(t, redis, 'watched', 'sess_alice', 'mcp');
  const bob = await machine(t, redis, 'watched', 'sess_bob', 'mcp');
  const mail = startWatch(t, ['--project', tempProject(t), '--member', 'sess_bob'], env);
  await create(alice, 'ops', 'lead');
  await joinChannel(bob, 'ops', 'helper');
  await people.event('bob joined', (e) => e.event === 'joined' && e.member_id === 'sess_bob');
  await ok(alice, 'opencomms_send', { channel: 'ops', content: 'deploy at noon' });
  await people.event('the send', (e) => e.event === 'sent' && e.channel === 'ops');
  await mail.matching(/1 OpenComms message waits for you: from lead on channel ops/);
  await ok(bob, 'opencomms_pull', {});
  const delivered = await people.event('the delivery', (e) => e.event === 'delivered');
  assert.equal(delivered.delivered_via, 'pull');
});
