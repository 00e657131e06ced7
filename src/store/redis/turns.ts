// The line writers join after a conflict (turn-scripts.ts has the server
// side). A change commits optimistically while nobody waits; a refused commit
// hands the writer a ticket, and the writer waits for its turn to be rung on
// its bell and runs its change again then.
//
// The bell is a pub/sub channel of this store's own, listened to on a
// connection of its own from the first wait on; the server counts a ticket
// whose bell nobody listens to as given up, so a writer that dies (its
// connection closes with it) is skipped at the next ring. While a place
// holds a ticket, a heartbeat asks where it stands: that rings the holder
// ahead (finding it gone, if it died on its turn) and, on our own turn,
// renews our lease. A place given up takes its ticket out at once
// (PROTOCOL.md "The transaction").
import { randomHex } from '../../process/crypto';
import { StoreFault } from '../../files/faults';
import type { RedisClient } from './client';
import { RespError, type RespArg, type RespValue } from './resp';
import { TURN_SCRIPT, turnScriptSha1 } from './turn-scripts';

/** How long the served holder keeps its turn without a heartbeat (a frozen process, a machine asleep) before the turn passes on. */
export const TURN_LEASE_MS = 2_000;
/** How often a place with a ticket asks where it stands. */
export const TURN_BEAT_MS = 150;
/** How long a ring for a ticket we do not hold waits for the reply that may hand it to us, before we give that ticket up. */
const STRAY_RING_MS = 100;

/** The turn keys of one project, under its prefix. */
export interface TurnKeys {
  next: string;
  serving: string;
  lease: string;
  owners: string;
  /** Starts the bell channel of each store: `<prefix>turn-bell:<random>`. */
  bellPrefix: string;
}

export function turnKeysOf(prefix: string): TurnKeys {
  return {
    next: `${prefix}turn-next`,
    serving: `${prefix}turn-serving`,
    lease: `${prefix}turn-lease`,
    owners: `${prefix}turn-owners`,
    bellPrefix: `${prefix}turn-bell:`,
  };
}

/** What a refused commit told the writer: its ticket (0: none, as it had no bell yet), and whether that ticket is served now. */
export interface TurnAnswer {
  ticket: number;
  isNow: boolean;
}

/** One change's place in the line: no ticket until a commit is refused. */
export interface Place {
  ticket: number | undefined;
  /** Where `ticket` stands: 1 its turn, 0 wait, -1 passed by or skipped (the next commit hands out a new one). */
  standing?: number;
  beat?: NodeJS.Timeout;
  /** Set while the place waits: called when its standing may have changed. */
  wake?: () => void;
}

export interface TurnLine {
  readonly keys: TurnKeys;
  readonly leaseMs: number;
  /** This store's bell channel while it is listened to, else '' (the commit script then hands out no ticket). */
  bellIfListening(): string;
  /**
   * After a refused commit: holds the ticket it handed out and waits for its
   * turn (with no ticket, it takes one first). False when `deadline` (epoch
   * ms) came first. True also when the turn passed us by (the next commit
   * hands out a new ticket).
   */
  waitForTurn(place: Place, answer: TurnAnswer | undefined, deadline: number): Promise<boolean>;
  /** Takes a ticket without running the change (others already wait) and waits for its turn, as waitForTurn. */
  join(place: Place, deadline: number): Promise<boolean>;
  /** Gives up a place: stops its heartbeat and passes the turn on, or takes the ticket out of the line. */
  leave(place: Place): Promise<void>;
  close(): Promise<void>;
}

/** The keys and arguments the commit script takes for a place (KEYS 6-9, ARGV 8-10). */
export function commitTurnArgs(line: TurnLine, place: Place): { keys: string[]; args: RespArg[] } {
  const { keys } = line;
  return { keys: [keys.next, keys.serving, keys.lease, keys.owners], args: [place.ticket ?? '', line.leaseMs, line.bellIfListening()] };
}

/** Reads a refused commit's ticket and turn ({0, version, ticket, 0|1}). */
export function turnAnswerOf(reply: RespValue[]): TurnAnswer | undefined {
  const ticket = Number(reply[2]);
  if (!Number.isSafeInteger(ticket) || ticket < 0) return undefined;
  return { ticket, isNow: Number(reply[3]) === 1 };
}

export function createTurnLine(options: {
  client: RedisClient;
  /** Makes the connection the bell is listened to on (opened on the first wait). */
  openListener: () => RedisClient;
  keys: TurnKeys;
  leaseMs?: number;
  beatMs?: number;
}): TurnLine {
  const { client, keys } = options;
  const leaseMs = options.leaseMs ?? TURN_LEASE_MS;
  const beatMs = options.beatMs ?? TURN_BEAT_MS;
  const bell = `${keys.bellPrefix}${randomHex(8)}`;
  let listener: RedisClient | undefined;
  let isListening = false;
  let held: Place | undefined;
  /** The last ticket rung on our bell: its ring may come before the reply that hands it to us. */
  let lastRung = 0;
  const strays = new Set<number>();

  async function runTurnScript(mode: 'take' | 'check' | 'release', ticket: number): Promise<RespValue> {
    const rest: RespArg[] = [4, keys.next, keys.serving, keys.lease, keys.owners, mode, ticket, leaseMs, bell];
    const [first] = await client.pipeline([['EVALSHA', turnScriptSha1(), ...rest]]);
    if (first instanceof RespError && first.prefix === 'NOSCRIPT') return client.command(['EVAL', TURN_SCRIPT, ...rest]);
    return client.check(first!, 'EVALSHA');
  }

  function onRing(payload: string): void {
    const ticket = Number(payload);
    if (!Number.isSafeInteger(ticket) || ticket < 1) return;
    lastRung = ticket;
    if (held?.ticket === ticket) {
      held.standing = 1;
      held.wake?.();
      return;
    }
    // A ticket we do not hold: handed out in a reply we lost, or one that is
    // on its way to us. Unclaimed after a moment, it is given up, or the line
    // would wait on us for nothing.
    if (strays.has(ticket)) return;
    strays.add(ticket);
    setTimeout(() => {
      if (held?.ticket === ticket) {
        strays.delete(ticket);
        return;
      }
      runTurnScript('release', ticket).catch(() => undefined).finally(() => strays.delete(ticket));
    }, STRAY_RING_MS).unref();
  }

  async function listen(): Promise<void> {
    if (isListening) return;
    listener ??= options.openListener();
    listener.onConnectionLost = () => {
      isListening = false;
      held?.wake?.();
    };
    await listener.subscribe(bell, (_channel, payload) => onRing(payload));
    isListening = true;
  }

  async function beat(place: Place): Promise<void> {
    const { ticket } = place;
    if (ticket === undefined) return;
    try {
      const standing = Number(await runTurnScript('check', ticket));
      if (place.ticket !== ticket || standing === place.standing) return;
      place.standing = standing;
      place.wake?.();
    } catch {
      // The next beat asks again; the lease covers a holder that cannot.
    }
  }

  function hold(place: Place, answer: TurnAnswer): void {
    held = place;
    place.ticket = answer.ticket;
    place.standing = answer.isNow || lastRung === answer.ticket ? 1 : 0;
    if (place.beat !== undefined) return;
    let isBeating = false;
    place.beat = setInterval(() => {
      if (isBeating) return;
      isBeating = true;
      void beat(place).finally(() => (isBeating = false));
    }, beatMs);
    place.beat.unref();
  }

  async function take(): Promise<TurnAnswer> {
    const reply = await runTurnScript('take', 0);
    const answer = Array.isArray(reply) ? turnAnswerOf([0, '', ...reply]) : undefined;
    if (answer === undefined || answer.ticket < 1) throw new StoreFault('store_protocol_error', `The Redis store at ${client.where}: the turn script answered an unexpected shape`, undefined, true);
    return answer;
  }

  const line: TurnLine = {
    keys,
    leaseMs,
    bellIfListening: () => (isListening ? bell : ''),

    join: (place, deadline) => line.waitForTurn(place, undefined, deadline),

    async waitForTurn(place, answer, deadline) {
      // No ticket: the commit's outcome was settled by its token (its reply
      // was lost), or it was refused before we listened on our bell.
      if (answer === undefined || answer.ticket === 0) {
        await listen();
        answer = await take();
      }
      hold(place, answer);
      while (place.standing === 0 && isListening) {
        const left = deadline - Date.now();
        if (left <= 0) return false;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          place.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        place.wake = undefined;
      }
      // Ours now (1), passed by (-1), or our bell went deaf (the server
      // counts us gone): run again, and the commit says where we stand.
      return Date.now() < deadline;
    },

    async leave(place) {
      clearInterval(place.beat);
      place.beat = undefined;
      if (held === place) held = undefined;
      const { ticket } = place;
      place.ticket = undefined;
      if (ticket === undefined) return;
      try {
        await runTurnScript('release', ticket);
      } catch {
        // Unheard: the server finds our ticket gone when it rings our bell (our
        // listener closes with us), or when our lease runs out on our turn.
      }
    },

    async close() {
      await listener?.close();
    },
  };
  return line;
}
