// Turns: the Lua side of the line that writers join after a conflict
// (PROTOCOL.md "The transaction"). Tickets are handed out in order by the
// commit script when it refuses a commit; while any ticket is unserved, only
// the holder of the ticket being served may commit, so under load writers
// take turns instead of invalidating each other's work. The holder of the
// served ticket has a lease: a holder that is gone (or too slow) loses its
// turn when the lease runs out, so no crashed process blocks the line.
//
// The keys, all under the project's prefix: `turn-next` (the last ticket
// handed out), `turn-serving` (the ticket that may commit now; absent means
// one past the last ticket: nobody waits), `turn-lease` (set while the
// served ticket's lease runs) and `turn:<n>` (a list the next holder waits
// on with BLPOP: the bell of ticket n, rung when its turn comes).
import { sha1Hex } from '../../process/crypto';

/**
 * Lua shared by the commit script and the turn script. `readTurns` answers
 * the last ticket handed out, the ticket served now, and whether the serving
 * key exists; `takeTicket` hands out the next ticket and starts its lease
 * when it is served at once; `passTurn` moves the turn from `ticket` to the next one and
 * rings its bell, or ends the line when no one holds the next ticket.
 */
export const TURN_LUA = `
local function readTurns(nextKey, servingKey)
  local nextText = redis.call('GET', nextKey)
  local nextT = tonumber(nextText or '0') or 0
  local servingText = redis.call('GET', servingKey)
  local serving = tonumber(servingText or '') or (nextT + 1)
  return nextT, serving, servingText ~= false
end
local function takeTicket(nextKey, servingKey, leaseKey, serving, hasServing, leaseMs)
  if not hasServing then redis.call('SET', servingKey, serving) end
  local ticket = redis.call('INCR', nextKey)
  if ticket == serving then
    redis.call('SET', leaseKey, ticket, 'PX', leaseMs)
    return ticket, 1
  end
  return ticket, 0
end
local function passTurn(servingKey, leaseKey, bellKey, nextT, ticket, leaseMs)
  redis.call('SET', servingKey, ticket + 1)
  if nextT >= ticket + 1 then
    redis.call('SET', leaseKey, ticket + 1, 'PX', leaseMs)
    redis.call('LPUSH', bellKey, '1')
    redis.call('PEXPIRE', bellKey, leaseMs)
  else
    redis.call('DEL', leaseKey)
  end
end
`;

// KEYS: 1 turn-next, 2 turn-serving, 3 turn-lease, 4 the bell of ticket + 1
// ARGV: 1 'take', 'check' or 'release', 2 ticket (0 for take), 3 lease ms
// take answers {ticket, 1 if it is served now else 0}. check answers 1 (your turn: the lease is yours), 0 (wait) or -1 (your turn
// has passed: take a new ticket). A check that finds the lease of the served
// ticket run out passes that turn on. release passes the turn on when it is
// the caller's, and does nothing otherwise; it answers 0.
export const TURN_SCRIPT = `${TURN_LUA}
local nextT, serving, hasServing = readTurns(KEYS[1], KEYS[2])
if ARGV[1] == 'take' then
  local ticket, isNow = takeTicket(KEYS[1], KEYS[2], KEYS[3], serving, hasServing, ARGV[3])
  return {ticket, isNow}
end
local ticket = tonumber(ARGV[2])
if ARGV[1] == 'release' then
  if ticket == serving then passTurn(KEYS[2], KEYS[3], KEYS[4], nextT, ticket, ARGV[3]) end
  return 0
end
if ticket < serving then return -1 end
if ticket == serving then
  redis.call('SET', KEYS[3], ticket, 'PX', ARGV[3])
  return 1
end
if not redis.call('GET', KEYS[3]) then
  serving = serving + 1
  redis.call('SET', KEYS[2], serving)
  redis.call('SET', KEYS[3], serving, 'PX', ARGV[3])
  if ticket == serving then return 1 end
end
return 0
`;

let turnSha1: string | undefined;

/** The name Redis caches the turn script under (EVALSHA). */
export function turnScriptSha1(): string {
  turnSha1 ??= sha1Hex(TURN_SCRIPT);
  return turnSha1;
}
