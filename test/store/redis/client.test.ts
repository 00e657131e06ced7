// Our RESP client against a real redis-server started by the test: ACL users
// with passwords, a TLS port with a certificate made by openssl for this run.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { RedisClient, type HostLookup, type RedisClientOptions } from '../../../src/store/redis/client';
import { RespError } from '../../../src/store/redis/resp';
import { SKIP_WITHOUT_REDIS, startRedis, USERS, type RedisServer } from './server';
import { until } from '../../helpers/wait';

const skip = SKIP_WITHOUT_REDIS;
if (skip) test('Redis client tests need redis-server', { skip }, () => undefined);

function client(t: TestContext, server: RedisServer | { port: number }, options: Partial<RedisClientOptions> = {}): RedisClient {
  const c = new RedisClient({
    host: '127.0.0.1', port: server.port, isTls: false, username: USERS.agent.name, password: USERS.agent.password, db: 0, timeoutMs: 2_000, ...options,
  });
  t.after(() => c.close());
  return c;
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<Error> {
  let caught: unknown;
  await assert.rejects(promise, (err: Error & { code?: string }) => {
    caught = err;
    assert.equal(err.code, code, err.message);
    return true;
  });
  return caught as Error;
}

test('authenticates as an ACL user and answers commands and pipelines in order', { skip }, async (t) => {
  const server = await startRedis(t);
  const c = client(t, server);
  assert.equal(await c.command(['SET', 'oc:{p}:k', 'v\u00e9']), 'OK');
  assert.deepEqual(await c.command(['GET', 'oc:{p}:k']), Buffer.from('v\u00e9'));
  const replies = await c.pipeline(Array.from({ length: 200 }, () => ['INCR', 'oc:{p}:n']));
  assert.deepEqual(replies, Array.from({ length: 200 }, (_, i) => i + 1));
  const whoami = await c.command(['ACL', 'WHOAMI']);
  assert.equal(String(whoami), 'agent');
});

test('calls made before the connection is ready are all answered, in order', { skip }, async (t) => {
  const server = await startRedis(t);
  const c = client(t, server);
  const calls = Array.from({ length: 50 }, (_, i) => c.command(['SET', `oc:{p}:k${i}`, String(i)]).then(() => c.command(['GET', `oc:{p}:k${i}`])));
  const values = await Promise.all(calls);
  assert.deepEqual(values.map(String), Array.from({ length: 50 }, (_, i) => String(i)));
});

test('uses the database the URL names', { skip }, async (t) => {
  const server = await startRedis(t);
  await client(t, server, { db: 3 }).command(['SET', 'oc:{p}:db', 'three']);
  assert.equal(await client(t, server, { db: 0 }).command(['GET', 'oc:{p}:db']), null);
  assert.deepEqual(await client(t, server, { db: 3 }).command(['GET', 'oc:{p}:db']), Buffer.from('three'));
});

test('a pipeline returns an error reply in its place and keeps the other replies', { skip }, async (t) => {
  const server = await startRedis(t);
  const replies = await client(t, server).pipeline([['SET', 'oc:{p}:s', 'x'], ['INCR', 'oc:{p}:s'], ['GET', 'oc:{p}:s']]);
  assert.equal(replies[0], 'OK');
  assert.ok(replies[1] instanceof RespError);
  assert.deepEqual(replies[2], Buffer.from('x'));
});

test('a wrong password is store_auth_failed, naming the server and never the password', { skip }, async (t) => {
  const server = await startRedis(t);
  const err = await rejectsWith(client(t, server, { password: 'not-the-password' }).command(['PING']), 'store_auth_failed');
  assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${server.port}`));
  assert.match(err.message, /OPENCOMMS_STORE_PASSWORD/);
  assert.equal(err.message.includes('not-the-password'), false);
});

test('an unknown user, or the default user with another user\'s password, is store_auth_failed', { skip }, async (t) => {
  const server = await startRedis(t);
  await rejectsWith(client(t, server, { username: 'nobody' }).command(['PING']), 'store_auth_failed');
  await rejectsWith(client(t, server, { username: undefined }).command(['PING']), 'store_auth_failed');
});

test('an ACL user lacking a command is store_forbidden, naming the user and what to grant', { skip }, async (t) => {
  const server = await startRedis(t);
  const reader = client(t, server, { username: USERS.reader.name, password: USERS.reader.password, permissionHint: '~oc:{p}:* and +@all' });
  assert.equal(await reader.command(['GET', 'oc:{p}:x']), null);
  const err = await rejectsWith(reader.command(['SET', 'oc:{p}:x', '1']), 'store_forbidden');
  assert.match(err.message, /"reader"/);
  assert.match(err.message, /~oc:\{p\}:\*/);
  assert.match(err.message, new RegExp(`${server.port}`));
});

test('an ACL user lacking the key pattern is store_forbidden', { skip }, async (t) => {
  const server = await startRedis(t);
  const other = client(t, server, { username: USERS.other.name, password: USERS.other.password });
  assert.equal(await other.command(['SET', 'oc:{other}:x', '1']), 'OK');
  await rejectsWith(other.command(['GET', 'oc:{acme}:state']), 'store_forbidden');
  // the refusal is an answer, not a broken connection: the next call works
  assert.deepEqual(await other.command(['GET', 'oc:{other}:x']), Buffer.from('1'));
});

test('TLS with the private CA connects, authenticates and answers', { skip }, async (t) => {
  const server = await startRedis(t);
  const c = client(t, server, { port: server.tlsPort, isTls: true, ca: server.certs.caPem });
  assert.equal(await c.command(['PING']), 'PONG');
  const via = await c.command(['CLIENT', 'INFO']);
  assert.match(String(via), /user=agent/);
});

test('TLS verifies the certificate: without the CA, or with another CA, it is store_tls_failed', { skip }, async (t) => {
  const server = await startRedis(t);
  const err = await rejectsWith(client(t, server, { port: server.tlsPort, isTls: true }).command(['PING']), 'store_tls_failed');
  assert.match(err.message, /OPENCOMMS_STORE_CA/);
  const otherCa = readFileSync(server.certs.otherCaPath, 'utf8');
  await rejectsWith(client(t, server, { port: server.tlsPort, isTls: true, ca: otherCa }).command(['PING']), 'store_tls_failed');
});

test('TLS checks the name: a certificate for another host is store_tls_failed even from a trusted CA', { skip }, async (t) => {
  const server = await startRedis(t);
  const { certs } = server;
  // A TLS listener (not Redis: the handshake fails before any RESP) with a
  // certificate from the same CA for another name only.
  const tls = await import('node:tls');
  const listener = tls.createServer({ cert: readFileSync(certs.otherNameCertPath), key: readFileSync(certs.keyPath) }, (s) => s.end());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => listener.close());
  const err = await rejectsWith(client(t, listener.address() as { port: number }, { isTls: true, ca: certs.caPem }).command(['PING']), 'store_tls_failed');
  assert.match(err.message, /ERR_TLS_CERT_ALTNAME_INVALID/);
});

test('a plain-text connection to the TLS port is refused clearly', { skip }, async (t) => {
  const server = await startRedis(t);
  const started = Date.now();
  const err = await rejectsWith(client(t, server, { port: server.tlsPort }).command(['PING']), 'store_tls_required');
  assert.match(err.message, /rediss:\/\//);
  assert.ok(Date.now() - started < 2_000);
});

test('TLS to the plain-text port is store_tls_failed, naming the port to check', { skip }, async (t) => {
  const server = await startRedis(t);
  const started = Date.now();
  const err = await rejectsWith(client(t, server, { isTls: true, ca: server.certs.caPem, timeoutMs: 700 }).command(['PING']), 'store_tls_failed');
  assert.match(err.message, /tls-port/);
  assert.ok(Date.now() - started < 2_000);
});

test('nothing listening: store_unreachable at once, naming the host and port', { skip }, async (t) => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const started = Date.now();
  const err = await rejectsWith(client(t, { port }).command(['PING']), 'store_unreachable');
  assert.ok(Date.now() - started < 2_000);
  assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
});

test('a server that accepts but never answers: store_unreachable within the timeout', { skip }, async (t) => {
  const sockets: Socket[] = [];
  const silent = createServer((s) => void sockets.push(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const started = Date.now();
  const err = await rejectsWith(client(t, silent.address() as { port: number }, { timeoutMs: 700 }).command(['PING']), 'store_unreachable');
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 690 && elapsed < 2_000, `took ${elapsed} ms`);
  assert.match(err.message, /700 ms/);
});

test('server stopped: store_unreachable within the timeout, then success after restart', { skip }, async (t) => {
  const server = await startRedis(t);
  const c = client(t, server, { timeoutMs: 1_500 });
  assert.equal(await c.command(['SET', 'oc:{p}:before', '1']), 'OK');
  await server.stop();
  let started = Date.now();
  await rejectsWith(c.command(['PING']), 'store_unreachable');
  assert.ok(Date.now() - started <= 1_500 + 500);
  started = Date.now();
  await rejectsWith(c.command(['PING']), 'store_unreachable');
  assert.ok(Date.now() - started <= 1_500 + 500);
  await server.start();
  assert.equal(await c.command(['PING']), 'PONG');
});

test('server frozen mid-run: store_unreachable within the timeout; thawed, calls succeed again', { skip }, async (t) => {
  const server = await startRedis(t);
  const c = client(t, server, { timeoutMs: 800 });
  assert.equal(await c.command(['PING']), 'PONG');
  server.freeze();
  const started = Date.now();
  await rejectsWith(c.command(['PING']), 'store_unreachable');
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 790 && elapsed < 2_000, `took ${elapsed} ms`);
  server.thaw();
  assert.equal(await c.command(['PING']), 'PONG');
});

test('a connection killed by the server is reopened on the next call', { skip }, async (t) => {
  const server = await startRedis(t);
  const c = client(t, server);
  const id = await c.command(['CLIENT', 'ID']);
  const before = c.connection;
  await client(t, server).command(['CLIENT', 'KILL', 'ID', String(id)]);
  // The kill may reach us before or after the next call is written; either
  // way that call fails cleanly or succeeds, and the one after it succeeds.
  await c.command(['PING']).catch((err: Error & { code?: string }) => assert.equal(err.code, 'store_unreachable'));
  assert.equal(await c.command(['PING']), 'PONG');
  assert.ok(c.connection > before);
});

test('a reply over the size guard is store_protocol_error, and the next call works on a fresh connection', { skip }, async (t) => {
  const server = await startRedis(t);
  await client(t, server).command(['SET', 'oc:{p}:big', 'x'.repeat(10_000)]);
  const small = client(t, server, { maxReplyBytes: 4_096 });
  await rejectsWith(small.command(['GET', 'oc:{p}:big']), 'store_protocol_error');
  assert.equal(await small.command(['PING']), 'PONG');
});

test('a call on a closed client fails at once', { skip }, async (t) => {
  const server = await startRedis(t);
  const c = client(t, server);
  assert.equal(await c.command(['PING']), 'PONG');
  await c.close();
  await rejectsWith(c.command(['PING']), 'store_unreachable');
});

test('an idle connection does not keep a finished process alive', { skip }, async (t) => {
  const server = await startRedis(t);
  const clientModule = join(__dirname, '..', '..', '..', 'src', 'store', 'redis', 'client.js');
  const script = `
    const { RedisClient } = require(${JSON.stringify(clientModule)});
    const c = new RedisClient({ host: '127.0.0.1', port: ${server.port}, isTls: false, username: 'agent', password: ${JSON.stringify(USERS.agent.password)}, db: 0, timeoutMs: 2000 });
    c.command(['PING']).then((r) => console.log(r));
  `;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(result.signal, null, 'the process had to be killed: the idle connection kept it alive');
  assert.equal(result.stdout.trim(), 'PONG');
});

test('speaks RESP3 after HELLO 3 where the server offers it, authenticated as the ACL user, and pub/sub works on it', { skip }, async (t) => {
  const server = await startRedis(t);
  const c = client(t, server);
  const info = String(await c.command(['CLIENT', 'INFO']));
  assert.match(info, / resp=3\s*$/);
  assert.match(info, / user=agent /);
  assert.equal(c.protocolVersion, 3);
  // A RESP3 map (HGETALL) still reads as field, value, …
  await c.command(['HSET', 'oc:{p}:h', 'a', '1', 'b', '2']);
  assert.deepEqual((await c.command(['HGETALL', 'oc:{p}:h']) as Buffer[]).map(String).sort(), ['1', '2', 'a', 'b']);
  const subscriber = client(t, server);
  const heard: string[] = [];
  await subscriber.subscribe('oc:{p}:notices', (_channel, payload) => heard.push(payload));
  await c.command(['PUBLISH', 'oc:{p}:notices', 'v1']);
  await until('the published notice', () => heard.length > 0, { timeoutMs: 5_000, everyMs: 10 });
  assert.deepEqual(heard, ['v1']);
});

// A server that knows no HELLO (as Redis before 6, or a proxy that does not pass it on):
// it answers HELLO with an error and everything else as a RESP2 server would.
async function helloLessServer(t: TestContext): Promise<{ port: number; commands: string[][] }> {
  const commands: string[][] = [];
  const sockets: Socket[] = [];
  const listener = createServer((socket) => {
    sockets.push(socket);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const parsed = parseCommand(buffered);
        if (!parsed) return;
        buffered = buffered.slice(parsed.length);
        commands.push(parsed.args);
        const name = parsed.args[0]!.toUpperCase();
        if (name === 'HELLO') socket.write("-ERR unknown command 'HELLO', with args beginning with: '3'\r\n");
        else if (name === 'AUTH') socket.write(parsed.args[2] === 'right' ? '+OK\r\n' : '-WRONGPASS invalid username-password pair\r\n');
        else if (name === 'PING') socket.write('+PONG\r\n');
        else if (name === 'GET') socket.write('-LOADING Redis is loading the dataset in memory\r\n');
        else socket.write('-ERR unexpected\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => {
    for (const s of sockets) s.destroy();
    listener.close();
  });
  return { port: (listener.address() as { port: number }).port, commands };
}

// One RESP array of bulk strings from the front of `text`, or undefined while incomplete.
function parseCommand(text: string): { args: string[]; length: number } | undefined {
  const head = /^\*(\d+)\r\n/.exec(text);
  if (!head) return undefined;
  let at = head[0].length;
  const args: string[] = [];
  for (let i = 0; i < Number(head[1]); i++) {
    const len = /^\$(\d+)\r\n/.exec(text.slice(at));
    if (!len) return undefined;
    at += len[0].length;
    if (text.length < at + Number(len[1]) + 2) return undefined;
    args.push(text.slice(at, at + Number(len[1])));
    at += Number(len[1]) + 2;
  }
  return { args, length: at };
}

test('a server without HELLO gets AUTH instead and the client stays on RESP2; its refusal of the password is still store_auth_failed', async (t) => {
  const fake = await helloLessServer(t);
  const c = client(t, fake, { username: 'agent', password: 'right' });
  assert.equal(await c.command(['PING']), 'PONG');
  assert.equal(c.protocolVersion, 2);
  assert.deepEqual(fake.commands.map((args) => args[0]), ['HELLO', 'AUTH', 'PING']);
  assert.deepEqual(fake.commands[1], ['AUTH', 'agent', 'right']);
  const wrong = client(t, fake, { username: 'agent', password: 'wrong' });
  const err = await rejectsWith(wrong.command(['PING']), 'store_auth_failed');
  assert.doesNotMatch(err.message, /wrong/);
});

test('a server still loading its data after a restart (LOADING) is store_unreachable, to try again, not state_unwritable', async (t) => {
  const fake = await helloLessServer(t);
  const c = client(t, fake, { username: 'agent', password: 'right' });
  const err = await rejectsWith(c.command(['GET', 'oc:{p}:state']), 'store_unreachable');
  assert.match(err.message, /still starting/);
});

// ---- plain text goes only to this machine, by the address connected to -------

/** An IPv4 address of this machine that is not loopback, where a listener can see a connection arrive. */
function outsideAddress(): string | undefined {
  return Object.values(networkInterfaces()).flat().find((a) => a !== undefined && !a.internal && a.family === 'IPv4')?.address;
}

/** A resolver for the test: answers `answers` for every name, and records each name asked. */
function fixedLookup(answers: string[]): { lookup: HostLookup; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    lookup: async (host) => {
      asked.push(host);
      return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
}

const OUTSIDE = outsideAddress();

test('a plain-text name that resolves off this machine is refused before any connection, so the password goes nowhere', { skip: skip || (OUTSIDE === undefined && 'this machine has no non-loopback IPv4 address to listen on') }, async (t) => {
  const received: Buffer[] = [];
  const sockets: Socket[] = [];
  const listener = createServer((s) => {
    sockets.push(s);
    s.on('data', (chunk: Buffer) => received.push(chunk));
  });
  await new Promise<void>((resolve) => listener.listen(0, OUTSIDE, () => resolve()));
  t.after(() => {
    for (const s of sockets) s.destroy();
    listener.close();
  });
  const { port } = listener.address() as { port: number };
  for (const [host, answers] of [
    ['evil.localhost', [OUTSIDE!]],
    ['localhost', [OUTSIDE!]],
    ['mixed.localhost', ['127.0.0.1', OUTSIDE!]],
  ] as const) {
    const resolver = fixedLookup([...answers]);
    const err = await rejectsWith(client(t, { port }, { host, lookup: resolver.lookup }).command(['PING']), 'store_tls_required');
    assert.deepEqual(resolver.asked, [host], 'the name was resolved by the client');
    assert.ok(err.message.includes(OUTSIDE!), `the refusal names the address: ${err.message}`);
    assert.match(err.message, /rediss:\/\//);
  }
  assert.equal(sockets.length, 0, 'no connection reached the address the name resolved to');
  assert.equal(Buffer.concat(received).includes(USERS.agent.password), false);
});

test('a plain-text name that resolves to loopback only is connected to at the address it resolved to', { skip }, async (t) => {
  const server = await startRedis(t);
  // .invalid never resolves (RFC 6761): the connection can only use the address the client resolved.
  const resolver = fixedLookup(['127.0.0.1']);
  const c = client(t, server, { host: 'opencomms-pinned.invalid', lookup: resolver.lookup });
  assert.equal(await c.command(['PING']), 'PONG');
  assert.deepEqual(resolver.asked, ['opencomms-pinned.invalid']);
  assert.match(String(await c.command(['CLIENT', 'INFO'])), new RegExp(`laddr=127\\.0\\.0\\.1:${server.port}`));
});

test('a plain-text connection to an address that is not loopback is refused without resolving or connecting', async (t) => {
  const resolver = fixedLookup(['127.0.0.1']);
  await rejectsWith(client(t, { port: 6379 }, { host: '192.0.2.1', lookup: resolver.lookup }).command(['PING']), 'store_tls_required');
  assert.deepEqual(resolver.asked, []);
});
