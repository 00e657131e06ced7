// The board's wake through the host's own door (INTERFACE section 8): when the
// board rang this server's member for work (state.board.wakes) and its
// session is idle, the server rings the Claude Code inbox or `codex queue`
// once with the fixed notice, the time of the wake in it so no two notices
// are alike (Claude Code drops an inbox body identical to the last). The
// notice never carries task text. The wake itself is cleared by the member's
// next claim or `next`, or by the hook that tells it.
import { TASK_READY_NOTICE, formatIsoTime, type State } from '../engine';
import type { TurnRecord } from '../local/turn-records';
import type { DoorOutcome } from './inbox-door';

export interface WorkDoorOptions {
  ring: (notice: string, session: string, written: () => void) => Promise<DoorOutcome>;
  session: () => string | undefined;
  turn: (session: string) => TurnRecord | undefined;
  hasWaiter: (state: State, memberId: string) => boolean;
  log: (line: string) => void;
}

export interface WorkDoor {
  offer(state: State, memberId: string): void;
}

/** The notice for a wake at `at`: fixed words, and the time, so that each differs from the last. */
export function workNotice(at: number): string {
  return `OpenComms: ${TASK_READY_NOTICE} (rung ${formatIsoTime(at)}).`;
}

export function createWorkDoor(options: WorkDoorOptions): WorkDoor {
  /** The wake (its time) this door last rang or tried: each is rung once. */
  let rungAt: number | undefined;
  let isRinging = false;
  return {
    offer(state, memberId) {
      const wakes = state.board?.wakes;
      const wake = wakes && Object.prototype.hasOwnProperty.call(wakes, memberId) ? wakes[memberId] : undefined;
      if (wake === undefined || wake.at === rungAt || isRinging) return;
      const session = options.session();
      if (session === undefined) return;
      const turn = options.turn(session);
      // Busy: its hooks tell it; ended: nobody to wake; a waiter: it wakes the session itself.
      if (turn?.phase === 'busy' || turn?.phase === 'ended' || options.hasWaiter(state, memberId)) return;
      rungAt = wake.at;
      isRinging = true;
      options.ring(workNotice(wake.at), session, () => undefined).then(
        (outcome) => {
          if (!outcome.ok) options.log(`could not ring for a ready task: ${outcome.problem}; the member's next hook says it`);
        },
        (err: unknown) => options.log(`could not ring for a ready task: ${err instanceof Error ? err.message : String(err)}`),
      ).finally(() => {
        isRinging = false;
      });
    },
  };
}
