import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  displayUrl, isLoopbackHost, keyPrefixOf, parseStoreUrl, resolveStoreSelection, STORE_TIMEOUT_MS,
} from '../../../src/store/redis/config';
import { isLoopbackAddress } from '../../../src/store/redis/url';
import { REASONS } from '../../../src/engine/reasons';
import { parseCommandLine, UsageError } from '../../../src/cli/args';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'oc-redis-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const BASE = { OPENCOMMS_PROJECT_ID: 'acme-web', OPENCOMMS_STORE_PASSWORD: 's3cret-pw' };

test('no OPENCOMMS_STORE, or "file", selects the file store', () => {
  assert.deepEqual(resolveStoreSelection({ env: {} }), { kind: 'file' });
  assert.deepEqual(resolveStoreSelection({ env: { OPENCOMMS_STORE: 'file' } }), { kind: 'file' });
  assert.deepEqual(resolveStoreSelection({ env: { OPENCOMMS_STORE: '  ' } }), { kind: 'file' });
});

test('a redis:// URL to loopback selects Redis with the user, port, db and a 5 s bound', () => {
  const selection = resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'redis://agent@127.0.0.1:6380/3' } });
  assert.equal(selection.kind, 'redis');
  if (selection.kind !== 'redis') return;
  const { config } = selection;
  assert.deepEqual(
    { isTls: config.isTls, host: config.host, port: config.port, db: config.db, username: config.username, password: config.password, timeoutMs: config.timeoutMs },
    { isTls: false, host: '127.0.0.1', port: 6380, db: 3, username: 'agent', password: 's3cret-pw', timeoutMs: STORE_TIMEOUT_MS },
  );
  assert.equal(STORE_TIMEOUT_MS, 5000);
});

test('--store wins over OPENCOMMS_STORE', () => {
  const selection = resolveStoreSelection({ flag: 'file', env: { ...BASE, OPENCOMMS_STORE: 'redis://a@localhost/0' } });
  assert.deepEqual(selection, { kind: 'file' });
  const other = resolveStoreSelection({ flag: 'redis://b@localhost:7000', env: { ...BASE, OPENCOMMS_STORE: 'file' } });
  assert.equal(other.kind === 'redis' && other.config.port, 7000);
});

test('defaults are port 6379, db 0 and the default user', () => {
  const parsed = parseStoreUrl('rediss://cache.example.com');
  assert.deepEqual(parsed, { ok: true, endpoint: { isTls: true, host: 'cache.example.com', port: 6379, db: 0, username: undefined } });
});

test('an IPv6 host and a percent-encoded user are understood', () => {
  const parsed = parseStoreUrl('redis://team%2Bbot@[::1]:6390/1');
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.endpoint, { isTls: false, host: '::1', port: 6390, db: 1, username: 'team+bot' });
  assert.equal(displayUrl(parsed.endpoint), 'redis://team%2Bbot@[::1]:6390/1');
});

test('a password in the URL is refused and never echoed', () => {
  const parsed = parseStoreUrl('rediss://agent:hunter2@cache.example.com:6380/0');
  assert.equal(parsed.ok, false);
  if (parsed.ok) return;
  assert.match(parsed.message, /OPENCOMMS_STORE_PASSWORD/);
  assert.equal(parsed.message.includes('hunter2'), false);
});

test('malformed store URLs are refused with a reason', () => {
  for (const text of ['http://x', 'redis://', 'redis://h/notadb', 'redis://h/0?x=1', 'redis://h:99999/0', 'nonsense', 'redis://h/0#f']) {
    const parsed = parseStoreUrl(text);
    assert.equal(parsed.ok, false, text);
  }
  assert.throws(() => resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'http://x' } }), { code: 'store_config_invalid' });
});

test('Redis without OPENCOMMS_PROJECT_ID is refused, saying what to set', () => {
  assert.throws(
    () => resolveStoreSelection({ env: { OPENCOMMS_STORE: 'redis://a@localhost', OPENCOMMS_STORE_PASSWORD: 'x' } }),
    (err: Error & { code?: string }) => err.code === 'store_config_invalid' && /OPENCOMMS_PROJECT_ID/.test(err.message),
  );
});

test('a project id that would break the hash tag is refused', () => {
  for (const id of ['a}b', 'x{y', 'has space', '-lead', 'a'.repeat(129)]) {
    assert.throws(() => resolveStoreSelection({ env: { ...BASE, OPENCOMMS_PROJECT_ID: id, OPENCOMMS_STORE: 'redis://a@localhost' } }), { code: 'store_config_invalid' }, id);
  }
});

test('every key of a project shares one hash tag', () => {
  assert.equal(keyPrefixOf('acme-web'), 'oc:{acme-web}:');
  const selection = resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'redis://a@localhost' } });
  assert.equal(selection.kind === 'redis' && selection.config.keyPrefix, 'oc:{acme-web}:');
});

test('no credentials: store_auth_required before anything is sent, naming the variables', () => {
  assert.throws(
    () => resolveStoreSelection({ env: { OPENCOMMS_PROJECT_ID: 'p', OPENCOMMS_STORE: 'redis://a@127.0.0.1:1/0' } }),
    (err: Error & { code?: string }) => err.code === 'store_auth_required' && /OPENCOMMS_STORE_PASSWORD/.test(err.message) && /127\.0\.0\.1:1/.test(err.message),
  );
  assert.throws(() => resolveStoreSelection({ env: { OPENCOMMS_PROJECT_ID: 'p', OPENCOMMS_STORE_PASSWORD: '', OPENCOMMS_STORE: 'redis://a@localhost' } }), { code: 'store_auth_required' });
});

test('plain redis:// to a host other than loopback: store_tls_required, naming the host', () => {
  for (const host of ['10.0.0.5', 'cache.example.com', '[2001:db8::1]', '0.0.0.0']) {
    assert.throws(
      () => resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: `redis://a@${host}:6379/0` } }),
      (err: Error & { code?: string }) => err.code === 'store_tls_required' && err.message.includes(host.replace(/^\[|\]$/g, '')) && /rediss:\/\//.test(err.message),
      host,
    );
  }
  const ok = resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'rediss://a@cache.example.com:6380/0' } });
  assert.equal(ok.kind, 'redis');
});

test('loopback means localhost, 127.0.0.0/8 and ::1 only', () => {
  for (const host of ['localhost', '127.0.0.1', '127.3.4.5', '::1', 'LOCALHOST']) assert.equal(isLoopbackHost(host), true, host);
  for (const host of ['0.0.0.0', '10.1.1.1', 'example.com', '::', '128.0.0.1', 'localhost.example.com']) assert.equal(isLoopbackHost(host), false, host);
});

test('an address is loopback only in 127.0.0.0/8 or ::1; a name never is, whatever it ends with', () => {
  for (const address of ['127.0.0.1', '127.255.255.255', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.2', '::FFFF:127.0.0.1']) assert.equal(isLoopbackAddress(address), true, address);
  for (const address of ['localhost', 'evil.localhost', '192.0.2.1', '127.0.0.256', '::', '::ffff:10.0.0.1', '128.0.0.1', '::2']) assert.equal(isLoopbackAddress(address), false, address);
  // The URL's name may still say loopback: the client resolves it and connects only to loopback addresses.
  assert.equal(resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'redis://a@evil.localhost/0' } }).kind, 'redis');
});

test('the password may come from an owner-only file (one final newline dropped)', (t) => {
  const file = join(tempDir(t), 'pw');
  writeFileSync(file, 'from-file-pw\n', { mode: 0o600 });
  const selection = resolveStoreSelection({ env: { OPENCOMMS_PROJECT_ID: 'p', OPENCOMMS_STORE: 'redis://a@localhost', OPENCOMMS_STORE_PASSWORD_FILE: file } });
  assert.equal(selection.kind === 'redis' && selection.config.password, 'from-file-pw');
});

test('a password file others can read is refused, saying how to fix it', { skip: process.getuid === undefined }, (t) => {
  const file = join(tempDir(t), 'pw');
  writeFileSync(file, 'pw', { mode: 0o600 });
  chmodSync(file, 0o640);
  assert.throws(
    () => resolveStoreSelection({ env: { OPENCOMMS_PROJECT_ID: 'p', OPENCOMMS_STORE: 'redis://a@localhost', OPENCOMMS_STORE_PASSWORD_FILE: file } }),
    (err: Error & { code?: string }) => err.code === 'store_config_invalid' && /chmod 600/.test(err.message) && !err.message.includes('pw\n'),
  );
});

test('a missing password file and two password sources are refused', (t) => {
  const dir = tempDir(t);
  assert.throws(() => resolveStoreSelection({ env: { OPENCOMMS_PROJECT_ID: 'p', OPENCOMMS_STORE: 'redis://a@localhost', OPENCOMMS_STORE_PASSWORD_FILE: join(dir, 'nope') } }), { code: 'store_config_invalid' });
  const file = join(dir, 'pw');
  writeFileSync(file, 'pw', { mode: 0o600 });
  assert.throws(() => resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'redis://a@localhost', OPENCOMMS_STORE_PASSWORD_FILE: file } }), { code: 'store_config_invalid' });
  assert.throws(() => resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'redis://a@localhost', OPENCOMMS_STORE_PASSWORD_FILE: dir } }), { code: 'store_config_invalid' });
});

test('OPENCOMMS_STORE_CA is read for rediss:// and refused for plain text or a non-PEM file', (t) => {
  const dir = tempDir(t);
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  const selection = resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'rediss://a@cache.example.com', OPENCOMMS_STORE_CA: ca } });
  assert.match(selection.kind === 'redis' ? selection.config.ca ?? '' : '', /BEGIN CERTIFICATE/);
  assert.throws(() => resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'redis://a@localhost', OPENCOMMS_STORE_CA: ca } }), { code: 'store_config_invalid' });
  const junk = join(dir, 'junk');
  writeFileSync(junk, 'not a cert');
  assert.throws(() => resolveStoreSelection({ env: { ...BASE, OPENCOMMS_STORE: 'rediss://a@h', OPENCOMMS_STORE_CA: junk } }), { code: 'store_config_invalid' });
});

test('the store reason codes are public reasons', () => {
  for (const reason of ['store_auth_required', 'store_tls_required', 'store_auth_failed', 'store_forbidden', 'store_unreachable', 'store_config_invalid']) {
    assert.ok((REASONS as readonly string[]).includes(reason), reason);
  }
});

test('--store is taken by every command that opens a project', () => {
  for (const command of ['serve', 'status', 'hook', 'doctor', 'watch']) {
    const parsed = parseCommandLine([command, '--store', 'redis://a@localhost:6379/0']);
    assert.equal(parsed.kind === 'command' && parsed.flags.store, 'redis://a@localhost:6379/0', command);
  }
  const eq = parseCommandLine(['status', '--store=file']);
  assert.equal(eq.kind === 'command' && eq.flags.store, 'file');
  const none = parseCommandLine(['status']);
  assert.equal(none.kind === 'command' && none.flags.store, undefined);
});

test('--store with a malformed URL or a password in it is a usage error', () => {
  assert.throws(() => parseCommandLine(['status', '--store', 'mysql://x']), (err) => err instanceof UsageError && err.exitCode === 2);
  assert.throws(
    () => parseCommandLine(['serve', '--store', 'redis://a:topsecret@localhost']),
    (err) => err instanceof UsageError && !(err as Error).message.includes('topsecret') && /OPENCOMMS_STORE_PASSWORD/.test((err as Error).message),
  );
  assert.throws(() => parseCommandLine(['status', '--store']), UsageError);
});
