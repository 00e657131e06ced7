// Reading what a Redis server answers: replies as text, stream entries,
// stream ids, and the faults a reply of the wrong shape or type becomes.
import { StoreFault } from '../../files/faults';
import type { RedisClient } from './client';
import type { StreamEntry } from './history-cache';
import { RespError, type RespArg, type RespValue } from './resp';

/** A reply as text: bulk and simple strings, numbers; null for a null reply and anything else. */
export function textOf(value: RespValue): string | null {
  if (value === null) return null;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return String(value);
  return null;
}

/** The entries of an XRANGE or XREVRANGE reply; malformed items are skipped. */
export function streamEntries(value: RespValue): StreamEntry[] {
  if (!Array.isArray(value)) return [];
  const entries: StreamEntry[] = [];
  for (const item of value) {
    if (!Array.isArray(item) || item.length !== 2 || !Array.isArray(item[1])) continue;
    const id = textOf(item[0]!);
    if (id === null) continue;
    entries.push({ id, fields: item[1].map((f) => textOf(f) ?? '') });
  }
  return entries;
}

/** Orders stream ids (`<ms>-<seq>`) numerically. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-').map((p) => BigInt(p || '0'));
  const [bm, bs] = b.split('-').map((p) => BigInt(p || '0'));
  if (am !== bm) return am! < bm! ? -1 : 1;
  if (as !== bs) return (as ?? 0n) < (bs ?? 0n) ? -1 : 1;
  return 0;
}

/** The store at `where` answered in a shape it never sends. */
export function protocolFault(where: string, what: string): StoreFault {
  return new StoreFault('store_protocol_error', `The Redis store at ${where}: ${what}`, undefined, true);
}

/**
 * A key of the project holds another type than the store keeps there, and
 * nothing was written. What it holds is told by which of our reads does not
 * meet WRONGTYPE: TYPE is not among the commands the store's ACL user has.
 */
export async function wrongTypeAt(client: RedisClient, key: string, commandName: string, expected?: string): Promise<StoreFault> {
  const probes: [string, RespArg[]][] = [
    ['string', ['GET', key]], ['hash', ['HGET', key, '']], ['list', ['LRANGE', key, 0, 0]], ['stream', ['XREVRANGE', key, '+', '-', 'COUNT', 1]],
  ];
  let found: string | undefined;
  try {
    const replies = await client.pipeline(probes.map(([, command]) => command));
    found = probes[replies.findIndex((r) => !(r instanceof RespError))]?.[0];
  } catch {
    found = undefined; // the refusal stands without the type
  }
  return client.wrongTypeFault(key, commandName, expected, found);
}
