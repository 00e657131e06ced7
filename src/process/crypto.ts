// node:crypto pulls in the stream modules and costs several milliseconds to
// load, so it is required on first use (after the server's first reply), not
// at start-up.
let nodeCrypto: typeof import('node:crypto') | undefined;

function crypto(): typeof import('node:crypto') {
  nodeCrypto ??= require('node:crypto') as typeof import('node:crypto');
  return nodeCrypto;
}

// One mutation wants five or so random values (lock token, ids, a temp file
// name); each randomBytes call costs a trip into OpenSSL, so they are cut from
// one buffer filled by the CSPRNG, like crypto.randomUUID's own cache. Every
// byte is handed out once and then zeroed.
const POOL_BYTES = 1024;
const pool = Buffer.alloc(POOL_BYTES);
let poolAt = POOL_BYTES;

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES / 8) return crypto().randomBytes(bytes).toString('hex');
  if (poolAt + bytes > POOL_BYTES) {
    crypto().randomFillSync(pool);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + bytes);
  pool.fill(0, poolAt, poolAt + bytes);
  poolAt += bytes;
  return hex;
}

/** The sha256 of `text` (UTF-8) as lowercase hex. */
export function sha256Hex(text: string): string {
  const c = crypto();
  // The one-shot crypto.hash (Node 20.12+) skips building a Hash stream object;
  // strings are hashed as UTF-8 either way.
  if (typeof c.hash === 'function') return c.hash('sha256', text, 'hex');
  return c.createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The sha1 of `text` (UTF-8) as lowercase hex: only for names others define by it (Redis script ids). */
export function sha1Hex(text: string): string {
  return crypto().createHash('sha1').update(text, 'utf8').digest('hex');
}
