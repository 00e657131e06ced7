// The engine's codec, wired in one place so the rest of the store can be built
// and tested against any codec.
import { emptyState, migrateV1, parseState, reparseState, serializeState } from '../engine/state-codec';
import { tidyState } from '../engine/away';
import { isRecordedProcessAlive } from '../process/liveness';
import type { StateCodec } from './codec';

/** The engine's state codec. */
export const DEFAULT_CODEC: StateCodec = { emptyState, parseState, serializeState, migrateV1, reparse: reparseState,
  // Presence judges this machine's processes by their pids (engine/presence).
  tidy: (state, now) => tidyState(state, now, (proc) => isRecordedProcessAlive(proc)),
};
