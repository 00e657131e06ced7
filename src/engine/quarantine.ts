// A state that failed to load is set aside (`state.corrupt-<ms>.json`, or the
// Redis key `state.corrupt-<ms>`) and the project starts empty (PROTOCOL
// 4.3). The store records when and where, so that a refusal for a channel
// the lost state held says what happened and where the copy is, instead of a
// bare `channel_not_found` that reads as "it never existed".
import { isFiniteNumber, isObj } from './shape-checks';
import { refuse } from './reasons';
import { formatIsoTime } from './times';
import type { State, ToolResult } from './types';

/** How long after a quarantine a missing channel is explained by it. */
export const QUARANTINE_NOTICE_MS = 7 * 24 * 3_600_000;
// Only the name a store gives the copy, beside its state (`state.corrupt-<ms>[-<n>][.json]`): a
// state.json a repository ships could carry any text here, and the refusal is read by a model.
const PRESERVED_NAME = /^state\.corrupt-\d{1,15}(?:-\d{1,3})?(?:\.json)?$/;

/** When the state was set aside, and the name of its copy beside the state (a file, or a Redis key). Never the rejected text. */
export type QuarantineRecord = NonNullable<State['quarantine']>;

/** Records, on the fresh state that replaces a rejected one, the name its copy was given. */
export function noteQuarantine(state: State, at: number, preservedAs: string): void {
  if (PRESERVED_NAME.test(preservedAs)) state.quarantine = { at, preserved_as: preservedAs };
}

/**
 * The state codec's check of `quarantine` as read from disk: a record that
 * is malformed goes with a note; one older than QUARANTINE_NOTICE_MS goes
 * silently, its work done.
 */
export function checkQuarantine(root: Record<string, unknown>, now: number, notes: string[]): QuarantineRecord | undefined {
  const value = root.quarantine;
  if (value === undefined) return undefined;
  const isWellFormed = isObj(value) && isFiniteNumber(value.at) && typeof value.preserved_as === 'string' && PRESERVED_NAME.test(value.preserved_as);
  if (!isWellFormed) {
    notes.push('quarantine dropped (not a time and a state.corrupt-* name)');
    return undefined;
  }
  if (now - (value.at as number) > QUARANTINE_NOTICE_MS) return undefined;
  return { at: value.at as number, preserved_as: value.preserved_as as string };
}

/**
 * A `channel_not_found` refusal made on a state that replaced a quarantined
 * one (within QUARANTINE_NOTICE_MS) becomes `state_quarantined`, naming when
 * the old state went and where (`where`: the store's own line, `file <state
 * dir>` or `redis <url>, project <id>`); any other result is returned as it is.
 */
export function explainMissingChannel(state: State, result: ToolResult, now: number, where: string): ToolResult {
  const record = state.quarantine;
  if (result.ok || result.data?.reason !== 'channel_not_found' || !record || now - record.at > QUARANTINE_NOTICE_MS) return result;
  return refuse('state_quarantined', `${result.message} The project's state failed to load at ${formatIsoTime(record.at)}: it was set aside as `
    + `${record.preserved_as} in ${where}, and the project started empty, so channels it held are gone from the live state. Tell your user: `
    + 'they can inspect and restore that copy (`opencomms doctor` lists it), or the channel can be created or joined again.', {
    quarantined_at: record.at, preserved_as: record.preserved_as, store: where, channel_reason: 'channel_not_found',
  });
}
