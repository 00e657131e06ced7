// The record of what a person did from a terminal (state.person_actions): every
// say, read, pause, resume and release, with the terminal it came from, so
// `watch` and the transcript show it and a forged action is seen by the person
// it claims to be. Kept short: the newest PERSON_ACTIONS_KEPT only; a person's
// messages also carry their terminal on the envelope (person_terminal).
import { personTerminalOf, type PersonAction, type PersonTerminal } from './person';
import type { State } from './types';

/** How many person actions state keeps, newest last. */
export const PERSON_ACTIONS_KEPT = 100;

const ACTION_NAME = /^[a-z_]{1,32}$/;
const TEXT_MAX_CHARS = 2_000;

/**
 * Appends one action, dropping the oldest past PERSON_ACTIONS_KEPT; a detail
 * too long to load back (a read of hundreds of messages) is cut. Call it
 * inside the change it records.
 */
export function recordPersonAction(state: State, action: PersonAction): void {
  const kept = state.person_actions ?? [];
  const detail = action.detail.length <= TEXT_MAX_CHARS ? action.detail : `${action.detail.slice(0, TEXT_MAX_CHARS - 10)} (cut)`;
  kept.push({ ...action, detail });
  state.person_actions = kept.slice(-PERSON_ACTIONS_KEPT);
}

/** The fields every person action shares, for the engine's person actions. */
export interface PersonActor {
  person_id: string;
  terminal: PersonTerminal;
}

function parsePersonAction(raw: unknown): PersonAction | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const terminal = personTerminalOf(r.terminal);
  if (!terminal || typeof r.at !== 'number' || !Number.isFinite(r.at) || typeof r.person_id !== 'string' || r.person_id === '') return undefined;
  if (typeof r.action !== 'string' || !ACTION_NAME.test(r.action) || typeof r.detail !== 'string' || r.detail.length > TEXT_MAX_CHARS) return undefined;
  if (!(r.channel === null || typeof r.channel === 'string')) return undefined;
  return { at: r.at, person_id: r.person_id, action: r.action, channel: r.channel, detail: r.detail, terminal };
}

/**
 * state.person_actions as read from disk: malformed entries are dropped and
 * noted (the record is shown, never decided on). Undefined when absent or empty.
 */
export function checkPersonActions(root: Record<string, unknown>, notes: string[]): PersonAction[] | undefined {
  const raw = root.person_actions;
  if (raw === undefined) return undefined;
  const list = Array.isArray(raw) ? raw : [];
  const kept = list.map(parsePersonAction).filter((a): a is PersonAction => a !== undefined).slice(-PERSON_ACTIONS_KEPT);
  if (!Array.isArray(raw) || kept.length !== list.length) notes.push('person_actions: malformed entries dropped');
  return kept.length > 0 ? kept : undefined;
}
