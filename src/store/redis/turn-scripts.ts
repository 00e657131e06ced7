// Turns: the Lua side of the line that writers join after a conflict
// (PROTOCOL.md "The transaction"). Tickets are handed out in order by the
// commit script when it refuses a commit; while any ticket is unserved, only
// the holder of the ticket being served may commit, so under load writers
// take turns instead of invalidating each other's work.
//
// A ticket names its holder's bell: a pub/sub channel that the holder's
// process listens on while it lives (turns.ts). The turn is rung there, and
// the ring doubles as the check that the holder still lives: PUBLISH answers
// how many listened, and none means the process died (the server closed its
// connection) or lost its connection, so the turn moves past that ticket at
// once. Every script rings the served holder again, which is how a holder
// killed on its turn is found. A live holder that stops answering (a frozen
// process, a machine gone to sleep with its connection open) loses its turn
// when its lease runs out; its heartbeat renews the lease while it runs.
//
// The keys, all under the project's prefix: `turn-next` (the last ticket
// handed out), `turn-serving` (the ticket that may commit now; absent means
// one past the last ticket: nobody waits), `turn-lease` (the served ticket,
// expiring) and `turn-owners` (a hash: ticket -> its holder's bell channel).
import { sha1Hex } from '../../process/crypto';

/**
 * Lua shared by the commit script and the turn script. `readTurns` answers
 * the last ticket handed out and the ticket served now; `settle` rings the
 * served holder and moves the turn past tickets whose holder is gone,
 * leasing the turn to the first live one it moved to; `takeTicket` hands
 * out the next ticket; `passTurn` ends the caller's turn.
 */
export const TURN_LUA = `
local function readTurns(nextKey, servingKey)
  local nextT = tonumber(redis.call('GET', nextKey) or '0') or 0
  local serving = tonumber(redis.call('GET', servingKey) or '') or (nextT + 1)
  return nextT, serving
end
local function settle(servingKey, leaseKey, ownersKey, nextT, serving, leaseMs, isMoved)
  while serving <= nextT do
    local bell = redis.call('HGET', ownersKey, serving)
    if bell and redis.call('PUBLISH', bell, serving) > 0 then
      if isMoved then
        redis.call('SET', leaseKey, serving, 'PX', leaseMs)
        break
      end
      if tonumber(redis.call('GET', leaseKey) or '') == serving then break end
    end
    redis.call('HDEL', ownersKey, serving)
    serving = serving + 1
    isMoved = true
  end
  if isMoved then redis.call('SET', servingKey, serving) end
  return serving
end
local function takeTicket(nextKey, servingKey, leaseKey, ownersKey, serving, bell, leaseMs)
  local ticket = redis.call('INCR', nextKey)
  redis.call('HSET', ownersKey, ticket, bell)
  if ticket ~= serving then return ticket, 0 end
  redis.call('SET', servingKey, serving)
  redis.call('SET', leaseKey, serving, 'PX', leaseMs)
  return ticket, 1
end
local function passTurn(servingKey, leaseKey, ownersKey, nextT, ticket, leaseMs)
  redis.call('HDEL', ownersKey, ticket)
  settle(servingKey, leaseKey, ownersKey, nextT, ticket + 1, leaseMs, true)
end
`;

// KEYS: 1 turn-next, 2 turn-serving, 3 turn-lease, 4 turn-owners
// ARGV: 1 'take', 'check' or 'release', 2 ticket (0 for take), 3 lease ms,
//       4 the caller's bell channel
// take answers {ticket, 1 if it is served now else 0}. check is the
// holder's heartbeat: it renews the lease when the turn is the caller's and
// answers 1 (your turn), 0 (wait) or -1 (your ticket was passed by or
// skipped: take a new one). release passes the turn on when it is the
// caller's, else takes the caller's ticket out of the line; it answers 0.
export const TURN_SCRIPT = `${TURN_LUA}
local leaseMs, bell = ARGV[3], ARGV[4]
local nextT, serving = readTurns(KEYS[1], KEYS[2])
serving = settle(KEYS[2], KEYS[3], KEYS[4], nextT, serving, leaseMs, false)
if ARGV[1] == 'take' then
  local ticket, isNow = takeTicket(KEYS[1], KEYS[2], KEYS[3], KEYS[4], serving, bell, leaseMs)
  return {ticket, isNow}
end
local ticket = tonumber(ARGV[2])
local isOurs = ticket >= serving and redis.call('HGET', KEYS[4], ticket) == bell
if ARGV[1] == 'release' then
  if isOurs and ticket == serving then
    passTurn(KEYS[2], KEYS[3], KEYS[4], nextT, ticket, leaseMs)
  elseif isOurs then
    redis.call('HDEL', KEYS[4], ticket)
  end
  return 0
end
if not isOurs then return -1 end
if ticket == serving then
  redis.call('SET', KEYS[3], ticket, 'PX', leaseMs)
  return 1
end
return 0
`;

let turnSha1: string | undefined;

/** The name Redis caches the turn script under (EVALSHA). */
export function turnScriptSha1(): string {
  turnSha1 ??= sha1Hex(TURN_SCRIPT);
  return turnSha1;
}
