// The store's public surface. `openStore` wires in the engine's codec; tests
// and tools that need another codec call `createStore` directly.
import { DEFAULT_CODEC } from './default-codec';
import { createStore, Store, StoreOptions } from './store';

export type OpenStoreOptions = Omit<StoreOptions, 'codec'> & { codec?: StoreOptions['codec'] };

/** Opens a project's store with the engine's codec unless another is given. */
export function openStore(options: OpenStoreOptions): Store {
  return createStore({ ...options, codec: options.codec ?? DEFAULT_CODEC });
}

export { createStore, createEngineCtx, STATE_DIR_NAME } from './store';
export type { Store, StoreOptions } from './store';
export type { StateCodec, ParseStateResult, MigrateResult } from './codec';
export { StoreFault } from './faults';
export type { StoreFaultCode } from './faults';
export { NODE_FS, FILE_MODE, DIR_MODE, PROGRAM_MODE, checkOwnDir, ensureOwnDir, tryReadFile } from './fs-port';
export type { FsPort } from './fs-port';
export { replaceFile, replaceUserFile } from './replace-file';
export { HistoryLog, isValidChannelId, CHANNEL_ID_PATTERN, HISTORY_KEEP_RECORDS, HISTORY_COMPACT_LINES } from './history';
export { LOCK_TIMEOUT_MS, LOCK_STALE_MS } from './lock';
export { findLeftovers, removeLeftovers, LEFTOVER_MIN_AGE_MS } from './leftovers';
export { isValidMemberId, writePin, readPin, listPins, removePin } from './pins';
export type { PinRecord } from './pins';
export { writeArchive, readArchive, listArchives, findArchiveByName, deleteArchive } from './archives';
export type { ArchiveRecord } from './archives';
