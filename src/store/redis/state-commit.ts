// Committing a change to a Redis project: one Lua script writes the state,
// its history, its archives and the notice, only if the version is still the
// one the change loaded (state-load.ts). A conflict answers the writer's place
// in line (turns.ts); a reply lost with the connection is settled by asking
// the server whether it remembers the commit's token.
import type { HistoryRecord } from '../../engine/types';
import { randomHex } from '../../process/crypto';
import type { ChangeWrite } from '../change';
import type { StateCodec } from '../codec';
import { StoreFault } from '../../files/faults';
import type { ParseMemo } from '../parse';
import type { RedisClient } from './client';
import type { HistoryCache, StreamEntry } from './history-cache';
import type { RedisKeys } from './keys';
import { protocolFault, textOf, wrongTypeAt } from './replies';
import { RespError, type RespArg, type RespValue } from './resp';
import { COMMIT_SCRIPT, commitScriptSha1, streamArgsOf } from './scripts';
import type { LoadedState } from './state-load';
import { commitTurnArgs, turnAnswerOf, type Place, type TurnAnswer, type TurnLine } from './turns';

/** Commit tokens the server remembers, to settle a commit whose reply was lost. */
export const REMEMBERED_COMMITS = 256;

/** Archive writes and deletes a change asked for, committed with it. */
export interface StagedArchives {
  puts: Map<string, string>;
  deletes: Set<string>;
}

/** What a commit works with: the store's client, keys, history cache and parse memo. */
export interface CommitSite {
  client: RedisClient;
  keys: RedisKeys;
  turns: TurnLine;
  cache: HistoryCache;
  codec: StateCodec;
  memo: ParseMemo;
  /** History records kept per channel. */
  keep: number;
  /** The server, as faults name it. */
  where: string;
  now: () => number;
}

/** One change to commit: the version it loaded, the text and history it wrote, and what it rejected. */
export interface CommitRequest {
  expected: string;
  text: string;
  moved: Map<string, HistoryRecord[]>;
  retired: ChangeWrite['retired'];
  /** The rejected state text, which the commit preserves before replacing it. */
  rejectedText: string | undefined;
  rejectedKey: string | undefined;
  staged: StagedArchives;
  place: Place;
}

export interface CommitOutcome {
  isCommitted: boolean;
  /** A refused commit's place in line. */
  turn?: TurnAnswer;
  /** What the server now holds, when this commit's reply said so (not when a lost reply was settled). */
  committed?: LoadedState;
}

/** Runs the commit script for `request`; its history entries go into the cache, its text into the parse memo. */
export async function commitRedisState(site: CommitSite, request: CommitRequest): Promise<CommitOutcome> {
  const { client, keys, cache, codec, memo, keep, where, now } = site;
  const { expected, text, moved, retired, rejectedText, staged, place } = request;
  const token = randomHex(12);
  const turn = commitTurnArgs(site.turns, place);
  const appends = streamArgsOf(keys, moved, retired);
  const keyList = [keys.version, keys.state, keys.commits, request.rejectedKey ?? keys.corrupt(now()), keys.archives, ...turn.keys, ...appends.keys];
  const args: RespArg[] = [expected, token, text, keep, rejectedText ?? '', REMEMBERED_COMMITS, keys.notices, ...turn.args];
  args.push(staged.puts.size);
  for (const [id, record] of staged.puts) args.push(id, record);
  args.push(staged.deletes.size, ...staged.deletes, ...appends.args);
  let reply: RespValue;
  try {
    reply = await runCommitScript(client, [keyList.length, ...keyList, ...args]);
  } catch (err) {
    if (!(err instanceof StoreFault) || err.code !== 'store_unreachable') throw err;
    return settleUnknown(site, err, token);
  }
  if (!Array.isArray(reply) || (reply[0] !== 0 && reply[0] !== 1 && reply[0] !== 2)) throw protocolFault(where, 'the commit script answered an unexpected shape');
  if (reply[0] === 0) return { isCommitted: false, turn: turnAnswerOf(reply) };
  if (reply[0] === 2) throw await wrongTypeAt(client, textOf(reply[1]!) ?? '', 'the commit', textOf(reply[2]!) ?? undefined);
  const version = textOf(reply[1]!) ?? '';
  const ids = Array.isArray(reply[2]) ? reply[2].map((id) => textOf(id) ?? '') : [];
  // Our stream entries directly follow what the load read (the version
  // proved nothing came between), so the cache takes them as they are.
  let at = 0;
  for (const [channelId, records] of moved) {
    if (cache.isTracked(channelId)) {
      cache.apply(channelId, records.map((r, i): StreamEntry => ({ id: ids[at + i] ?? '0-0', fields: ['r', JSON.stringify(r)] })));
    }
    at += records.length;
  }
  // The codec wrote this text from a state that was valid: the next load of it (the usual case
  // without contention) needs no validation.
  if (codec.reparse && rejectedText === undefined) memo.text = text;
  return { isCommitted: true, committed: { version, text, isLineBusy: false } };
}

// By its SHA1, which the server keeps once it has seen the script: a
// commit then carries 40 bytes instead of the script. A server that has
// not seen it (first use, a restart, SCRIPT FLUSH) says NOSCRIPT, which
// means the script did not run, and gets the whole script once.
async function runCommitScript(client: RedisClient, rest: RespArg[]): Promise<RespValue> {
  const [first] = await client.pipeline([['EVALSHA', commitScriptSha1(), ...rest]]);
  if (first instanceof RespError && first.prefix === 'NOSCRIPT') return client.command(['EVAL', COMMIT_SCRIPT, ...rest]);
  return client.check(first!, 'EVALSHA');
}

// The commit's reply was lost with the connection: it may or may not have
// run. The server remembers recent commit tokens; asking it settles the
// question whenever it can be reached again within one more timeout.
// (A commit still queued in the old connection's server-side buffer could
// in theory run after this check; Redis reads a closed client's buffer
// before dropping it, so the window is the server's own read latency.)
async function settleUnknown(site: CommitSite, cause: StoreFault, token: string): Promise<CommitOutcome> {
  const { client, keys } = site;
  let tokens: RespValue;
  try {
    tokens = await client.command(['LRANGE', keys.commits, 0, REMEMBERED_COMMITS - 1]);
  } catch {
    throw new StoreFault('store_unreachable', `${cause.message}. This change may or may not have been saved: check with status or history before repeating it`, cause, true);
  }
  return { isCommitted: Array.isArray(tokens) && tokens.some((t) => textOf(t) === token) };
}
