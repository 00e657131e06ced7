// Error entries the plugin leaves in state.errors, where `status` and
// `doctor` show them; scoped to the member so status shows each its own.
import { MAX_ERRORS, type State } from '../engine';

/** Appends one error entry, keeping only the newest MAX_ERRORS. */
export function recordError(state: State, at: number, message: string, memberId?: string): void {
  state.errors.push(memberId === undefined ? { at, message } : { at, message, member_id: memberId });
  if (state.errors.length > MAX_ERRORS) state.errors.splice(0, state.errors.length - MAX_ERRORS);
}

/** A short, single-line description of a failure, safe to persist. */
export function describeFailure(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : typeof err === 'string' ? err : JSON.stringify(err) ?? String(err);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}
