// How a caller names a change: by its name in the engine's table and its
// arguments, the one form a waiting change can be written down in. (Tests
// may also hand a store code of their own: LocalEdits.)
import type { ChangeTx } from '../engine/archive-types';
import type { ChangeFn } from '../engine/changes/change-fn';
import type { EngineCtx, State, ToolResult } from '../engine/types';

/** A change given as code: it runs in the calling process only, never for another. */
export type LocalChange<T extends ToolResult> = (state: State, ctx: EngineCtx, tx: ChangeTx) => T;

/**
 * What a store offers besides its contract, for tests that set up a state
 * with code of their own: the change runs in the calling process under the
 * lock, is never written down, and no other process applies it. Product code
 * names its changes (the architecture test holds src/ to it).
 */
export interface LocalEdits {
  editLocally<T extends ToolResult>(fn: LocalChange<T>): Promise<T>;
}

export interface MutateOptions {
  /** The member the change speaks for, as the caller's host named it: written with a waiting change, as who asked. */
  member?: string;
}

/**
 * The engine change called `name`, or undefined when this build has none by
 * that name (a newer peer's). The table is required at the first change: a
 * hook or a server start that changes nothing never sets it up.
 */
export function knownChange(name: string): ChangeFn<unknown> | undefined {
  return (require('../engine/changes/table') as typeof import('../engine/changes/table')).changeNamed(name);
}

/** The engine change called `name`; throws for a name this build does not have (a caller's mistake). */
export function changeFnOf(name: string): ChangeFn<unknown> {
  const apply = knownChange(name);
  if (apply === undefined) throw new Error(`no change is called ${JSON.stringify(name)}`);
  return apply;
}
