// The permissions line of the Redis store's self-check: whether the ACL
// user may run every command the store uses on this project's keys and
// notices channel, found out without changing anything (probesFor says how).
import { sha1Hex } from '../../process/crypto';
import type { Check } from '../check';
import type { RedisClient } from './client';
import type { RedisStoreConfig } from './config';
import { aclHint, keysOf, STORE_ACL_COMMANDS, type RedisKeys } from './keys';
import { RespError, type RespArg, type RespValue } from './resp';

/** A script that only reads: EVAL and EVALSHA are probed by running it. */
const PROBE_SCRIPT = "return redis.call('GET', KEYS[1]) and 1 or 0";

/** The probe key and field: under the project's prefix, never written (see probePermissions). */
const PROBE_NAME = 'doctor-probe';

/** One command the store uses, and the harmless form doctor sends to see whether the ACL allows it. */
interface Probe {
  name: string;
  args: RespArg[];
}

/**
 * Whether the ACL user may run every command the store uses, on this
 * project's keys and notices channel, without changing anything:
 *
 * - Reads run for real on the project's own keys (GET, LRANGE, HGET, XRANGE,
 *   XREVRANGE), and a one-line script that only GETs (EVAL: the commands a
 *   script calls are checked against the same user).
 * - EXEC without a MULTI: the ACL is checked first, so "EXEC without MULTI"
 *   means allowed. It goes before the MULTI below, never after it.
 * - Writes, and PUBLISH and SUBSCRIBE, are only queued inside MULTI and then
 *   DISCARDed: Redis checks a queued command's ACL (command, keys, channels)
 *   when it queues it, and DISCARD runs none of them. That is why PUBLISH is
 *   probed this way: a real one would wake every peer subscribed to the
 *   notices. The writes name a probe key under the prefix, not the live keys,
 *   so even a server that ran them would touch nothing of the project's. The
 *   queued part is sent only after MULTI itself was accepted: without it the
 *   commands would run at once.
 */
function probesFor(config: RedisStoreConfig, keys: RedisKeys): { reads: Probe[]; queued: Probe[] } {
  const probeKey = `${config.keyPrefix}${PROBE_NAME}`;
  const probeStream = keys.history(PROBE_NAME);
  const reads: Probe[] = [
    { name: 'SELECT', args: ['SELECT', config.db] },
    { name: 'GET', args: ['GET', keys.version] },
    { name: 'LRANGE', args: ['LRANGE', keys.commits, 0, 0] },
    { name: 'HGET', args: ['HGET', keys.archives, PROBE_NAME] },
    { name: 'XRANGE', args: ['XRANGE', probeStream, '-', '+', 'COUNT', 1] },
    { name: 'XREVRANGE', args: ['XREVRANGE', probeStream, '+', '-', 'COUNT', 1] },
    { name: 'MGET', args: ['MGET', keys.version, keys.epoch] },
    { name: 'EVAL', args: ['EVAL', PROBE_SCRIPT, 1, keys.version] },
    // The EVAL just before makes the server know the script, so this runs it again by its SHA1.
    { name: 'EVALSHA', args: ['EVALSHA', sha1Hex(PROBE_SCRIPT), 1, keys.version] },
    { name: 'EXEC', args: ['EXEC'] },
  ];
  const queued: Probe[] = [
    { name: 'SET', args: ['SET', probeKey, '1'] },
    { name: 'DEL', args: ['DEL', probeKey] },
    { name: 'INCR', args: ['INCR', probeKey] },
    { name: 'LPUSH', args: ['LPUSH', probeKey, '1'] },
    { name: 'LTRIM', args: ['LTRIM', probeKey, 0, 0] },
    { name: 'HGETALL', args: ['HGETALL', keys.archives] },
    { name: 'HSET', args: ['HSET', probeKey, PROBE_NAME, '1'] },
    { name: 'HDEL', args: ['HDEL', probeKey, PROBE_NAME] },
    { name: 'XADD', args: ['XADD', probeStream, 'MAXLEN', 1, '*', 'r', '1'] },
    { name: 'PUBLISH', args: ['PUBLISH', keys.notices, 'doctor'] },
    { name: 'SUBSCRIBE', args: ['SUBSCRIBE', keys.notices] },
  ];
  return { reads, queued };
}

/** Every command the permissions check probes (MULTI and DISCARD frame the queued ones). */
export function probedCommands(): string[] {
  const { reads, queued } = probesFor({ keyPrefix: 'oc:{x}:', db: 0 } as RedisStoreConfig, keysOf('oc:{x}:'));
  return [...reads, { name: 'MULTI' }, ...queued, { name: 'DISCARD' }].map((p) => p.name);
}

/** The `store permissions` line: fail with store_forbidden naming what to grant, warn when a probe proved nothing. */
export async function probePermissions(client: RedisClient, config: RedisStoreConfig, keys: RedisKeys): Promise<Check> {
  const { reads, queued } = probesFor(config, keys);
  // What NOPERM refused: the command itself, a key, or the notices channel.
  const refused = { command: [] as string[], key: [] as string[], channel: [] as string[] };
  const unclear: string[] = [];
  const judge = (name: string, reply: RespValue | undefined, isAllowed: (reply: RespValue | undefined) => boolean): void => {
    if (reply instanceof RespError && reply.prefix === 'NOPERM') refused[deniedWhat(reply)].push(name);
    else if (!isAllowed(reply)) unclear.push(`${name} (${reply instanceof RespError ? reply.message.slice(0, 120) : 'an unexpected answer'})`);
  };
  const readReplies = await client.pipeline(reads.map((p) => p.args));
  // Any other error (a WRONGTYPE, a server that will not queue SUBSCRIBE) may
  // come before the ACL check, so it proves nothing either way: a warning.
  reads.forEach((probe, i) => judge(probe.name, readReplies[i], (reply) => probe.name === 'EXEC'
    ? reply instanceof RespError && /without MULTI/i.test(reply.message)
    : !(reply instanceof RespError)));

  const [multi] = await client.pipeline([['MULTI']]);
  judge('MULTI', multi, (reply) => reply === 'OK');
  let tested = reads.length + 1;
  if (multi === 'OK') {
    const replies = await client.pipeline([...queued.map((p) => p.args), ['DISCARD']]);
    queued.forEach((probe, i) => judge(probe.name, replies[i], (reply) => reply === 'QUEUED'));
    judge('DISCARD', replies[queued.length], (reply) => reply === 'OK');
    tested += queued.length + 1;
  } else {
    unclear.push(`${queued.map((p) => p.name).join(', ')} and DISCARD (probed only inside a MULTI)`);
  }
  const scope = `on ${keys.pattern} and the channel ${keys.notices}`;
  if (refused.command.length + refused.key.length + refused.channel.length > 0) {
    const what: string[] = [];
    const grant: string[] = [];
    if (refused.command.length > 0) {
      what.push(`run ${refused.command.join(', ')}`);
      grant.push(...refused.command.map((name) => `+${name.toLowerCase()}`));
    }
    if (refused.key.length > 0) {
      what.push(`use the keys ${keys.pattern} (refused: ${refused.key.join(', ')})`);
      grant.push(`~${keys.pattern}`);
    }
    if (refused.channel.length > 0) {
      what.push(`use the channel ${keys.notices} (refused: ${refused.channel.join(', ')})`);
      grant.push(`&${keys.notices}`);
    }
    return {
      name: 'store permissions',
      status: 'fail',
      reason: 'store_forbidden',
      message: `store_forbidden: the ACL user may not ${what.join('; nor ')}. Grant it ${grant.join(' ')} (ACL SETUSER on the server); everything the store needs is ${aclHint(keys)}`,
    };
  }
  if (unclear.length > 0) {
    return { name: 'store permissions', status: 'warn', message: `could not confirm ${unclear.join('; ')}; the store needs ${STORE_ACL_COMMANDS} ${scope}` };
  }
  return { name: 'store permissions', status: 'ok', message: `all ${tested} commands the store uses are allowed ${scope} (checked without changing anything)` };
}

// NOPERM says whether the command, a key or a channel was refused.
function deniedWhat(reply: RespError): 'command' | 'key' | 'channel' {
  if (/\bkeys?\b/i.test(reply.message)) return 'key';
  if (/\bchannels?\b/i.test(reply.message)) return 'channel';
  return 'command';
}
