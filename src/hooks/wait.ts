// `opencomms hook --wait`: the asyncRewake Stop hook of Claude Code. It runs
// in the background after the agent stops, and when mail arrives it exits 2
// with a short notice on stderr, which wakes the idle agent. It never drains:
// the agent reads the mail itself with opencomms_pull, so "delivered" still
// means "the model has it".
import { watch, type FSWatcher } from 'node:fs';
import type { State } from '../engine';
import type { Store } from '../store';
import { EMPTY_ANSWER } from './answer';
import { memberBySession, type EnvMember } from './bind';
import { countDeliverable, membershipsOf } from './deliver';
import type { HookEvent } from './events';

/** How long a waiting hook waits when no --timeout is given. */
export const DEFAULT_WAIT_MS = 10 * 60_000;
/** A re-read this often covers file-watch events the platform drops. */
const WAIT_POLL_MS = 2_000;

export interface WaitOutcome {
  answer: Record<string, unknown>;
  exitCode: number;
  notice?: string;
}

function noticeFor(count: number): string {
  return `OpenComms: ${count} new message${count === 1 ? '' : 's'} from your channel peers ${count === 1 ? 'is' : 'are'} waiting; call opencomms_pull to read ${count === 1 ? 'it' : 'them'}.`;
}

/** Resolves when the member has deliverable mail (exit 2 + notice) or the wait times out (exit 0). */
export async function waitForMail(store: Store, snapshot: State, event: HookEvent, env: EnvMember, timeoutMs?: number): Promise<WaitOutcome> {
  const memberId = env.kind === 'id' ? env.memberId : memberBySession(snapshot, event);
  if (memberId === undefined || membershipsOf(snapshot, memberId).length === 0) return { answer: EMPTY_ANSWER, exitCode: 0 };
  const check = (state: State): WaitOutcome | undefined => {
    const count = countDeliverable(state, memberId, Date.now());
    return count > 0 ? { answer: EMPTY_ANSWER, exitCode: 2, notice: noticeFor(count) } : undefined;
  };
  const now = check(snapshot);
  if (now) return now;
  return new Promise((resolveWait) => {
    let watcher: FSWatcher | undefined;
    const finish = (outcome: WaitOutcome): void => {
      clearTimeout(deadline);
      clearInterval(poll);
      watcher?.close();
      resolveWait(outcome);
    };
    const recheck = (): void => {
      try {
        const found = check(store.snapshot());
        if (found) finish(found);
      } catch {
        // A state file caught mid-replace or briefly unreadable: the next event or poll looks again.
      }
    };
    const deadline = setTimeout(() => finish({ answer: EMPTY_ANSWER, exitCode: 0 }), timeoutMs ?? DEFAULT_WAIT_MS);
    const poll = setInterval(recheck, WAIT_POLL_MS);
    try {
      // state.json is replaced by rename, so watch its directory, not the file.
      watcher = watch(store.stateDir, { persistent: false }, recheck);
      watcher.on('error', () => watcher?.close());
    } catch {
      // No watching here (some network file systems): the poll alone carries on.
    }
  });
}
