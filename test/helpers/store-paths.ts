// Where a file store keeps its state and its lock (INTERFACE §4): tests read
// and plant those files directly; the store itself no longer names them.
import { join } from 'node:path';

export const statePathOf = (store: { stateDir: string }): string => join(store.stateDir, 'state.json');
export const lockPathOf = (store: { stateDir: string }): string => join(store.stateDir, '.state.lock');
