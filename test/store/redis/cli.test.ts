// The shipped file (dist/opencomms.js) choosing its store: refusals before any
// connection, `status` reading a project from a real redis-server, and the
// commands not yet wired to Redis refusing it instead of silently using files.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { runCli, tempProject } from '../../helpers/server';
import * as engine from '../../../src/engine/index';
import { DEFAULT_CODEC } from '../../../src/store/default-codec';
import { keyPrefixOf } from '../../../src/store/redis/config';
import { createRedisStore } from '../../../src/store/redis/redis-store';
import { SKIP_WITHOUT_REDIS, startRedis, USERS } from './server';
import { edit } from '../../helpers/edit';

const skip = SKIP_WITHOUT_REDIS;

// A listener that counts connections: proof that a refusal sent nothing.
async function countingListener(t: TestContext): Promise<{ port: number; connections: () => number }> {
  let count = 0;
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    count++;
    sockets.push(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { port: (server.address() as { port: number }).port, connections: () => count };
}

const CLEAN_ENV = { OPENCOMMS_STORE: undefined, OPENCOMMS_STORE_PASSWORD: undefined, OPENCOMMS_STORE_PASSWORD_FILE: undefined, OPENCOMMS_STORE_CA: undefined, OPENCOMMS_PROJECT_ID: undefined };

test('status with a Redis store but no credentials exits 1 with store_auth_required advice, having connected to nothing', async (t) => {
  const listener = await countingListener(t);
  const { code, stderr, stdout } = await runCli(['status', '--project', tempProject(t)], {
    env: { ...CLEAN_ENV, OPENCOMMS_STORE: `redis://agent@127.0.0.1:${listener.port}/0`, OPENCOMMS_PROJECT_ID: 'acme' },
  });
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(stderr, /OPENCOMMS_STORE_PASSWORD/);
  assert.match(stderr, new RegExp(`127\\.0\\.0\\.1:${listener.port}`));
  assert.equal(listener.connections(), 0);
});

test('plain redis:// to another host is refused before connecting, asking for rediss://', async (t) => {
  const { code, stderr } = await runCli(['status', '--project', tempProject(t), '--store', 'redis://agent@10.255.255.1:6379/0'], {
    env: { ...CLEAN_ENV, OPENCOMMS_PROJECT_ID: 'acme', OPENCOMMS_STORE_PASSWORD: 'pw' },
  });
  assert.equal(code, 1);
  assert.match(stderr, /rediss:\/\//);
  assert.match(stderr, /10\.255\.255\.1/);
});

test('Redis without OPENCOMMS_PROJECT_ID is refused, naming the variable', async (t) => {
  const { code, stderr } = await runCli(['status', '--project', tempProject(t), '--store', 'redis://agent@127.0.0.1:1/0'], {
    env: { ...CLEAN_ENV, OPENCOMMS_STORE_PASSWORD: 'pw' },
  });
  assert.equal(code, 1);
  assert.match(stderr, /OPENCOMMS_PROJECT_ID/);
});

test('status --store reads the channels of a Redis project written by another machine, and says which store it used', { skip }, async (t) => {
  const server = await startRedis(t);
  const elsewhere = tempProject(t);
  const config = {
    isTls: false, host: '127.0.0.1', port: server.port, db: 0, username: USERS.agent.name, password: USERS.agent.password,
    projectId: 'acme', keyPrefix: keyPrefixOf('acme'), ca: undefined, timeoutMs: 2_000,
  };
  const writer = createRedisStore({ config, codec: DEFAULT_CODEC, projectDir: elsewhere });
  t.after(() => writer.close());
  await edit(writer, (s, ctx) => engine.createChannel(s, {
    channel: 'shared-dev', role: 'lead', role_prompt: 'leads', session_id: 'alice', project_id: 'acme', worktree: elsewhere, delivery_mode: 'pull',
  }, ctx));
  const env = { ...CLEAN_ENV, OPENCOMMS_PROJECT_ID: 'acme', OPENCOMMS_STORE_PASSWORD: USERS.agent.password };
  const url = `redis://agent@127.0.0.1:${server.port}/0`;
  const text = await runCli(['status', '--project', tempProject(t), '--store', url], { env });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /channel shared-dev/);
  assert.ok(text.stdout.split('\n').includes(`store: redis ${url}, project acme`), text.stdout);
  const json = await runCli(['status', '--project', tempProject(t), '--json'], { env: { ...env, OPENCOMMS_STORE: url } });
  assert.equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  assert.deepEqual(report.store, { kind: 'redis', url, project_id: 'acme' });
  assert.deepEqual(report.data.channels.map((c: { name: string }) => c.name), ['shared-dev']);
});

test('status against a Redis store with a wrong password exits 1 with store_auth_failed advice', { skip }, async (t) => {
  const server = await startRedis(t);
  const { code, stderr } = await runCli(['status', '--project', tempProject(t), '--store', `redis://agent@127.0.0.1:${server.port}/0`], {
    env: { ...CLEAN_ENV, OPENCOMMS_PROJECT_ID: 'acme', OPENCOMMS_STORE_PASSWORD: 'wrong' },
  });
  assert.equal(code, 1);
  assert.match(stderr, /refused the credentials/);
  assert.equal(stderr.includes('wrong'), false);
});

test('a misconfigured Redis store is refused before any connection; a hook fails open; --store file still works', async (t) => {
  const listener = await countingListener(t);
  const env = { ...CLEAN_ENV, OPENCOMMS_PROJECT_ID: 'acme', OPENCOMMS_STORE_PASSWORD: 'pw', OPENCOMMS_STORE: `redis://agent@127.0.0.1:${listener.port}/0` };
  // A misconfigured hook fails open (PROTOCOL 8.3): the empty answer, exit 0, the reason on stderr.
  const misconfigured = await runCli(['hook', '--project', tempProject(t)], { env: { ...env, OPENCOMMS_STORE_PASSWORD: undefined }, input: '{}' });
  assert.equal(misconfigured.code, 0);
  assert.equal(misconfigured.stdout, '{}\n');
  assert.match(misconfigured.stderr, /OPENCOMMS_STORE_PASSWORD/);
  assert.equal(listener.connections(), 0);
  const file = await runCli(['status', '--project', tempProject(t), '--store', 'file'], { env });
  assert.equal(file.code, 0, 'an explicit --store file still works');
});
