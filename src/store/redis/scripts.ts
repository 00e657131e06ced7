// The Lua script that commits a change (PROTOCOL.md "The transaction"). It
// runs atomically on the server: it checks that the project's version is the
// one the change was built on, and only then saves the new live state,
// appends the finished envelopes to their channels' history streams and
// writes or deletes the archives the change made, so a record leaves the live
// state in the very step that adds it to history, and a saved channel leaves
// in the step that archives it. Last, it publishes the new version so other
// machines' servers, hooks and watchers look again.
//
// All or nothing: Redis does not undo a script's writes when a later command
// fails, so before the first write every key the commit will write is read
// with a command of the type the store keeps there. A key of another type (a
// hand edit, another tool, a bad restore) would fail its write after the
// state was replaced; it is answered instead, with nothing written. The reads
// are commands the store's ACL user has anyway (PROTOCOL.md 9.6).
//
// Turns (turn-scripts.ts): a commit is refused, as a conflict, when its
// version is stale or when writers are taking turns and the caller does not
// hold the ticket being served (the turn first moves past tickets whose
// holders are gone). A refused caller with a bell gets a ticket (or keeps the
// one it holds while that is still in line), and learns whether its turn is
// now; one without a bell gets none (ticket 0) and takes one once it listens.
// A commit by the holder of the served ticket passes the turn on.
//
// KEYS: 1 version, 2 state, 3 recent commit tokens, 4 quarantine copy of a
//       rejected state, 5 archives hash, 6 turn-next, 7 turn-serving,
//       8 turn-lease, 9 turn-owners, 10.. history streams
// ARGV: 1 expected version ('' = none yet), 2 commit token, 3 state text,
//       4 records kept per stream, 5 rejected state text ('' = none),
//       6 tokens remembered, 7 notices channel, 8 the caller's ticket ('' =
//       none), 9 turn lease ms, 10 the caller's bell channel ('' = none yet),
//       11 archives written (n), then n pairs (id, record), then archives
//       deleted (m), then m ids, then for each stream: how many records, 1
//       to trim it to ARGV[4] records or 0 to keep all (the board's), then
//       the records.
// Returns {1, new version, {stream ids…}} on commit, {0, current version,
// ticket, 1 if it is served now else 0} on conflict (only the turn keys
// written), {2, key, type kept there} for a key of another type (nothing written).
import type { Task } from '../../engine/task-types';
import type { HistoryRecord } from '../../engine/types';
import { sha1Hex } from '../../process/crypto';
import type { RedisKeys } from './keys';
import type { RespArg } from './resp';
import { TURN_LUA } from './turn-scripts';

export const COMMIT_SCRIPT = `${TURN_LUA}
local function isWrongType(reply)
  if type(reply) ~= 'table' or not reply.err then return false end
  if string.sub(reply.err, 1, 9) == 'WRONGTYPE' then return true end
  error(reply)
end
local current = redis.pcall('GET', KEYS[1])
if isWrongType(current) then return {2, KEYS[1], 'string'} end
for k = 6, 8 do
  if isWrongType(redis.pcall('GET', KEYS[k])) then return {2, KEYS[k], 'string'} end
end
if isWrongType(redis.pcall('HGET', KEYS[9], '0')) then return {2, KEYS[9], 'hash'} end
local leaseMs, bell = ARGV[9], ARGV[10]
local nextT, serving = readTurns(KEYS[6], KEYS[7])
serving = settle(KEYS[7], KEYS[8], KEYS[9], nextT, serving, leaseMs, false)
local ticket = tonumber(ARGV[8])
local isServed = ticket ~= nil and ticket == serving and redis.call('HGET', KEYS[9], ticket) == bell
if (current or '') ~= ARGV[1] or (nextT >= serving and not isServed) then
  local isNow = 0
  if isServed then
    redis.call('SET', KEYS[8], ticket, 'PX', leaseMs)
    isNow = 1
  elseif ticket == nil or ticket < serving or redis.call('HGET', KEYS[9], ticket) ~= bell then
    ticket = 0
    if bell ~= '' then ticket, isNow = takeTicket(KEYS[6], KEYS[7], KEYS[8], KEYS[9], serving, bell, leaseMs) end
  end
  return {0, current or '', ticket, isNow}
end
local puts = tonumber(ARGV[11])
local dels = tonumber(ARGV[12 + 2 * puts])
if isWrongType(redis.pcall('GET', KEYS[2])) then return {2, KEYS[2], 'string'} end
if isWrongType(redis.pcall('LRANGE', KEYS[3], 0, 0)) then return {2, KEYS[3], 'list'} end
if ARGV[5] ~= '' and isWrongType(redis.pcall('GET', KEYS[4])) then return {2, KEYS[4], 'string'} end
if puts + dels > 0 and isWrongType(redis.pcall('HGET', KEYS[5], '')) then return {2, KEYS[5], 'hash'} end
for k = 10, #KEYS do
  if isWrongType(redis.pcall('XREVRANGE', KEYS[k], '+', '-', 'COUNT', 1)) then return {2, KEYS[k], 'stream'} end
end
local n = 0
if current then n = tonumber(string.match(current, '^(%d+):')) or 0 end
local version = string.format('%d', n + 1) .. ':' .. ARGV[2]
if ARGV[5] ~= '' then redis.call('SET', KEYS[4], ARGV[5]) end
redis.call('SET', KEYS[2], ARGV[3])
local a = 12
for j = 1, puts do
  redis.call('HSET', KEYS[5], ARGV[a], ARGV[a + 1])
  a = a + 2
end
a = a + 1
for j = 1, dels do
  redis.call('HDEL', KEYS[5], ARGV[a])
  a = a + 1
end
local ids = {}
for k = 10, #KEYS do
  local count, isTrimmed = tonumber(ARGV[a]), ARGV[a + 1] == '1'
  a = a + 2
  for j = 1, count do
    if isTrimmed then
      ids[#ids + 1] = redis.call('XADD', KEYS[k], 'MAXLEN', ARGV[4], '*', 'r', ARGV[a])
    else
      ids[#ids + 1] = redis.call('XADD', KEYS[k], '*', 'r', ARGV[a])
    end
    a = a + 1
  end
end
redis.call('SET', KEYS[1], version)
redis.call('LPUSH', KEYS[3], ARGV[2])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[6]) - 1)
if isServed then passTurn(KEYS[7], KEYS[8], KEYS[9], nextT, ticket, leaseMs) end
redis.call('PUBLISH', ARGV[7], version)
return {1, version, ids}
`;

let commitSha1: string | undefined;

/** The name Redis caches the commit script under (EVALSHA); worked out on first use, as node:crypto costs start-up time. */
export function commitScriptSha1(): string {
  commitSha1 ??= sha1Hex(COMMIT_SCRIPT);
  return commitSha1;
}

/** The streams a commit appends to and their part of ARGV: each channel's finished records (trimmed), then the retired tasks (all kept). */
export function streamArgsOf(keys: RedisKeys, moved: ReadonlyMap<string, HistoryRecord[]>, retired: readonly Task[]): { keys: string[]; args: RespArg[] } {
  const streams: string[] = [];
  const args: RespArg[] = [];
  for (const [channelId, records] of moved) {
    streams.push(keys.history(channelId));
    args.push(records.length, 1, ...records.map((r) => JSON.stringify(r)));
  }
  if (retired.length > 0) {
    streams.push(keys.board);
    args.push(retired.length, 0, ...retired.map((t) => JSON.stringify(t)));
  }
  return { keys: streams, args };
}
