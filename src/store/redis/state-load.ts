// Reading a Redis project's state: the version, the state text and the
// history epoch in one atomic read, with whatever the channels the history
// cache tracks gained since, so the history a change consults matches the
// state it loaded. The same read sees whether writers wait in line (turns.ts).
import type { RedisClient } from './client';
import { HistoryCache } from './history-cache';
import type { RedisKeys } from './keys';
import { compareStreamIds, protocolFault, streamEntries, textOf, wrongTypeAt } from './replies';
import { RespError, type RespArg, type RespValue } from './resp';
import type { TurnKeys } from './turns';

/** Stream entries read per XRANGE page. */
export const HISTORY_PAGE = 500;

/** What one atomic read loaded: the version ('' for a project with no state yet) and the state text (null when absent). */
export interface LoadedState {
  version: string;
  text: string | null;
  /** Writers wait in line (turns.ts): a change without a ticket joins it rather than run. */
  isLineBusy: boolean;
}

export interface StateLoadSource {
  client: RedisClient;
  keys: RedisKeys;
  turnKeys: TurnKeys;
  cache: HistoryCache;
  /** The server, as faults name it. */
  where: string;
}

/** Loads the state and catches the tracked channels' history up with it. */
export async function loadRedisState(source: StateLoadSource): Promise<LoadedState> {
  const { client, keys, turnKeys, cache, where } = source;
  const tracked = cache.tracked();
  // Nothing of history to catch up on: one MGET is already an atomic read.
  if (tracked.length === 0) return loadPlain(source);
  const commands: RespArg[][] = [['MULTI'], ['GET', keys.version], ['GET', keys.state], ['GET', keys.epoch]];
  for (const { channelId, lastId } of tracked) {
    commands.push(['XRANGE', keys.history(channelId), `(${lastId}`, '+', 'COUNT', HISTORY_PAGE]);
    commands.push(['XREVRANGE', keys.history(channelId), '+', '-', 'COUNT', 1]);
  }
  commands.push(['GET', turnKeys.next], ['GET', turnKeys.serving], ['EXEC']);
  const replies = await client.pipeline(commands);
  for (let i = 0; i < replies.length - 1; i++) client.check(replies[i]!, String(commands[i]![0]));
  const exec = client.check(replies[replies.length - 1]!, 'EXEC');
  if (!Array.isArray(exec) || exec.length !== commands.length - 2) throw protocolFault(where, 'EXEC answered an unexpected shape');
  const wrong = exec.findIndex((value) => value instanceof RespError && value.prefix === 'WRONGTYPE');
  if (wrong >= 0) throw await wrongTypeAt(client, String(commands[wrong + 1]![1]), String(commands[wrong + 1]![0]));
  const results = exec.map((value, i) => client.check(value, String(commands[i + 1]![0])));
  const loaded: LoadedState = {
    version: textOf(results[0]!) ?? '', text: textOf(results[1]!), isLineBusy: isLineBusy(results[results.length - 2]!, results[results.length - 1]!),
  };
  cache.checkEpoch(textOf(results[2]!) ?? '0');
  for (let i = 0; i < tracked.length; i++) {
    const { channelId } = tracked[i]!;
    if (!cache.isTracked(channelId)) continue; // the epoch changed: read again on demand
    const entries = streamEntries(results[3 + 2 * i]!);
    cache.apply(channelId, entries);
    const top = streamEntries(results[4 + 2 * i]!)[0]?.id;
    if (entries.length === HISTORY_PAGE && top !== undefined) await pageUpTo(source, channelId, top);
  }
  return loaded;
}

async function loadPlain({ client, keys, turnKeys, cache, where }: StateLoadSource): Promise<LoadedState> {
  const reply = client.check(await client.command(['MGET', keys.version, keys.state, keys.epoch, turnKeys.next, turnKeys.serving]), 'MGET');
  if (!Array.isArray(reply) || reply.length !== 5) throw protocolFault(where, 'MGET answered an unexpected shape');
  cache.checkEpoch(textOf(reply[2]!) ?? '0');
  return { version: textOf(reply[0]!) ?? '', text: textOf(reply[1]!), isLineBusy: isLineBusy(reply[3]!, reply[4]!) };
}

// Tickets were handed out that are not all served: the last ticket is at or past the one served.
// An absent serving key means one past the last ticket (turn-scripts.ts).
function isLineBusy(next: RespValue, serving: RespValue): boolean {
  const last = Number(textOf(next) ?? '0');
  const servingText = textOf(serving);
  return servingText !== null && last >= Number(servingText);
}

// Entries up to `top` are settled (streams only grow at the end, and are
// trimmed at the start), so the rest of a long catch-up can be read in
// pages outside the atomic read and still match the state it loaded.
async function pageUpTo({ client, keys, cache }: StateLoadSource, channelId: string, top: string): Promise<void> {
  for (;;) {
    const lastId = cache.lastIdOf(channelId);
    if (lastId === undefined || compareStreamIds(lastId, top) >= 0) return;
    const page = streamEntries(await client.command(['XRANGE', keys.history(channelId), `(${lastId}`, top, 'COUNT', HISTORY_PAGE]));
    if (page.length === 0) return;
    cache.apply(channelId, page);
  }
}
