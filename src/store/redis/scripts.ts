// The Lua script that commits a change (PROTOCOL.md "The transaction"). It
// runs atomically on the server: it checks that the project's version is the
// one the change was built on, and only then saves the new live state,
// appends the finished envelopes to their channels' history streams and
// writes or deletes the archives the change made, so a record leaves the live
// state in the very step that adds it to history, and a saved channel leaves
// in the step that archives it. Last, it publishes the new version so other
// machines' servers, hooks and watchers look again.
//
// KEYS: 1 version, 2 state, 3 recent commit tokens, 4 quarantine copy of a
//       rejected state, 5 archives hash, 6.. history streams
// ARGV: 1 expected version ('' = none yet), 2 commit token, 3 state text,
//       4 records kept per stream, 5 rejected state text ('' = none),
//       6 tokens remembered, 7 notices channel, 8 archives written (n),
//       then n pairs (id, record), then archives deleted (m), then m ids,
//       then for each stream: how many records, then the records.
// Returns {1, new version, {stream ids…}} on commit, {0, current version} on conflict.
import { sha1Hex } from '../crypto';

export const COMMIT_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then
  return {0, current or ''}
end
local n = 0
if current then n = tonumber(string.match(current, '^(%d+):')) or 0 end
local version = string.format('%d', n + 1) .. ':' .. ARGV[2]
if ARGV[5] ~= '' then redis.call('SET', KEYS[4], ARGV[5]) end
redis.call('SET', KEYS[2], ARGV[3])
local a = 8
local puts = tonumber(ARGV[a])
a = a + 1
for j = 1, puts do
  redis.call('HSET', KEYS[5], ARGV[a], ARGV[a + 1])
  a = a + 2
end
local dels = tonumber(ARGV[a])
a = a + 1
for j = 1, dels do
  redis.call('HDEL', KEYS[5], ARGV[a])
  a = a + 1
end
local ids = {}
for k = 6, #KEYS do
  local count = tonumber(ARGV[a])
  a = a + 1
  for j = 1, count do
    ids[#ids + 1] = redis.call('XADD', KEYS[k], 'MAXLEN', ARGV[4], '*', 'r', ARGV[a])
    a = a + 1
  end
end
redis.call('SET', KEYS[1], version)
redis.call('LPUSH', KEYS[3], ARGV[2])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[6]) - 1)
redis.call('PUBLISH', ARGV[7], version)
return {1, version, ids}
`;

let commitSha1: string | undefined;

/** The name Redis caches the commit script under (EVALSHA); worked out on first use, as node:crypto costs start-up time. */
export function commitScriptSha1(): string {
  commitSha1 ??= sha1Hex(COMMIT_SCRIPT);
  return commitSha1;
}
