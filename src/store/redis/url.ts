// The store URL, parsed without loading node:net: the command-line parser
// checks --store with it on every start.

/** Redis's own default port. */
export const REDIS_DEFAULT_PORT = 6379;

/** Where a Redis store lives, as its URL says. */
export interface RedisEndpoint {
  isTls: boolean;
  host: string;
  port: number;
  db: number;
  /** The ACL user; undefined means Redis's `default` user. */
  username: string | undefined;
}

export type ParsedStoreUrl = { ok: true; endpoint: RedisEndpoint } | { ok: false; message: string };

/** Whether an IP address (not a name) is this machine's loopback: 127.0.0.0/8 or ::1, also written IPv4-mapped. */
export function isLoopbackAddress(address: string): boolean {
  const lower = address.toLowerCase();
  const v4 = /^(?:::ffff:)?(127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(lower);
  if (v4) return v4[1]!.split('.').every((part) => Number(part) <= 255);
  return lower === '::1' || lower === '0:0:0:0:0:0:0:1';
}

/** `host:port`, with brackets around an IPv6 address: how messages name a server. */
export function describeEndpoint(endpoint: Pick<RedisEndpoint, 'host' | 'port'>): string {
  return `${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
}

/** The URL without any secret: `rediss://user@host:port/db`. */
export function displayUrl(endpoint: RedisEndpoint): string {
  const user = endpoint.username === undefined ? '' : `${encodeURIComponent(endpoint.username)}@`;
  return `${endpoint.isTls ? 'rediss' : 'redis'}://${user}${describeEndpoint(endpoint)}/${endpoint.db}`;
}

/** The key prefix of a project: one hash tag, so a Redis Cluster keeps the whole project in one slot. */
export function keyPrefixOf(projectId: string): string {
  return `oc:{${projectId}}:`;
}

/**
 * Parses `redis://[user@]host[:port][/db]` or `rediss://…`. A password in
 * the URL is refused: it would end up in shell history, process lists and
 * host configs.
 */
export function parseStoreUrl(text: string): ParsedStoreUrl {
  const bad = (why: string): ParsedStoreUrl => ({ ok: false, message: `The store URL ${JSON.stringify(redactUrl(text))} ${why}` });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return bad('is not a URL: use redis://user@host:port/db or rediss://user@host:port/db.');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    return bad('has an unknown scheme: use file, redis://… (loopback only) or rediss://… (TLS).');
  }
  if (url.password !== '') {
    return bad('carries a password: remove it from the URL and put it in OPENCOMMS_STORE_PASSWORD or OPENCOMMS_STORE_PASSWORD_FILE.');
  }
  if (url.search !== '' || url.hash !== '') return bad('has a query or fragment, which the store does not use: remove it.');
  const host = url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') return bad('names no host: use redis://user@host:port/db.');
  const dbMatch = /^\/?(\d{0,9})$/.exec(url.pathname);
  if (!dbMatch) return bad('has a path other than a database number: use /0, /1, … at the end.');
  let username: string | undefined;
  try {
    username = url.username === '' ? undefined : decodeURIComponent(url.username);
  } catch {
    return bad('has a user name that is not valid percent-encoding.');
  }
  // eslint-disable-next-line no-control-regex
  if (username !== undefined && /[\x00-\x20\x7f]/.test(username)) return bad('has a user name with spaces or control characters.');
  return {
    ok: true,
    endpoint: {
      isTls: url.protocol === 'rediss:',
      host,
      port: url.port === '' ? REDIS_DEFAULT_PORT : Number(url.port),
      db: dbMatch[1] === '' ? 0 : Number(dbMatch[1]),
      username,
    },
  };
}

/** The URL as it may be shown: whatever sits between `//` and `@` is replaced when it holds a `:`. */
function redactUrl(text: string): string {
  const clipped = text.length > 200 ? `${text.slice(0, 200)}...` : text;
  return clipped.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/]*):([^@/]*)@/i, '$1$2:***@');
}

