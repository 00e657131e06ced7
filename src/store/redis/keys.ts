// The keys of one Redis project, the commands its ACL user needs, and a
// client configured as the store connects (the store, migrate and doctor's
// self-check all connect this way).
import { RedisClient } from './client';
import type { RedisStoreConfig } from './config';

/** The keys of one project: all under `oc:{<project id>}:`, one hash slot. */
export interface RedisKeys {
  state: string;
  version: string;
  commits: string;
  epoch: string;
  /** Hash: archive (channel) id → the archive record's JSON, as the file store's archive file holds it. */
  archives: string;
  /** Pub/sub channel: every commit publishes the new version here. */
  notices: string;
  history(channelId: string): string;
  /** Stream: tasks that left the board, one entry each, field `r` = the task's JSON; never trimmed. */
  board: string;
  corrupt(at: number): string;
  /** The pattern an ACL user needs on keys (and pub/sub channels). */
  pattern: string;
}

export function keysOf(prefix: string): RedisKeys {
  return {
    state: `${prefix}state`,
    version: `${prefix}version`,
    commits: `${prefix}commits`,
    epoch: `${prefix}history-epoch`,
    archives: `${prefix}archives`,
    notices: `${prefix}notices`,
    history: (channelId) => `${prefix}history:${channelId}`,
    board: `${prefix}board-history`,
    corrupt: (at) => `${prefix}state.corrupt-${at}`,
    pattern: `${prefix}*`,
  };
}

/**
 * The commands the store's ACL user needs (besides the key pattern
 * ~oc:{<project id>}:*); PROTOCOL.md gives the same list to operators.
 */
export const STORE_ACL_COMMANDS = '-@all +@connection +select +get +mget +set +del +incr +lpush +ltrim +lrange +hget +hgetall +hset +hdel +multi +exec +discard +eval +evalsha +xadd +xrange +xrevrange +publish +subscribe';

/** What a user of this store needs from the server, for NOPERM messages. */
export function aclHint(keys: RedisKeys): string {
  return `~${keys.pattern} and ${STORE_ACL_COMMANDS} (PROTOCOL.md, "Redis store")`;
}

/** A client for a project's store configuration (its own connection); `timeoutMs` replaces the configured bound. */
export function clientFor(config: RedisStoreConfig, options: { timeoutMs?: number; random?: () => number } = {}): RedisClient {
  return new RedisClient({
    host: config.host,
    port: config.port,
    isTls: config.isTls,
    ca: config.ca,
    username: config.username,
    password: config.password,
    db: config.db,
    timeoutMs: options.timeoutMs ?? config.timeoutMs,
    permissionHint: aclHint(keysOf(config.keyPrefix)),
    random: options.random,
  });
}
