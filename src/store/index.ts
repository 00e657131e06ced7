// The store's public surface: the one module outside src/store imports.
// `openStore` picks the store a selection names and wires in the engine's
// codec; tests and tools that need another codec call `createStore` directly.
import { DEFAULT_CODEC } from './default-codec';
import type { Store } from './contract';
import { createStore, type StoreOptions } from './store';
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

export type { ArchiveShelf, Store, StoreTx, StoreWatchOptions } from './contract';
export { createStore } from './store';
export { createEngineCtx } from './ctx';
export type { StoreOptions } from './store';
export { STATE_DIR_NAME } from './state-dir';
export { describeSelection } from './describe';
export type { StoreDescription, StoreJson } from './describe';
export { guardCheck, printableLabel } from './check';
export type { Check, CheckStatus, StoreCheckOptions, StoreCheckReport } from './check';
export { checkUnconfiguredStore } from './redis/self-check';
export { watchStateDir, watchDirWithNode, DEFAULT_DEBOUNCE_MS, DEFAULT_POLL_MS } from './state-dir-watch';
export type { DirWatch, StateWatcher, WatchDir, WatchStateDirOptions } from './state-dir-watch';
export type { StateCodec, ParseStateResult, MigrateResult } from './codec';
export { DEFAULT_CODEC } from './default-codec';
export { StoreFault } from './faults';
export type { StoreFaultCode } from './faults';
export { resolveStoreSelection, resolveStoreTarget, STORE_TIMEOUT_MS } from './redis/config';
export type { StoreSelection, RedisStoreConfig, StoreEnv } from './redis/config';
export { parseStoreUrl } from './redis/url';
export { tryReadFile } from './file-read';
export { NODE_FS, FILE_MODE, DIR_MODE, PROGRAM_MODE } from './fs-port';
export { checkOwnDir, ensureOwnDir } from './own-files';
export type { FsPort } from './fs-port';
export { replaceFile, replaceUserFile } from './replace-file';
export { HistoryLog } from './history';
export { isValidChannelId, CHANNEL_ID_PATTERN, HISTORY_KEEP_RECORDS, HISTORY_COMPACT_LINES } from './limits';
export { LOCK_TIMEOUT_MS, LOCK_STALE_MS } from './lock';
export type { LocalChange, MutateOptions } from './change-call';
export { findLeftovers, removeLeftovers, LEFTOVER_MIN_AGE_MS } from './leftovers';
export { isValidMemberId } from './member-id';
export { writePin, readPin, listPins, removePin } from './pins';
export type { PinRecord } from './pins';
export { writeArchive, readArchive, listArchives, findArchiveByName, deleteArchive } from './archives';
export type { ArchiveRecord } from './archives';
export { joinAsWritten, realPathOf } from './real-path';
export { MigrationRefused, readFileProject, refuseHeldFileTarget, writeFileProject } from './project-copy';
export type { ProjectCopy } from './project-copy';
export { redisSideOf } from './redis/project-copy';
export type { RedisProjectSide } from './redis/project-copy';
export { appendEdits, readEdits, writeShellRecord, readShellRecord, hasShellRecord, removeShellRecord, shellDirOf, EDIT_LOG_MAX_BYTES } from './side-files';
export type { LoggedEdit } from './side-files';
export { readTurnRecord, writeTurnRecord } from './turn-records';
export type { TurnPhase, TurnRecord } from './turn-records';
export {
  ASK_NAME, ensureShellDir, isAskWaiting, readCheckerAnswer, readCheckerNotices, removeAsk, removeCheckerNotice,
  writeAsk, writeCheckerAnswer, writeCheckerNotice,
} from './shell-checker-files';
