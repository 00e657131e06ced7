// The engine's state codec as the store sees it: injected, so the store can be
// tested before (and independently of) the engine's validation rules.
import type { State } from '../engine/types';

export type ParseStateResult = { ok: true; state: State; notes: string[] } | { ok: false; reason: string };
export type MigrateResult = { ok: true; state: State } | { ok: false; reason: string };

/** How state text becomes a State and back. `migrateV1` is optional: without it no v1 migration runs. */
export interface StateCodec {
  emptyState(): State;
  parseState(text: string, now: number): ParseStateResult;
  serializeState(state: State): string;
  /**
   * Optional. Rebuilds the state of `text` that `parseState` accepted with no
   * notes and that `serializeState` reproduced exactly. The result must equal
   * what `parseState(text)` returns, fresh (shares nothing), without its cost.
   */
  reparse?(text: string): State;
  /** With `placeholder` (the current, empty-of-data v2 state) the codec keeps its channels and errors. */
  migrateV1?(legacyText: string, now: number, placeholder?: State): MigrateResult;
  /**
   * Optional. Time-driven upkeep run on the loaded state before every change
   * (members away past their channel's retention leave); saved with the change.
   */
  tidy?(state: State, now: number): void;
}
