// state.errors: what went wrong and for whom, shown by status and doctor. One
// way to add an entry, for the engine, the stores, hooks and the plugin, so the
// bound on the list is kept everywhere.
import { MAX_ERRORS } from './constants';
import type { State } from './types';

/** Appends an entry (scoped to `memberId` when given), keeping the newest MAX_ERRORS. */
export function addError(state: State, at: number, message: string, memberId?: string): void {
  if (!Array.isArray(state.errors)) state.errors = [];
  state.errors.push(memberId === undefined ? { at, message } : { at, message, member_id: memberId });
  if (state.errors.length > MAX_ERRORS) state.errors.splice(0, state.errors.length - MAX_ERRORS);
}
