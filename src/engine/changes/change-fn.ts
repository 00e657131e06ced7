// The shape of a named change (table.ts): the state, its arguments as plain
// JSON, the engine context and the commit's side work; it returns what the
// caller is told. The area files import it from here, never from the table.
import type { ChangeTx } from '../archive-types';
import type { EngineCtx, State, ToolResult } from '../types';

/** A named change: what `store.mutate` applies. */
export type ChangeFn<A, R extends ToolResult = ToolResult> = (state: State, args: A, ctx: EngineCtx, tx: ChangeTx) => R;
