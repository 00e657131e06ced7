// A host door's rings again (issue 35). Claude Code drops an inbox message
// equal to the one it took within 30 s, and any door may take a notice that
// wakes nobody; a mail that sat behind such a ring waited until a person
// typed. So every notice differs from the one before (noticeDetail), and a
// ring whose mail still waits when its look comes is rung again: rings in a
// row that show no wake form a run, at most MAX_RINGS long; after the last
// one the door gives up, and the mail is marked for status and doctor.
import type { Envelope } from '../engine';

/** A ring that woke nobody is rung again after these waits, each counted from the ring before: two more tries over a few minutes. */
export const RING_AGAIN_MS: readonly number[] = [30_000, 120_000];
/** Rings in a row that show no wake before the door gives up: the first and its tries again. */
export const MAX_RINGS = RING_AGAIN_MS.length + 1;
/** After the last ring, how long the session has to take its mail before the door gives up. */
export const LAST_RING_WAIT_MS = 30_000;
/** When a look comes while a ring is under way, it waits this long and looks again. */
const LOOK_BUSY_RETRY_MS = 1_000;
/** A message id (ours, `ocm_` and hex) as a notice may show it: a state.json edited by hand could hold any text there. */
const ID_UNSAFE = /[^A-Za-z0-9_-]/g;
const MAX_ID_SHOWN = 40;

/** What makes a notice differ from every other: the newest mail's id and time, and which ring of a run it is. Never peer text. */
export function noticeDetail(waiting: readonly Envelope[], ring: number): string {
  const newest = waiting[waiting.length - 1];
  if (newest === undefined) return '';
  const time = Number.isFinite(newest.timestamp) ? ` sent ${new Date(newest.timestamp).toISOString().slice(11, 19)} UTC` : '';
  const again = ring > 1 ? `; rung again, ${ring} of ${MAX_RINGS}` : '';
  const id = newest.message_id.replace(ID_UNSAFE, '_').slice(0, MAX_ID_SHOWN);
  return ` (newest ${id}${time}${again})`;
}

/** What the look after a ring found, told by the door: the run's mail still waiting, and whether the session may be rung now. */
export interface LookFinding {
  still: readonly string[];
  /** False when the session is busy or ended, or a waiter watches it: its hooks or the waiter deliver. */
  mayRing: boolean;
}

export interface RingAgainOptions {
  now: () => number;
  isRinging: () => boolean;
  look: (ids: readonly string[]) => LookFinding;
  /** Rings again, for all the mail waiting now. */
  ringAgain: () => Promise<void>;
  /** The run is over without a wake: `ids` still wait after `rings` rings, the last at `at`. */
  giveUp: (ids: readonly string[], rings: number, at: number) => Promise<void>;
  log: (line: string) => void;
}

/** What status shows of the run. */
export interface RingAgainReport {
  /** Rings in a row since the session last showed it woke (or took its mail); at most MAX_RINGS. */
  rings_unanswered: number;
  /** When the door rings again if the mail of its last ring still waits; null when it will not. */
  ring_again_at: number | null;
  /** When the door last gave up after MAX_RINGS rings that woke nobody. */
  gave_up_at: number | null;
}

export interface RingAgain {
  /** Which ring of the run the next one is (1 for a first ring). */
  nextRing(): number;
  /** A ring the door took, for `ids` at `at`: counted in the run, and its look scheduled. */
  rang(ids: readonly string[], at: number): void;
  /** The session showed it woke after the ring at `at`: that run is over. */
  woke(at: number): void;
  /** A look at the state: once none of the run's mail waits, the run is over. */
  seen(waiting: ReadonlySet<string>): void;
  report(): RingAgainReport;
}

export function createRingAgain(options: RingAgainOptions): RingAgain {
  let run: { rings: number; ids: readonly string[]; at: number } = { rings: 0, ids: [], at: 0 };
  let timer: NodeJS.Timeout | undefined;
  const shown: RingAgainReport = { rings_unanswered: 0, ring_again_at: null, gave_up_at: null };

  const endRun = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    run = { rings: 0, ids: [], at: 0 };
    shown.rings_unanswered = 0;
    shown.ring_again_at = null;
  };

  const schedule = (ms: number): void => {
    timer = setTimeout(() => {
      look().catch((err: unknown) => options.log(`could not look again after a ring: ${err instanceof Error ? err.message : String(err)}`));
    }, Math.max(0, ms));
    timer.unref();
  };

  const look = async (): Promise<void> => {
    timer = undefined;
    shown.ring_again_at = null;
    if (options.isRinging()) return schedule(LOOK_BUSY_RETRY_MS);
    const { still, mayRing } = options.look(run.ids);
    if (still.length === 0 || !mayRing) return endRun();
    if (run.rings >= MAX_RINGS) {
      const { rings, at } = run;
      endRun();
      shown.gave_up_at = options.now();
      return options.giveUp(still, rings, at);
    }
    await options.ringAgain();
  };

  return {
    nextRing: () => run.rings + 1,
    rang(ids, at) {
      if (timer !== undefined) clearTimeout(timer);
      run = { rings: run.rings + 1, ids, at };
      const isLast = run.rings >= MAX_RINGS;
      const wait = isLast ? LAST_RING_WAIT_MS : RING_AGAIN_MS[run.rings - 1]!;
      shown.rings_unanswered = run.rings;
      shown.ring_again_at = isLast ? null : at + wait;
      schedule(at + wait - options.now());
    },
    woke(at) {
      if (run.at === at) endRun();
    },
    seen(waiting) {
      if (run.rings > 0 && !run.ids.some((id) => waiting.has(id))) endRun();
    },
    report: () => ({ ...shown }),
  };
}
