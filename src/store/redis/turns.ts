// The line writers join after a conflict (turn-scripts.ts has the server
// side). A change commits optimistically while nobody waits; a refused commit
// hands the writer a ticket, and the writer then waits for its bell (BLPOP on
// a connection of its own, so the store's other reads are not held up behind
// it) and runs its change again when its turn comes. Every wait is bounded by
// the poll interval: a wait that hears no bell asks the server, which passes
// on the turn of a holder whose lease ran out (PROTOCOL.md "The transaction").
import { StoreFault } from '../faults';
import type { RedisClient } from './client';
import { RespError, type RespArg, type RespValue } from './resp';
import { TURN_SCRIPT, turnScriptSha1 } from './turn-scripts';

/** How long the served ticket's holder may take before the turn passes on without it. */
export const TURN_LEASE_MS = 1_000;
/** The longest a waiter listens for its bell before it asks the server how the line stands. */
export const TURN_POLL_MS = 500;

/** The turn keys of one project, under its prefix. */
export interface TurnKeys {
  next: string;
  serving: string;
  lease: string;
  bell(ticket: number): string;
}

export function turnKeysOf(prefix: string): TurnKeys {
  return {
    next: `${prefix}turn-next`,
    serving: `${prefix}turn-serving`,
    lease: `${prefix}turn-lease`,
    bell: (ticket) => `${prefix}turn:${ticket}`,
  };
}

/** What a refused commit told the writer: its ticket, and whether that ticket is served now. */
export interface TurnAnswer {
  ticket: number;
  isNow: boolean;
}

/** One change's place in the line: no ticket until a commit is refused. */
export interface Place {
  ticket: number | undefined;
}

export interface TurnLine {
  readonly keys: TurnKeys;
  readonly leaseMs: number;
  /**
   * After a refused commit: takes the ticket it handed out and waits for its
   * turn. False when `deadline` (epoch ms) came first. True also when the
   * turn passed us by (the next commit hands out a new ticket).
   */
  waitForTurn(place: Place, answer: TurnAnswer | undefined, deadline: number): Promise<boolean>;
  /** Takes a ticket without running the change (others already wait) and waits for its turn, as waitForTurn. */
  join(place: Place, deadline: number): Promise<boolean>;
  /** Gives up a place: passes the turn on if it is ours now, so the line does not wait out our lease. */
  leave(place: Place): Promise<void>;
  close(): Promise<void>;
}

/** The keys and arguments the commit script takes for a place (KEYS 6-9, ARGV 8-9). */
export function commitTurnArgs(line: TurnLine, place: Place): { keys: string[]; args: RespArg[] } {
  const { keys } = line;
  const bell = place.ticket === undefined ? keys.lease : keys.bell(place.ticket + 1);
  return { keys: [keys.next, keys.serving, keys.lease, bell], args: [place.ticket ?? '', line.leaseMs] };
}

/** Reads a refused commit's ticket and turn ({0, version, ticket, 0|1}). */
export function turnAnswerOf(reply: RespValue[]): TurnAnswer | undefined {
  const ticket = Number(reply[2]);
  if (!Number.isSafeInteger(ticket) || ticket < 1) return undefined;
  return { ticket, isNow: Number(reply[3]) === 1 };
}

export function createTurnLine(options: {
  client: RedisClient;
  /** Makes the connection bells are awaited on (opened on the first wait). */
  openWaiter: () => RedisClient;
  keys: TurnKeys;
  leaseMs?: number;
  pollMs?: number;
}): TurnLine {
  const { client, keys } = options;
  const leaseMs = options.leaseMs ?? TURN_LEASE_MS;
  const pollMs = options.pollMs ?? TURN_POLL_MS;
  let waiter: RedisClient | undefined;

  async function runTurnScript(mode: 'take' | 'check' | 'release', ticket: number): Promise<RespValue> {
    const rest: RespArg[] = [4, keys.next, keys.serving, keys.lease, keys.bell(ticket + 1), mode, ticket, leaseMs];
    const [first] = await client.pipeline([['EVALSHA', turnScriptSha1(), ...rest]]);
    if (first instanceof RespError && first.prefix === 'NOSCRIPT') return client.command(['EVAL', TURN_SCRIPT, ...rest]);
    return client.check(first!, 'EVALSHA');
  }

  const line: TurnLine = {
    keys,
    leaseMs,

    async join(place, deadline) {
      const reply = await runTurnScript('take', 0);
      const answer = Array.isArray(reply) ? turnAnswerOf([0, '', ...reply]) : undefined;
      if (answer === undefined) throw new StoreFault('store_protocol_error', `The Redis store at ${client.where}: the turn script answered an unexpected shape`, undefined, true);
      return line.waitForTurn(place, answer, deadline);
    },

    async waitForTurn(place, answer, deadline) {
      // No answer: the commit's outcome was settled by its token, not by the
      // script's reply; the next attempt's commit says where we stand.
      if (answer === undefined) return Date.now() < deadline;
      place.ticket = answer.ticket;
      if (answer.isNow) return true;
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) return false;
        waiter ??= options.openWaiter();
        // BLPOP takes seconds; 0 would mean forever.
        const seconds = Math.max(0.01, Math.min(pollMs, left) / 1000).toFixed(3);
        const rung = await waiter.command(['BLPOP', keys.bell(answer.ticket), seconds]);
        // The bell is rung only by the holder before us, as it passes the turn to us.
        if (rung !== null) return true;
        const standing = Number(await runTurnScript('check', answer.ticket));
        if (standing !== 0) return true; // ours now (1), or passed by (-1): run again
      }
    },

    async leave(place) {
      const { ticket } = place;
      place.ticket = undefined;
      if (ticket === undefined) return;
      try {
        await runTurnScript('release', ticket);
      } catch {
        // The lease runs out on its own: the line waits at most leaseMs for us.
      }
    },

    async close() {
      await waiter?.close();
    },
  };
  return line;
}
