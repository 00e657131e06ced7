// What one hook run is given (HookOptions) and what it decides (Outcome):
// the contract between the runner (index.ts) and the steps it hands an event to.
import type { StoreSelection } from '../store';
import { EMPTY_ANSWER, type HookAnswer } from './answer';
import type { WaitSignal } from './wait';

export interface HookOptions {
  /** --project or OPENCOMMS_PROJECT_DIR when given; otherwise the event's cwd, else `cwd`. */
  explicitProjectDir?: string;
  /** The store (--store / OPENCOMMS_STORE); the project's files when absent. */
  selection?: StoreSelection;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The whole of stdin. */
  input: string;
  /** --wait: wait for new mail (asyncRewake) instead of answering at once. */
  wait: boolean;
  timeoutMs?: number;
  /** --wait: the process that started the hook (the CLI passes process.ppid); when it is gone, the wait ends. */
  parentPid?: number;
  /** --wait: registers a signal handler, so a signal ends the wait with the waiter lease released. */
  onSignal?: (signal: WaitSignal, handler: () => void) => void;
  /** Writes the answer; a returned promise settles once the host can read all of it (or the write failed). */
  write: (text: string) => void | Promise<void>;
  warn: (text: string) => void;
}

/** What was decided, plus what to do once the answer has (or has not) gone out. */
export interface Outcome {
  answer: HookAnswer;
  exitCode?: number;
  settle?: (wasSent: boolean) => Promise<void>;
}

export const NOTHING: Outcome = { answer: EMPTY_ANSWER };
