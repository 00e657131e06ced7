// The store's public surface: the one module outside src/store imports.
// `openStore` picks the store a selection names and wires in the engine's
// codec; tests and tools that need another codec call `createStore` directly.
import { DEFAULT_CODEC } from './default-codec';
import type { Store } from './contract';
import { createStore, type StoreOptions } from './file/store';
import type { StoreSelection } from './redis/config';
import type { StoreCheckReport } from './check';

export type OpenStoreOptions = Omit<StoreOptions, 'codec'> & {
  codec?: StoreOptions['codec'];
  /** Which store (resolveStoreSelection from --store / OPENCOMMS_STORE); the file store when absent. */
  selection?: StoreSelection;
};

/** Opens a project's store (the file store, or Redis when `selection` says so) with the engine's codec unless another is given. */
export function openStore(options: OpenStoreOptions): Store {
  const codec = options.codec ?? DEFAULT_CODEC;
  if (options.selection?.kind === 'redis') {
    // Required here, not imported: a process on the file store (every hook and
    // server of a project without --store) never evaluates the Redis client.
    return (require('./redis/redis-store') as typeof import('./redis/redis-store')).createRedisStore({
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
export { createStore } from './file/store';
export type { StoreOptions } from './file/store';
export { describeSelection } from './describe';
export type { StoreDescription, StoreJson } from './describe';
export { guardCheck, printableLabel } from './check';
export type { Check, CheckStatus, StoreCheckOptions, StoreCheckReport } from './check';
/** doctor's report when the named Redis store cannot be set up (redis/self-check, required only then). */
export function checkUnconfiguredStore(problem: unknown, projectDir: string, fix: boolean): StoreCheckReport {
  return (require('./redis/self-check') as typeof import('./redis/self-check')).checkUnconfiguredRedis(problem, projectDir, fix);
}
export type { StateCodec } from './codec';
export { DEFAULT_CODEC } from './default-codec';
export { resolveStoreSelection, resolveStoreTarget } from './redis/config';
export type { StoreSelection, StoreEnv } from './redis/config';
export { parseStoreUrl } from './redis/url';
export { isValidChannelId } from './limits';
export type { LocalChange, MutateOptions } from './change-call';
export type { HistoryPager } from './history-pager';
