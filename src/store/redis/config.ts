// Which store a process uses, and for Redis everything needed to reach it
// safely: the endpoint from the URL, the password from the environment (never
// from the URL or a command line), the project id that names the keys, and a
// CA for a private TLS chain. Every refusal here happens before any byte goes
// to the network (PROTOCOL.md "Store selection").
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StoreFault } from '../../files/faults';
import { describeEndpoint, displayUrl, isLoopbackAddress, keyPrefixOf, parseStoreUrl, type RedisEndpoint } from './url';

export { describeEndpoint, displayUrl, keyPrefixOf, parseStoreUrl, REDIS_DEFAULT_PORT } from './url';
export type { ParsedStoreUrl, RedisEndpoint } from './url';

/** Every call to the store (connect, command, reply) is bounded by this by default. */
export const STORE_TIMEOUT_MS = 5_000;
/** A password or CA file larger than this is not what it claims to be. */
const MAX_SECRET_FILE_BYTES = 64 * 1024;
/** Project ids name keys: no braces (they would break the hash tag), no spaces, 128 at most. */
export const PROJECT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A Redis store, fully configured: ready to connect. */
export interface RedisStoreConfig extends RedisEndpoint {
  password: string;
  projectId: string;
  /** Every key of the project starts with this: `oc:{<project id>}:`. */
  keyPrefix: string;
  /** PEM text of the CA bundle from OPENCOMMS_STORE_CA, when set. */
  ca: string | undefined;
  timeoutMs: number;
}

export type StoreSelection = { kind: 'file' } | { kind: 'redis'; config: RedisStoreConfig };

/** The environment variables this module reads (passed in; only cli/ touches process.env). */
export type StoreEnv = Readonly<Record<string, string | undefined>>;

/**
 * Whether a host may be this machine's loopback (the only place plain-text
 * redis:// may go), as far as its text tells: a loopback address, or
 * localhost or a *.localhost name. A name is no proof: the client resolves it
 * and connects only when every address it has is loopback (client.ts).
 */
export function isLoopbackHost(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === 'localhost' || lower.endsWith('.localhost') || isLoopbackAddress(lower);
}

export interface ResolveStoreOptions {
  /** The --store flag, which wins over OPENCOMMS_STORE. */
  flag?: string;
  env: StoreEnv;
  timeoutMs?: number;
}

/** A Redis store as --store / OPENCOMMS_STORE and OPENCOMMS_PROJECT_ID name it: where, and which project; no secret. */
export interface RedisStoreTarget {
  endpoint: RedisEndpoint;
  projectId: string;
  /** The URL as it may be shown and written down: `rediss://user@host:port/db`. */
  url: string;
}

/**
 * The Redis store named by --store / OPENCOMMS_STORE, checked as far as it
 * can be without credentials: the URL, the project id, and plain text only to
 * this machine. Undefined for the file store. Throws a StoreFault
 * (`store_config_invalid`, `store_tls_required`); `install --store` writes
 * what this accepts into host configs.
 */
export function resolveStoreTarget(options: Omit<ResolveStoreOptions, 'timeoutMs'>): RedisStoreTarget | undefined {
  const raw = (options.flag ?? options.env.OPENCOMMS_STORE ?? '').trim();
  if (raw === '' || raw === 'file') return undefined;
  const parsed = parseStoreUrl(raw);
  if (!parsed.ok) throw configFault(parsed.message);
  const endpoint = parsed.endpoint;
  const where = displayUrl(endpoint);
  const projectId = (options.env.OPENCOMMS_PROJECT_ID ?? '').trim();
  if (projectId === '') {
    throw configFault(`The Redis store ${where} needs OPENCOMMS_PROJECT_ID: it names the project whose channels live there. Set it to the same id on every machine that shares these channels (letters, digits, ., _ or -).`);
  }
  if (!PROJECT_ID_PATTERN.test(projectId)) {
    throw configFault(`OPENCOMMS_PROJECT_ID ${JSON.stringify(projectId.slice(0, 140))} cannot name a Redis project: use 1-128 letters, digits, ., _ or -, starting with a letter or digit.`);
  }
  // Plain text off this machine is refused before the password is even read.
  if (!endpoint.isTls && !isLoopbackHost(endpoint.host)) {
    throw new StoreFault('store_tls_required',
      `Refusing to reach the Redis store at ${describeEndpoint(endpoint)} without TLS: redis:// is allowed only to this machine (localhost, 127.0.0.1, ::1). Use rediss://… for ${endpoint.host}, and enable TLS on that server`, undefined, true);
  }
  return { endpoint, projectId, url: where };
}

/**
 * The store this process must use: `file` when neither --store nor
 * OPENCOMMS_STORE names another, else a fully checked Redis configuration.
 * Throws a StoreFault (`store_config_invalid`, `store_auth_required`,
 * `store_tls_required`) naming what is wrong and what to do; nothing has
 * touched the network by then.
 */
export function resolveStoreSelection(options: ResolveStoreOptions): StoreSelection {
  const target = resolveStoreTarget(options);
  if (target === undefined) return { kind: 'file' };
  const { endpoint, projectId, url: where } = target;
  const password = readPassword(options.env, where);
  const ca = readCa(options.env, endpoint, where);
  return {
    kind: 'redis',
    config: {
      ...endpoint,
      password,
      projectId,
      keyPrefix: keyPrefixOf(projectId),
      ca,
      timeoutMs: options.timeoutMs ?? STORE_TIMEOUT_MS,
    },
  };
}

function configFault(message: string): StoreFault {
  return new StoreFault('store_config_invalid', message.replace(/\.$/, ''), undefined, true);
}

function readPassword(env: StoreEnv, where: string): string {
  const direct = env.OPENCOMMS_STORE_PASSWORD;
  const file = env.OPENCOMMS_STORE_PASSWORD_FILE?.trim();
  if (direct !== undefined && direct !== '' && file) {
    throw configFault(`Both OPENCOMMS_STORE_PASSWORD and OPENCOMMS_STORE_PASSWORD_FILE are set for ${where}: keep only one.`);
  }
  let password = direct ?? '';
  if (file) password = stripFinalNewline(readOwnerOnlyFile(file, 'OPENCOMMS_STORE_PASSWORD_FILE'));
  if (password === '') {
    throw new StoreFault('store_auth_required',
      `The Redis store ${where} needs credentials and none were given, so nothing was sent to it. Set OPENCOMMS_STORE_PASSWORD, or OPENCOMMS_STORE_PASSWORD_FILE to a file only you can read, and name the ACL user in the URL (rediss://user@host:port/db)`, undefined, true);
  }
  return password;
}

function readCa(env: StoreEnv, endpoint: RedisEndpoint, where: string): string | undefined {
  const path = env.OPENCOMMS_STORE_CA?.trim();
  if (!path) return undefined;
  if (!endpoint.isTls) {
    throw configFault(`OPENCOMMS_STORE_CA is set but ${where} is plain text (redis://): use rediss://… to connect over TLS, or unset OPENCOMMS_STORE_CA.`);
  }
  const text = readSmallFile(path, 'OPENCOMMS_STORE_CA').text;
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw configFault(`OPENCOMMS_STORE_CA (${path}) holds no PEM certificate: point it at the CA bundle (-----BEGIN CERTIFICATE-----) that signed the server's certificate.`);
  }
  return text;
}

function stripFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

// A password file must be a regular file of this user that no one else may
// read or write (the mode's group and other bits are all clear).
function readOwnerOnlyFile(path: string, variable: string): string {
  const { text, mode, uid } = readSmallFile(path, variable);
  const myUid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (myUid !== undefined && uid !== myUid) {
    throw configFault(`${variable} (${path}) belongs to another user (uid ${uid}): the password file must be your own. Copy it to a file you own and chmod 600 it.`);
  }
  if (myUid !== undefined && (mode & 0o077) !== 0) {
    throw configFault(`${variable} (${path}) can be read or written by others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): run chmod 600 on it, then try again.`);
  }
  return text;
}

function readSmallFile(path: string, variable: string): { text: string; mode: number; uid: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw configFault(`${variable} (${path}) cannot be opened${typeof code === 'string' ? ` (${code})` : ''}: check the path and its permissions.`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw configFault(`${variable} (${path}) is not a regular file.`);
    if (stat.size > MAX_SECRET_FILE_BYTES) throw configFault(`${variable} (${path}) is larger than ${MAX_SECRET_FILE_BYTES} bytes: point it at the right file.`);
    const buffer = Buffer.alloc(stat.size);
    let got = 0;
    while (got < buffer.length) {
      const n = readSync(fd, buffer, got, buffer.length - got, got);
      if (n <= 0) break;
      got += n;
    }
    return { text: buffer.toString('utf8', 0, got), mode: stat.mode, uid: stat.uid };
  } finally {
    closeSync(fd);
  }
}
