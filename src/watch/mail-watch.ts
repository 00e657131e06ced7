// `opencomms watch --member ID`: the wake-up line for an agent. A host that
// runs this as a monitor hands each stdout line to the idle agent, so a line
// goes out only for mail the member has not been told about, and it says who
// wrote, where and how many wait, never what: content leaves the store only
// through a committing path (opencomms_pull, hooks).
import type { State } from '../engine';
import { checkBell } from '../delivery/doorbell';
import { watchStateDir, type StateWatcher } from '../local/state-dir-watch';

export interface MailWatchOptions {
  stateDir: string;
  memberId: string;
  /** A lock-free read of the current state (store.snapshot). */
  snapshot: () => State;
  /** Writes one line; the caller adds nothing, the line ends with '\n'. */
  write: (text: string) => void;
  log: (line: string) => void;
  /** Replaces watchStateDir (tests). */
  watch?: (stateDir: string) => StateWatcher;
}

export interface MailWatch {
  close(): void;
}

/**
 * Watches for mail to `memberId` and prints one line per change that brings
 * new mail, at once for mail already waiting. The decision and the line share
 * the doorbell's rules (checkBell): pending, pullable, not the member's own,
 * not announced before, and judged on a snapshot read just before printing,
 * so mail pulled in the meantime is not announced.
 */
export function startMailWatch(options: MailWatchOptions): MailWatch {
  // Ids already announced; checkBell prunes it to what is still pending, so
  // it stays as small as the member's queue.
  const announced = new Set<string>();
  let isClosed = false;
  let lastFault: string | undefined;

  const check = (): void => {
    if (isClosed) return;
    try {
      const bell = checkBell(options.snapshot(), options.memberId, announced);
      lastFault = undefined;
      if (bell) options.write(`${bell.content}\n`);
    } catch (err) {
      // stderr, never stdout: every stdout line would wake the agent.
      const text = err instanceof Error ? err.message : String(err);
      if (text !== lastFault) options.log(`opencomms watch: cannot read the state (${text}); waiting for the next change`);
      lastFault = text;
    }
  };

  const watcher = (options.watch ?? ((dir) => watchStateDir(dir, { log: options.log })))(options.stateDir);
  watcher.onChange(check);
  // After the watch is up, so mail landing during start-up is seen by one or the other.
  check();

  return {
    close() {
      isClosed = true;
      watcher.close();
    },
  };
}
