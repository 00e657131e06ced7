// The one change pipeline both stores run between their own load and their
// own commit: upkeep (tidy), the change itself, finished envelopes and
// retired tasks out to history, and the decision whether anything must be
// written at all. The file store runs it under its lock; the Redis store
// runs it on an optimistic read and commits with one script. Everything here
// is synchronous and does no I/O.
import { takeFinished } from '../engine/finished';
import { takeRetiredTasks } from '../engine/task-retire';
import type { Task } from '../engine/task-types';
import type { HistoryRecord, State, ToolResult } from '../engine/types';
import type { StateCodec } from './codec';
import type { ParsedText } from './parse';

/** What a change asks its store to write, in one commit. */
export interface ChangeWrite {
  /** The new state text (the codec's; a store adds its own framing). */
  text: string;
  /** Records taken out of the state for history, by channel. */
  finished: Map<string, HistoryRecord[]>;
  /** Tasks that left the board (their retention passed), whole, for the board's history. */
  retired: Task[];
  /**
   * True when the change was refused and `text` is the empty state that must
   * replace a rejected one anyway (or every later change would copy the bad
   * text aside again); a store then commits nothing else the change staged.
   */
  isFallback: boolean;
}

export interface ChangeOutcome<T> {
  result: T;
  /** Undefined: nothing to write (refused, or nothing changed). */
  write?: ChangeWrite;
}

/**
 * Runs `change` on a freshly parsed state. An ok result is saved only if the
 * state text changed, something finished, or `hasStagedWork()` says the store
 * holds other work of the change (archives staged for its commit).
 */
export function applyChange<T extends ToolResult>(
  loaded: ParsedText, codec: StateCodec, now: number, change: (state: State) => T, hasStagedWork: () => boolean = () => false,
): ChangeOutcome<T> {
  const fallback = loaded.baseline === null ? codec.serializeState(loaded.state) : undefined;
  codec.tidy?.(loaded.state, now);
  const result = change(loaded.state);
  if (!result.ok) {
    return fallback === undefined ? { result } : { result, write: { text: fallback, finished: new Map(), retired: [], isFallback: true } };
  }
  const finished = takeFinished(loaded.state);
  const retired = takeRetiredTasks(loaded.state, now);
  const text = codec.serializeState(loaded.state);
  if (finished.size === 0 && retired.length === 0 && text === loaded.baseline && !hasStagedWork()) return { result };
  return { result, write: { text, finished, retired, isFallback: false } };
}
