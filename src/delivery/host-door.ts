// The host door: the recipient's own server wakes its idle session through
// the host's own way in (the Claude Code inbox, `codex queue`), with the
// doorbell's words only: who wrote, how many, call opencomms_pull. The woken
// model pulls, so the mail is framed and "delivered" exactly as before.
//
// Rules, per look at the state (the doorbell calls `offer` on every change):
//   - only mail from others that a pull would hand over now, never own sends;
//   - one notice per batch: a message is offered to the door once, rung or not;
//   - only while the session is idle, as its own hooks last recorded it (a
//     Stop after the last prompt or tool call); busy or ended, nothing: its
//     hooks deliver then. With no record at all (no hooks here) the door is
//     rung: nothing else would reach an idle session;
//   - not while a `hook --wait` waiter watches the member: it wakes the session;
//   - at most one notice outstanding per session until a later hook event of
//     that session (a queued notice for an ended Codex thread never piles up);
//   - a refusal, a hold, a closed socket or a failed command is said once on
//     stderr and in the state's errors (status), changes nothing, and the
//     mail waits for the next hook;
//   - a door that takes the notice without a word is not taken at its word:
//     the real Claude Code inbox answers nothing, even to a wrong token, and
//     `codex queue` exits 0 for a known thread nobody runs. Where the session's
//     hooks keep a turn record, the ring counts only once the session shows
//     it woke (a hook event after the ring, or the mail pulled) within
//     CONFIRM_MS; otherwise the ring is taken back and said like a refusal;
//   - every notice differs from the one before, and a ring whose mail still
//     waits when its look comes is rung again, a bounded number of times
//     (ring-again.ts); then the mail is marked for status and doctor.
import type { Envelope, HostDoor, State } from '../engine';
import type { TurnRecord } from '../local/turn-records';
import { composeBell, pullableMailOf } from './doorbell';
import { inboxAddressOf, type DoorOutcome } from './inbox-door';
import { createRingAgain, LAST_RING_WAIT_MS, MAX_RINGS, noticeDetail, RING_AGAIN_MS, type RingAgainReport } from './ring-again';

export interface HostDoorOptions {
  door: HostDoor;
  /** A lock-free read of the current state, for the look that follows a ring. */
  snapshot: () => State;
  /**
   * Sends the notice into `session` through the door; calls `written` as soon
   * as the notice is out of our hands (before any answer), so the ring is
   * recorded before the woken model can pull.
   */
  ring: (notice: string, session: string, written: () => void) => Promise<DoorOutcome>;
  /** The host session this process serves; undefined until it is known (a Codex thread, at the first call). */
  session: () => string | undefined;
  /** The session's turn record as its hooks last wrote it. */
  turn: (session: string) => TurnRecord | undefined;
  /** Whether a live `hook --wait` waiter watches `memberId`. */
  hasWaiter: (state: State, memberId: string) => boolean;
  /** Records the ring on the envelopes still pending (under the lock). */
  recordRung: (memberId: string, ids: readonly string[], at: number) => Promise<void>;
  /** Takes back the record of the ring made at `at` (the door refused after the notice went out). */
  clearRung: (ids: readonly string[], at: number) => Promise<void>;
  /** Marks `ids` as rung `rings` times, the last at `at`, without waking the session (under the lock). */
  recordUnwoken: (memberId: string, ids: readonly string[], rings: number, at: number) => Promise<void>;
  /** Records a problem in the state's errors, scoped to the member (under the lock). */
  recordProblem: (memberId: string, message: string) => Promise<void>;
  log: (line: string) => void;
  now?: () => number;
}

/** A woken Claude Code session runs its UserPromptSubmit hook within a second (measured 0.4 s); this leaves room for a loaded machine. */
export const CONFIRM_MS = 5_000;
/** How often the confirmation looks at the turn record and the mail. */
const CONFIRM_LOOK_MS = 100;
/** Every how many looks the confirmation also reads the state (for mail pulled with no hook run). */
const STATE_LOOK_EVERY = 5;

/** What `status` shows of a door: which, for which session, the last ring and the last problem. */
export interface DoorReport extends RingAgainReport {
  door: HostDoor;
  session: string | null;
  last_rung_at: number | null;
  last_problem: string | null;
  /** When the session last showed it woke after a ring (a hook ran or the mail was pulled). */
  confirmed_at: number | null;
  /** How many rings this process has tried (each batch once). */
  tries: number;
  /** Why the last look rang nothing, when it did not ring (busy, ended, waiter, outstanding, no session). */
  held_back: string | null;
}

export interface HostDoorBell {
  offer(state: State, memberId: string): void;
  /** The door this message was rung through by this process, while it waits. */
  rungVia(messageId: string): HostDoor | undefined;
  report(): DoorReport;
}

/** The door a server of `host` can ring, from what the host put in its environment. */
export function hostDoorFor(host: string, env: NodeJS.ProcessEnv): HostDoor | undefined {
  if (host === 'claude-code') return inboxAddressOf(env) === undefined ? undefined : 'inbox';
  return host === 'codex' ? 'codex_queue' : undefined;
}

const DOOR_NAMES: Record<HostDoor, string> = { inbox: 'the Claude Code inbox', codex_queue: 'codex queue' };

export function createHostDoor(options: HostDoorOptions): HostDoorBell {
  const now = options.now ?? Date.now;
  const name = DOOR_NAMES[options.door];
  /** Messages offered to the door once already (rung, or tried and failed). */
  const offered = new Set<string>();
  const rung = new Set<string>();
  let ringing = false;
  let offerAfter: string | undefined;
  let outstandingAt: number | undefined;
  let lastProblem: string | undefined;
  const lastLook: Omit<DoorReport, keyof RingAgainReport> = { door: options.door, session: null, last_rung_at: null, last_problem: null, confirmed_at: null, tries: 0, held_back: null };

  const hold = (why: string): void => {
    lastLook.held_back = why;
  };

  const offer = (state: State, memberId: string): void => {
    if (ringing) {
      offerAfter = memberId;
      return;
    }
    const { waiting, channels } = pullableMailOf(state, memberId);
    const waitingIds = new Set(waiting.map((e) => e.message_id));
    for (const id of offered) if (!waitingIds.has(id)) offered.delete(id);
    for (const id of rung) if (!waitingIds.has(id)) rung.delete(id);
    again.seen(waitingIds);
    const fresh = waiting.filter((e) => !offered.has(e.message_id));
    if (fresh.length === 0) return;
    const session = options.session();
    lastLook.session = session ?? null;
    if (session === undefined) return hold('its host session is not known yet');
    const turn = options.turn(session);
    if (turn?.phase === 'busy') return hold(`the session is busy (${turn.event}); its hooks deliver`);
    if (turn?.phase === 'ended') return hold('the session has ended');
    if (options.hasWaiter(state, memberId)) return hold('a hook --wait waiter watches the member');
    // A notice still outstanding: no hook of the session has run since it went out.
    if (outstandingAt !== undefined && (turn === undefined || turn.at <= outstandingAt)) return hold('a notice is outstanding until the session runs');
    outstandingAt = undefined;
    lastLook.held_back = null;
    for (const e of fresh) offered.add(e.message_id);
    void ringFor(memberId, session, waiting, fresh.length, channels);
  };

  // The look after a ring (ring-again.ts): the member is the one this door rang for last.
  let lastMember = '';
  const again = createRingAgain({
    now,
    isRinging: () => ringing,
    log: (line) => options.log(`host door ${options.door}: ${line}`),
    look: (ids) => {
      const state = options.snapshot();
      const waiting = new Set(pullableMailOf(state, lastMember).waiting.map((e) => e.message_id));
      const session = options.session();
      const turn = session === undefined ? undefined : options.turn(session);
      const isIdle = session !== undefined && turn?.phase !== 'busy' && turn?.phase !== 'ended' && !options.hasWaiter(state, lastMember);
      return { still: ids.filter((id) => waiting.has(id)), mayRing: isIdle };
    },
    ringAgain: async () => {
      const session = options.session();
      if (session === undefined) return;
      const { waiting, channels } = pullableMailOf(options.snapshot(), lastMember);
      outstandingAt = undefined;
      lastLook.held_back = null;
      // Mail that came since is named by this notice too: not rung for once more as fresh.
      for (const e of waiting) offered.add(e.message_id);
      await ringFor(lastMember, session, waiting, waiting.length, channels, true);
    },
    giveUp: async (ids, rings, at) => {
      const minutes = Math.round((RING_AGAIN_MS.reduce((a, b) => a + b, 0) + LAST_RING_WAIT_MS) / 60_000);
      await options.recordUnwoken(lastMember, ids, rings, at);
      await report(lastMember, `it rang ${rings} times in about ${minutes} min and the session showed no sign of waking (no hook ran, nothing was pulled); it rings again only for new mail`);
    },
  });

  /** Says a problem once (stderr and the state's errors) until a different one comes. */
  const report = async (memberId: string, problem: string): Promise<void> => {
    lastLook.last_problem = problem;
    if (problem === lastProblem) return;
    lastProblem = problem;
    const message = `could not wake the session through ${name}: ${problem}. Its mail waits for its next hook (prompt, tool call or turn end).`;
    options.log(message);
    await options.recordProblem(memberId, message);
  };

  /** A ring that worked: the last problem is over, and a new one will be said again. */
  const cleared = (): void => {
    lastProblem = undefined;
    lastLook.last_problem = null;
  };

  /** Whether the session ran after `at`, or none of `ids` waits for the member any more (pulled). */
  const woke = (memberId: string, session: string, ids: readonly string[], at: number, isStateLooked: boolean): boolean => {
    const turn = options.turn(session);
    if (turn !== undefined && turn.at > at) return true;
    if (!isStateLooked) return false;
    const waiting = new Set(pullableMailOf(options.snapshot(), memberId).waiting.map((e) => e.message_id));
    return ids.every((id) => !waiting.has(id));
  };

  /**
   * Watches from the moment the notice is written: looks every
   * CONFIRM_LOOK_MS until the session shows it woke (then `confirmed_at` is
   * set, even while the door's answer is still awaited) or CONFIRM_MS has
   * passed. Resolves whether it woke; stops early, false, once `stop.isSet`.
   */
  const watchForWake = async (memberId: string, session: string, ids: readonly string[], at: number, stop: { isSet: boolean }): Promise<boolean> => {
    const deadline = at + CONFIRM_MS;
    // The turn record (one small file) is read at every look; the state, whose parse grows with it, at every fifth and the last.
    for (let look = 0; !stop.isSet; look += 1) {
      if (woke(memberId, session, ids, at, look % STATE_LOOK_EVERY === 0 || now() >= deadline)) {
        lastLook.confirmed_at = now();
        return true;
      }
      if (now() >= deadline) return false;
      await new Promise<void>((resolve) => setTimeout(resolve, CONFIRM_LOOK_MS).unref());
    }
    return false;
  };

  /** After a ring the door took: clears the last problem once the session woke, or takes the ring back and says so. */
  const settle = async (memberId: string, ids: readonly string[], at: number, wake: Promise<boolean>): Promise<void> => {
    try {
      if (await wake) {
        again.woke(at);
        return cleared();
      }
      for (const id of ids) rung.delete(id);
      if (outstandingAt === at) outstandingAt = undefined;
      if (lastLook.last_rung_at === at) lastLook.last_rung_at = null;
      await options.clearRung(ids, at);
      await report(memberId, `the door took the notice without a word, but the session showed no sign of waking within ${Math.round(CONFIRM_MS / 1000)} s (no hook ran, nothing was pulled); a refused token or a held notice look the same from here; it rings again while the mail waits, ${MAX_RINGS} rings at most`);
    } catch (err) {
      options.log(`host door ${options.door}: could not confirm the ring: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  const ringFor = async (
    memberId: string, session: string, waiting: Envelope[], fresh: number, channels: ReturnType<typeof pullableMailOf>['channels'], isAgain = false,
  ): Promise<void> => {
    if (waiting.length === 0) return;
    ringing = true;
    // With a turn record, the session can show it woke; without one (no hooks here) nothing could.
    const hadRecord = options.turn(session) !== undefined;
    const stopWatching = { isSet: false };
    try {
      lastMember = memberId;
      const notice = composeBell(waiting, channels, fresh, noticeDetail(waiting, isAgain ? again.nextRing() : 1)).content;
      const ids = waiting.map((e) => e.message_id);
      let recorded: { at: number; done: Promise<void>; wake?: Promise<boolean> } | undefined;
      const record = (): void => {
        if (recorded) return;
        const at = now();
        recorded = { at, done: options.recordRung(memberId, ids, at) };
        lastLook.last_rung_at = at;
        if (hadRecord) recorded.wake = watchForWake(memberId, session, ids, at, stopWatching);
      };
      const outcome = await options.ring(notice, session, record);
      if (outcome.ok) {
        record();
        const { at, done, wake } = recorded!;
        outstandingAt = at;
        for (const id of ids) rung.add(id);
        again.rang(ids, at);
        await done;
        if (wake) void settle(memberId, ids, at, wake);
        else cleared();
      } else {
        stopWatching.isSet = true;
        if (recorded) {
          if (lastLook.last_rung_at === recorded.at) lastLook.last_rung_at = null;
          await recorded.done.catch(() => undefined);
          await options.clearRung(ids, recorded.at);
        }
        await report(memberId, outcome.problem);
      }
    } catch (err) {
      options.log(`host door ${options.door}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      // Counted once the outcome is recorded, so whoever sees the count sees the record.
      lastLook.tries += 1;
      ringing = false;
      const next = offerAfter;
      offerAfter = undefined;
      // Mail that came while ringing is looked at now, in the latest state.
      if (next !== undefined) {
        try {
          offer(options.snapshot(), next);
        } catch (err) {
          options.log(`could not read the state after a ring: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
  };

  return {
    offer,
    rungVia: (id) => (rung.has(id) ? options.door : undefined),
    report: () => ({ ...lastLook, ...again.report() }),
  };
}
