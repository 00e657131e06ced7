// `opencomms doctor` on a Redis store, through the shipped file against a real
// redis-server: one line per store check, each failure with its reason code
// and what to check, the local checks that still apply kept, nothing changed
// on the server.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runCli, tempProject } from '../../helpers/server';
import * as engine from '../../../src/engine/index';
import { RedisClient } from '../../../src/store/redis/client';
import { keyPrefixOf } from '../../../src/store/redis/config';
import { createRedisStore } from '../../../src/store/redis/redis-store';
import { STORE_ACL_COMMANDS } from '../../../src/store/redis/keys';
import { probedCommands } from '../../../src/store/redis/permission-probes';
import { DEFAULT_CODEC } from '../../../src/store/default-codec';
import { MINIMAL_PROJECT, SKIP_WITHOUT_REDIS, startRedis, USERS, type RedisServer } from './server';
import { edit } from '../../helpers/edit';

const skip = SKIP_WITHOUT_REDIS;
const CLEAN_ENV = {
  OPENCOMMS_STORE: undefined, OPENCOMMS_STORE_PASSWORD: undefined, OPENCOMMS_STORE_PASSWORD_FILE: undefined,
  OPENCOMMS_STORE_CA: undefined, OPENCOMMS_PROJECT_ID: undefined,
};
/** The client's bound on every call (STORE_TIMEOUT_MS), and a margin for starting node. */
const DOCTOR_BOUND_MS = 5_000 + 3_000;

type User = (typeof USERS)[keyof typeof USERS];

function passwordFile(t: TestContext, password: string): string {
  const dir = tempProject(t);
  const path = join(dir, 'redis-password');
  writeFileSync(path, `${password}\n`);
  chmodSync(path, 0o600);
  return path;
}

/** The environment a machine sets for the minimal ACL user over TLS with the test CA. */
function tlsEnv(t: TestContext, server: RedisServer, user: User, password: string = user.password): Record<string, string | undefined> {
  return {
    ...CLEAN_ENV,
    OPENCOMMS_STORE: `rediss://${user.name}@127.0.0.1:${server.tlsPort}/0`,
    OPENCOMMS_PROJECT_ID: MINIMAL_PROJECT,
    OPENCOMMS_STORE_PASSWORD_FILE: passwordFile(t, password),
    OPENCOMMS_STORE_CA: server.certs.caPath,
  };
}

function lineOf(stdout: string, name: string): string {
  return stdout.split('\n').find((line) => line.slice(5).startsWith(`${name}: `)) ?? '';
}

function adminClient(t: TestContext, server: RedisServer): RedisClient {
  const client = new RedisClient({
    host: '127.0.0.1', port: server.port, isTls: false, username: USERS.agent.name, password: USERS.agent.password, db: 0, timeoutMs: 2_000,
  });
  t.after(() => client.close());
  return client;
}

async function serverKeys(client: RedisClient): Promise<string[]> {
  const keys = await client.command(['KEYS', '*']) as Buffer[];
  return keys.map(String).sort();
}

test('doctor passes for the minimal ACL user over TLS with the test CA: one line each for reachable, TLS, user, server, round trip and permissions', { skip }, async (t) => {
  const server = await startRedis(t);
  const env = tlsEnv(t, server, USERS.minimal);
  const project = tempProject(t);
  const installed = await runCli(['install', 'cursor', '--project', project, '--store', env.OPENCOMMS_STORE!], { env });
  assert.equal(installed.code, 0, installed.stderr);
  const { code, stdout, stderr } = await runCli(['doctor', '--project', project], { env });
  assert.equal(code, 0, `${stdout}\n${stderr}`);
  assert.doesNotMatch(stdout, /WARN|FAIL/, 'the cursor config names the store doctor checked');
  assert.match(lineOf(stdout, 'store'), new RegExp(`^ok {3}store: redis rediss://minimal@127\\.0\\.0\\.1:${server.tlsPort}/0, project acl-demo$`));
  assert.match(lineOf(stdout, 'store reachable'), new RegExp(`^ok {3}store reachable: 127\\.0\\.0\\.1:${server.tlsPort} answers$`));
  assert.match(lineOf(stdout, 'store tls'), /^ok {3}store tls: on, the server's certificate verified for 127\.0\.0\.1 against OPENCOMMS_STORE_CA/);
  assert.match(lineOf(stdout, 'store auth'), /^ok {3}store auth: authenticated as ACL user minimal$/);
  assert.match(lineOf(stdout, 'store server'), /^ok {3}store server: redis 7\.\d+\.\d+ \(standalone, master\)$/);
  assert.match(lineOf(stdout, 'store round trip'), /^ok {3}store round trip: [\d.]+ ms \(median of 5 PINGs\)$/);
  assert.match(lineOf(stdout, 'store permissions'), /^ok {3}store permissions: all \d+ commands the store uses are allowed on oc:\{acl-demo\}:\*/);
  assert.match(lineOf(stdout, 'store state'), /^ok {3}store state: no state in oc:\{acl-demo\}:state yet/);
  assert.match(lineOf(stdout, 'state'), /^ok {3}state: in Redis, see the store checks$/);
  // The local parts still apply; the state file's lock and temp files do not.
  assert.match(lineOf(stdout, 'node'), /^ok {3}node: /);
  assert.match(lineOf(stdout, 'modes'), /^ok {3}modes: /);
  assert.equal(lineOf(stdout, 'lock'), '');
  assert.equal(lineOf(stdout, 'leftovers'), '');
  assert.doesNotMatch(stdout, /minimal-pw/);
});

test('doctor changes nothing on the server and wakes no subscriber of the notices channel', { skip }, async (t) => {
  const server = await startRedis(t);
  const writer = createRedisStore({
    config: {
      isTls: false, host: '127.0.0.1', port: server.port, db: 0, username: USERS.minimal.name, password: USERS.minimal.password,
      projectId: MINIMAL_PROJECT, keyPrefix: keyPrefixOf(MINIMAL_PROJECT), ca: undefined, timeoutMs: 2_000,
    },
    codec: DEFAULT_CODEC,
    projectDir: tempProject(t),
  });
  t.after(() => writer.close());
  assert.equal((await edit(writer, (s, ctx) => engine.createChannel(s, {
    channel: 'shared-dev', role: 'lead', role_prompt: 'leads', session_id: 'alice', project_id: MINIMAL_PROJECT, worktree: '/w', delivery_mode: 'pull',
  }, ctx))).ok, true);
  const admin = adminClient(t, server);
  const keysBefore = await serverKeys(admin);
  const valuesBefore = await admin.pipeline(keysBefore.map((k) => ['DUMP', k]));
  // A subscriber as a peer would have one; RESP2 subscribe mode, so a connection of its own.
  const listener = new RedisClient({
    host: '127.0.0.1', port: server.port, isTls: false, username: USERS.agent.name, password: USERS.agent.password, db: 0, timeoutMs: 2_000,
  });
  t.after(() => listener.close());
  await listener.command(['SUBSCRIBE', `${keyPrefixOf(MINIMAL_PROJECT)}notices`]);
  const stats = async (): Promise<string> => String(await admin.command(['PUBSUB', 'NUMSUB', `${keyPrefixOf(MINIMAL_PROJECT)}notices`]));
  const { code, stdout } = await runCli(['doctor', '--project', tempProject(t)], { env: tlsEnv(t, server, USERS.minimal) });
  assert.equal(code, 0, stdout);
  assert.match(lineOf(stdout, 'store state'), /^ok {3}store state: oc:\{acl-demo\}:state loads \(1 channel, commit 1\)$/);
  assert.match(stdout, /member alice: host /, 'the members come from the state in Redis');
  assert.deepEqual(await serverKeys(admin), keysBefore, 'no key made or removed (the probe key was only queued, then discarded)');
  assert.deepEqual(await admin.pipeline(keysBefore.map((k) => ['DUMP', k])), valuesBefore, 'every value as it was');
  assert.match(await stats(), /,1$/, 'the subscriber is still there');
  // The listener's connection got no message: its next command's reply is the next thing it reads.
  // (RESP3, which the client speaks where offered, answers PING in subscribe mode with PONG; RESP2 with ["pong", ""].)
  const pong = (await listener.command(['PING'])) as unknown;
  assert.ok(pong === 'PONG' || (Array.isArray(pong) && String(pong[0]) === 'pong'), `the reply to PING, not a message: ${String(pong)}`);
});

test('doctor warns about a host config that does not name the store it checked, and says which install fixes it', { skip }, async (t) => {
  const server = await startRedis(t);
  const env = tlsEnv(t, server, USERS.minimal);
  const project = tempProject(t);
  assert.equal((await runCli(['install', 'vscode', '--project', project], { env })).code, 0);
  const { code, stdout } = await runCli(['doctor', '--project', project], { env });
  assert.equal(code, 0, stdout);
  assert.match(lineOf(stdout, 'vscode store'), new RegExp(`^WARN vscode store: its server uses this machine's \\.opencomms folder, not rediss://minimal@127\\.0\\.0\\.1:${server.tlsPort}/0, project acl-demo.*node \\S+\\/opencomms\\.js install vscode --store rediss://minimal@127\\.0\\.0\\.1:${server.tlsPort}/0`));
});

test('doctor fails the state line when the state in Redis does not load, says it will be preserved, and leaves it as it is', { skip }, async (t) => {
  const server = await startRedis(t);
  const admin = adminClient(t, server);
  const stateKey = `${keyPrefixOf(MINIMAL_PROJECT)}state`;
  await admin.command(['SET', stateKey, '{"schema_version": 9']);
  const { code, stdout } = await runCli(['doctor', '--project', tempProject(t)], { env: tlsEnv(t, server, USERS.minimal) });
  assert.equal(code, 1);
  assert.match(lineOf(stdout, 'store state'), /^FAIL store state: oc:\{acl-demo\}:state cannot be loaded \(.+\)\. The next change will preserve it as oc:\{acl-demo\}:state\.corrupt-<time>/);
  assert.equal(String(await admin.command(['GET', stateKey])), '{"schema_version": 9');
});

test('doctor with a wrong password fails the auth line with store_auth_failed, keeps the local checks, and never prints the password', { skip }, async (t) => {
  const server = await startRedis(t);
  const env = tlsEnv(t, server, USERS.minimal, 'not-the-password-4d1c');
  const { code, stdout, stderr } = await runCli(['doctor', '--project', tempProject(t)], { env });
  assert.equal(code, 1);
  assert.match(lineOf(stdout, 'store reachable'), /^ok {3}/);
  assert.match(lineOf(stdout, 'store tls'), /^ok {3}/);
  assert.match(lineOf(stdout, 'store auth'), /^FAIL store auth: store_auth_failed: .*refused the credentials of ACL user "minimal".*OPENCOMMS_STORE_PASSWORD/);
  assert.match(lineOf(stdout, 'modes'), /^ok {3}/, 'the local checks still run');
  assert.match(stdout, /Problems found/);
  assert.doesNotMatch(stdout + stderr, /not-the-password|minimal-pw|\n\s+at /);
});

test('doctor names EVAL as what to grant when the ACL user may not run scripts', { skip }, async (t) => {
  const server = await startRedis(t);
  const { code, stdout } = await runCli(['doctor', '--project', tempProject(t), '--json'], { env: tlsEnv(t, server, USERS.noScript) });
  assert.equal(code, 1);
  const report = JSON.parse(stdout);
  assert.equal(report.ok, false);
  const permissions = report.checks.find((c: { name: string }) => c.name === 'store permissions');
  assert.equal(permissions.status, 'fail');
  assert.equal(permissions.reason, 'store_forbidden');
  assert.match(permissions.message, /may not run EVAL\./);
  assert.equal(/Grant it (.*?) \(ACL SETUSER/.exec(permissions.message)?.[1], '+eval', 'only the missing command is named to grant');
  assert.deepEqual(report.store, { kind: 'redis', url: `rediss://noscript@127.0.0.1:${server.tlsPort}/0`, project_id: MINIMAL_PROJECT });
  assert.equal(report.checks.find((c: { name: string }) => c.name === 'store auth').status, 'ok');
});

test('doctor names the key pattern when the ACL user belongs to another project', { skip }, async (t) => {
  const server = await startRedis(t);
  const { code, stdout } = await runCli(['doctor', '--project', tempProject(t)], { env: tlsEnv(t, server, USERS.other) });
  assert.equal(code, 1);
  assert.match(lineOf(stdout, 'store permissions'), /^FAIL store permissions: store_forbidden: the ACL user may not use the keys oc:\{acl-demo\}:\* .*Grant it ~oc:\{acl-demo\}:\*/);
});

test('doctor fails store_unreachable on a closed port well within the client\'s 5 s bound', { skip }, async (t) => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
  const started = Date.now();
  const { code, stdout } = await runCli(['doctor', '--project', tempProject(t)], {
    env: { ...CLEAN_ENV, OPENCOMMS_STORE: `redis://minimal@127.0.0.1:${port}/0`, OPENCOMMS_PROJECT_ID: MINIMAL_PROJECT, OPENCOMMS_STORE_PASSWORD: 'pw' },
  });
  assert.ok(Date.now() - started < DOCTOR_BOUND_MS, `doctor took ${Date.now() - started} ms`);
  assert.equal(code, 1);
  assert.match(lineOf(stdout, 'store reachable'), new RegExp(`^FAIL store reachable: store_unreachable: The Redis store at 127\\.0\\.0\\.1:${port} refused the connection: check that redis-server is running`));
  assert.match(lineOf(stdout, 'state'), /in Redis/);
});

test('doctor on a server that accepts connections but answers nothing fails store_unreachable within the bound', { skip }, async (t) => {
  const server = await startRedis(t);
  server.freeze();
  t.after(() => server.thaw());
  const started = Date.now();
  const { code, stdout } = await runCli(['doctor', '--project', tempProject(t)], {
    env: { ...CLEAN_ENV, OPENCOMMS_STORE: `redis://minimal@127.0.0.1:${server.port}/0`, OPENCOMMS_PROJECT_ID: MINIMAL_PROJECT, OPENCOMMS_STORE_PASSWORD: USERS.minimal.password },
  });
  assert.ok(Date.now() - started < DOCTOR_BOUND_MS, `doctor took ${Date.now() - started} ms`);
  assert.equal(code, 1);
  assert.match(lineOf(stdout, 'store reachable'), /^FAIL store reachable: store_unreachable: .*did not answer within 5000 ms/);
});

test('doctor on plain redis:// to loopback says plain text, loopback only, without a warning', { skip }, async (t) => {
  const server = await startRedis(t);
  const { code, stdout } = await runCli(['doctor', '--project', tempProject(t), '--store', `redis://minimal@127.0.0.1:${server.port}/0`], {
    env: { ...CLEAN_ENV, OPENCOMMS_PROJECT_ID: MINIMAL_PROJECT, OPENCOMMS_STORE_PASSWORD: USERS.minimal.password },
  });
  assert.equal(code, 0, stdout);
  assert.match(lineOf(stdout, 'store tls'), /^ok {3}store tls: off: plain text, loopback only/);
  assert.doesNotMatch(stdout, /WARN/);
});

test('doctor with a Redis store it cannot set up (no password) fails the store line with store_auth_required and connects to nothing', async (t) => {
  let connections = 0;
  const listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => listener.close());
  const { port } = listener.address() as { port: number };
  const { code, stdout } = await runCli(['doctor', '--project', tempProject(t)], {
    env: { ...CLEAN_ENV, OPENCOMMS_STORE: `redis://minimal@127.0.0.1:${port}/0`, OPENCOMMS_PROJECT_ID: MINIMAL_PROJECT },
  });
  assert.equal(code, 1);
  assert.match(lineOf(stdout, 'store'), /^FAIL store: store_auth_required: .*OPENCOMMS_STORE_PASSWORD/);
  assert.match(lineOf(stdout, 'state'), /^ok {3}state: in Redis/);
  assert.match(lineOf(stdout, 'node'), /^ok {3}/);
  assert.equal(connections, 0);
});

test('doctor probes exactly the commands the store asks operators to grant', () => {
  const granted = STORE_ACL_COMMANDS.split(' ').filter((c) => /^\+[a-z]+$/.test(c)).map((c) => c.slice(1).toUpperCase()).sort();
  assert.deepEqual([...probedCommands()].sort(), granted);
});
