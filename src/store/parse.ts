// The one parser of state text, for every store, and the notes a store adds
// when it rejects a state.
import type { State } from '../engine/types';
import { addError } from '../engine/error-log';
import { noteQuarantine } from '../engine/quarantine';
import type { StateCodec } from './codec';

/**
 * The last state text this process validated and found exact: parsing it gave
 * no notes and serializing the result gave the text back. The same text read
 * again (a watcher's snapshot, then the mutation that follows it) is rebuilt
 * with codec.reparse instead of being validated again. Only the exact same
 * text qualifies: a string compare, whoever wrote the file.
 */
export interface ParseMemo {
  text?: string;
}

/** State text as parsed: the state, and the text it came from, or why it was rejected. */
export interface ParsedText {
  state: State;
  /** The text when it parsed (what a save compares against), or null when it was rejected. */
  baseline: string | null;
  /** Why the text was rejected; the state is then the empty one. */
  rejection?: string;
}

/**
 * The one parser of state text, for every store: the codec's parse, where a
 * codec that throws on hostile input counts as one that refuses it. With
 * `memo`, text equal to `memo.text` skips validation; `learn` lets this parse
 * set `memo.text` (it costs a serialization, so only reads likely to be
 * followed by another of the same text learn). The codec's notes become
 * entries of state.errors.
 */
export function parseStateText(codec: StateCodec, text: string, now: number, memo?: ParseMemo, learn = false): ParsedText {
  if (memo !== undefined && memo.text === text && codec.reparse) return { state: codec.reparse(text), baseline: text };
  let parsed: ReturnType<StateCodec['parseState']>;
  try {
    parsed = codec.parseState(text, now);
  } catch (err) {
    parsed = { ok: false, reason: `parser failed: ${(err as Error)?.message ?? String(err)}` };
  }
  if (!parsed.ok) return { state: codec.emptyState(), baseline: null, rejection: parsed.reason };
  if (memo !== undefined && learn && codec.reparse && parsed.notes.length === 0) {
    memo.text = codec.serializeState(parsed.state) === text ? text : undefined;
  }
  for (const note of parsed.notes) addError(parsed.state, now, note);
  return { state: parsed.state, baseline: text };
}

/**
 * The note a store adds to state.errors when its state text was rejected:
 * `what` names the text (the state file, a Redis key); `preservedAs` where a
 * change copied it before starting empty, absent for a read, which only shows
 * an empty state until the next change preserves it.
 */
export function rejectionNote(what: string, reason: string, preservedAs?: string): string {
  return preservedAs !== undefined
    ? `${what} rejected (${reason}); preserved as ${preservedAs}; started empty`
    : `${what} rejected (${reason}); showing an empty state; it will be preserved before the next change`;
}

/**
 * Notes a rejected state on the empty state that replaces it (rejectionNote)
 * and, once a change preserved it as `preservedAs`, records the quarantine
 * by the copy's name (engine/quarantine), for the refusals that follow.
 */
export function noteRejection(state: State, at: number, what: string, reason: string, preservedAs?: string): void {
  addError(state, at, rejectionNote(what, reason, preservedAs));
  if (preservedAs !== undefined) noteQuarantine(state, at, preservedAs.slice(Math.max(0, preservedAs.lastIndexOf('state.corrupt-'))));
}
