// What bench/redis.mjs and its writer processes (redis-writer.mjs) share: the
// compiled store and engine from build/, the Redis configuration of a bench
// project, a bare client for the floor, and the shape of one bench send.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const { openStore } = require(join(root, 'build/src/store/index.js'));
export const { createRedisStore } = require(join(root, 'build/src/store/redis/redis-store.js'));
export const { keyPrefixOf } = require(join(root, 'build/src/store/redis/config.js'));
export const { RedisClient } = require(join(root, 'build/src/store/redis/client.js'));
export const { DEFAULT_CODEC } = require(join(root, 'build/src/store/default-codec.js'));
export const engine = require(join(root, 'build/src/engine/index.js'));

// Engine time runs 1000x faster than the wall clock (as in bench/store.mjs):
// the per-minute rate limit and the dedup window never refuse a bench send.
export const fastClock = () => Date.now() * 1000;
export const KB = 'x'.repeat(1024);
/** The key the bare WATCH floor counts on. */
export const FLOOR_KEY = 'bench:floor';
export const ok = (r) => { if (!r.ok) throw new Error(`refused: ${r.message}`); return r; };
/** 1 KB of content that starts with its tag, so the loss check can find each send. */
export const contentOf = (tag) => `${tag}:${KB}`.slice(0, KB.length);
export const owner = (now) => ({ pid: process.pid, host: 'bench', lease_until: now + 60_000 });

export function redisConfig(port, password, projectId) {
  return {
    isTls: false, host: '127.0.0.1', port, db: 0, username: undefined, password,
    projectId, keyPrefix: keyPrefixOf(projectId), ca: undefined, timeoutMs: 5_000,
  };
}

export function bareClient(port, password) {
  return new RedisClient({ host: '127.0.0.1', port, isTls: false, username: undefined, password, db: 0, timeoutMs: 5_000 });
}

/**
 * One writer's send: `me` to `peer` on `channel`. `reader`, when given, pulls
 * and commits its mail in the same change (the peer, so the live state keeps
 * one size; or the writer itself now and then, so it holds what is unread).
 */
export function sendChange(s, ctx, { channel, me, peer, tag, reader }) {
  const r = engine.sendMessage(s, { channel, session_id: me, to: peer, content: contentOf(tag) }, ctx);
  if (reader) {
    const handed = owner(ctx.now());
    const pulled = engine.pullMessages(s, reader, { channel, limit: 100, owner: handed }, ctx);
    if (pulled.ok) engine.commitDelivery(s, reader, pulled.data.message_ids, 'pull', ctx.now(), handed);
  }
  return r;
}
