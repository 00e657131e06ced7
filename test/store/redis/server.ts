// A real redis-server for the tests, started by the test itself: a free
// loopback port, a TLS port with a certificate made by openssl for this run,
// ACL users with passwords (the default user is off), no persistence. Never a
// mock: every test that claims Redis behaviour talks to this process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { STORE_ACL_COMMANDS } from '../../../src/store/redis/keys';
import { keyPrefixOf, type RedisStoreConfig } from '../../../src/store/redis/config';
import { until } from '../../helpers/wait';

/** Set when redis-server is installed (.ci/run makes sure it is). */
export const REDIS_SERVER = findRedisServer();
export const SKIP_WITHOUT_REDIS = REDIS_SERVER === undefined
  ? 'redis-server is not installed (apt-get install redis-server; .ci/run installs it)'
  : false;

/** The ACL users every test server has. */
export const USERS = {
  /** Everything on the keys of every project. */
  agent: { name: 'agent', password: 'agent-pw-7c1e' },
  /** Read commands only. */
  reader: { name: 'reader', password: 'reader-pw-2b9d' },
  /** Everything, but only on the keys of project "other". */
  other: { name: 'other', password: 'other-pw-5f30' },
  /** Exactly what PROTOCOL.md tells an operator to grant, on project MINIMAL_PROJECT only. */
  minimal: { name: 'minimal', password: 'minimal-pw-8a41' },
  /** The same minus EVAL. */
  noScript: { name: 'noscript', password: 'noscript-pw-3c77' },
} as const;

/** The project the minimal users may touch. */
export const MINIMAL_PROJECT = 'acl-demo';
/** The commands the store asks operators to grant (PROTOCOL.md lists the same). */
export const MINIMAL_COMMANDS = STORE_ACL_COMMANDS;

const READY_TIMEOUT_MS = 15_000;
/** The default user's password: known to no test client (see the note in the config). */
const DEFAULT_USER_PASSWORD = 'default-pw-never-used-9e2f';

function findRedisServer(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? 'redis-server' : undefined;
}

export interface Certificates {
  dir: string;
  caPath: string;
  caPem: string;
  certPath: string;
  keyPath: string;
  /** A second CA that signed nothing the server uses. */
  otherCaPath: string;
  /** From the right CA, with the server's key, but for another host name only. */
  otherNameCertPath: string;
}

/** A CA and a server certificate for 127.0.0.1 and localhost, made by openssl now. */
export function makeCertificates(t: TestContext): Certificates {
  const dir = mkdtempSync(join(tmpdir(), 'oc-redis-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[]): void => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${result.stderr}`);
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...ec, '-subj', '/CN=OpenComms test CA', '-days', '2', '-keyout', 'ca.key', '-out', 'ca.crt']);
  run(['req', '-x509', ...ec, '-subj', '/CN=Some other CA', '-days', '2', '-keyout', 'other.key', '-out', 'other.crt']);
  run(['req', ...ec, '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr']);
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'ext.cnf', '-out', 'server.crt']);
  writeFileSync(join(dir, 'other-name.cnf'), 'subjectAltName=DNS:elsewhere.example\n');
  run(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'other-name.cnf', '-out', 'other-name.crt']);
  return {
    dir,
    caPath: join(dir, 'ca.crt'),
    caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    certPath: join(dir, 'server.crt'),
    keyPath: join(dir, 'server.key'),
    otherCaPath: join(dir, 'other.crt'),
    otherNameCertPath: join(dir, 'other-name.crt'),
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  port: number;
  tlsPort: number;
  certs: Certificates;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same ports (after stop). */
  start(): Promise<void>;
  /** SIGSTOP / SIGCONT: the server still accepts connections (the kernel does) but answers nothing. */
  freeze(): void;
  thaw(): void;
}

/** Starts a redis-server for this test (stopped in t.after). */
export async function startRedis(t: TestContext, certs: Certificates = makeCertificates(t)): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'oc-redis-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  let child: ChildProcess | undefined;
  let port = 0;
  let tlsPort = 0;

  const config = (): string => [
    `port ${port}`,
    'bind 127.0.0.1',
    `tls-port ${tlsPort}`,
    `tls-cert-file ${certs.certPath}`,
    `tls-key-file ${certs.keyPath}`,
    `tls-ca-cert-file ${certs.caPath}`,
    'tls-auth-clients no',
    `dir ${dir}`,
    'save ""',
    // Acknowledged writes must survive a stop and start (the fault tests).
    'appendonly yes',
    'appendfsync always',
    'daemonize no',
    'logfile ""',
    'loglevel notice',
    // Not "off": Redis 7.0 replays the AOF's transactions (every Lua commit)
    // with the default user's permissions and silently drops them when that
    // user may not run them (redis/redis#14541, valkey-io/valkey#3983). A
    // password keeps it closed to clients.
    `user default on >${DEFAULT_USER_PASSWORD} ~* &* +@all`,
    `user ${USERS.agent.name} on >${USERS.agent.password} ~oc:* &* +@all`,
    `user ${USERS.reader.name} on >${USERS.reader.password} ~oc:* &* -@all +@read +@connection`,
    `user ${USERS.other.name} on >${USERS.other.password} ~oc:{other}:* &* +@all`,
    `user ${USERS.minimal.name} on >${USERS.minimal.password} resetkeys ~oc:{${MINIMAL_PROJECT}}:* resetchannels &oc:{${MINIMAL_PROJECT}}:* ${MINIMAL_COMMANDS}`,
    `user ${USERS.noScript.name} on >${USERS.noScript.password} resetkeys ~oc:{${MINIMAL_PROJECT}}:* resetchannels &oc:{${MINIMAL_PROJECT}}:* ${MINIMAL_COMMANDS} -eval`,
    '',
  ].join('\n');

  const launch = async (): Promise<boolean> => {
    writeFileSync(join(dir, 'redis.conf'), config());
    const proc = spawn(REDIS_SERVER!, [join(dir, 'redis.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let log = '';
    return new Promise<boolean>((resolve, reject) => {
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`redis-server did not report ready within ${READY_TIMEOUT_MS} ms:\n${log}`));
      }, READY_TIMEOUT_MS);
      const onData = (chunk: Buffer): void => {
        log += chunk.toString();
        if (/Ready to accept connections/.test(log)) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', () => {
        clearTimeout(timer);
        if (/Address already in use/.test(log)) resolve(false);
        else reject(new Error(`redis-server exited before it was ready:\n${log}`));
      });
    });
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGCONT');
    proc.kill('SIGTERM');
    await exited;
  };

  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    tlsPort = await freePort();
    if (port !== tlsPort && await launch()) break;
    if (attempt >= 5) throw new Error('no free port pair for redis-server after 6 tries');
  }
  t.after(stop);
  return {
    port,
    tlsPort,
    certs,
    stop,
    start: async () => {
      if (!(await launch())) throw new Error(`port ${port} or ${tlsPort} was taken while redis-server was stopped`);
    },
    freeze: () => void child?.kill('SIGSTOP'),
    thaw: () => void child?.kill('SIGCONT'),
  };
}

/** An ACL user of the test server. */
export type User = { name: string; password: string };

/** A store configuration for `projectId` on the plain port of a test server, as `user` (agent by default). */
export function configFor(port: number, projectId: string, user: User = USERS.agent): RedisStoreConfig {
  return {
    isTls: false, host: '127.0.0.1', port, db: 0, username: user.name, password: user.password,
    projectId, keyPrefix: keyPrefixOf(projectId), ca: undefined, timeoutMs: 2_000,
  };
}

/**
 * The environment of a process (server, hook, watch) on a Redis project of
 * the test server, as the agent user; everything that could name another
 * store, project or identity is unset.
 */
export function storeEnv(redis: RedisServer, projectId: string): Record<string, string | undefined> {
  return {
    OPENCOMMS_STORE: `redis://${USERS.agent.name}@127.0.0.1:${redis.port}/0`,
    OPENCOMMS_STORE_PASSWORD: USERS.agent.password,
    OPENCOMMS_STORE_PASSWORD_FILE: undefined,
    OPENCOMMS_STORE_CA: undefined,
    OPENCOMMS_PROJECT_ID: projectId,
    OPENCOMMS_PROJECT_DIR: undefined,
    OPENCOMMS_MEMBER_ID: undefined,
    OPENCOMMS_NO_SPAWN: '1',
    CLAUDE_CODE_SESSION_ID: undefined,
    CLAUDE_CODE_ENTRYPOINT: undefined,
    AI_AGENT: undefined,
  };
}

/** Resolves when `check` holds (looked at every 20 ms), or fails after `ms`: for what no event announces. */
export async function eventually(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  await until(what, check, { timeoutMs: ms });
}
