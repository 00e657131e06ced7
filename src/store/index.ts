// The store's public surface. `openStore` wires in the engine's codec; tests
// and tools that need another codec call `createStore` directly.
import { DEFAULT_CODEC } from './default-codec';
import { createStore, Store, StoreOptions } from './store';
import type { StoreSelection } from './redis/config';
import { createRedisStore } from './redis/redis-store';

export type OpenStoreOptions = Omit<StoreOptions, 'codec'> & {
  codec?: StoreOptions['codec'];
  /** Which store (resolveStoreSelection from --store / OPENCOMMS_STORE); the file store when absent. */
  selection?: StoreSelection;
};

/** Opens a project's store (the file store, or Redis when `selection` says so) with the engine's codec unless another is given. */
export function openStore(options: OpenStoreOptions): Store {
  const codec = options.codec ?? DEFAULT_CODEC;
  if (options.selection?.kind === 'redis') {
    return createRedisStore({
      config: options.selection.config,
      codec,
      projectDir: options.projectDir,
      now: options.now,
      lockTimeoutMs: options.lockTimeoutMs,
      historyKeep: options.historyKeep,
    });
  }
  const { selection: _selection, ...fileOptions } = options;
  return createStore({ ...fileOptions, codec });
}

export { createStore, createEngineCtx, STATE_DIR_NAME } from './store';
export type { ArchiveShelf, Store, StoreOptions, StoreTx } from './store';
export type { StateCodec, ParseStateResult, MigrateResult } from './codec';
export { StoreFault } from './faults';
export { resolveStoreSelection, STORE_TIMEOUT_MS } from './redis/config';
export type { StoreSelection, RedisStoreConfig } from './redis/config';
export { isRedisStore } from './redis/redis-store';
export type { RedisStore } from './redis/redis-store';
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
export { realPathOf } from './real-path';
