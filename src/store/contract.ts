// The Store contract: everything a caller needs from a project's state,
// whichever store holds it. Callers ask the store; they never ask which
// store it is. The file store (store.ts) and the Redis store
// (redis/redis-store.ts) are two implementations of these methods.
import type { EngineCtx, HistoryView, State } from '../engine/types';
import type { Task } from '../engine/task-types';
import type { ArchiveRecord } from './archive-shape';
import type { ChangeArgs, ChangeName, ChangeResult } from '../engine/changes/table';
import type { ChangeTx } from '../engine/archive-types';
import type { HistoryPager } from './history-pager';
import type { MutateOptions } from './change-call';
import type { StoreCheckOptions, StoreCheckReport } from './check';
import type { StoreDescription } from './describe';
import type { StateWatcher, WatchStateDirOptions } from '../local/state-dir-watch';

/** Saved sessions, read as they are now (a network store asks its server). */
export interface ArchiveShelf {
  /** Every readable archive, newest first. */
  list(): Promise<ArchiveRecord[]>;
  /** One archive by its channel id; undefined when absent, invalid or broken. */
  get(channelId: string): Promise<ArchiveRecord | undefined>;
}

/** What a change may do besides editing the state, in its commit (engine ChangeTx). */
export type StoreTx = ChangeTx;

/** Tasks that left the board (INTERFACE §8), as the store keeps them. */
export interface BoardHistoryShelf {
  /** Where they are kept, as messages name it (a file, or a Redis key). */
  readonly where: string;
  /** One task by id, from a bounded scan of the newest part; undefined when not found. */
  find(id: string): Promise<Task | undefined>;
}

export interface StoreWatchOptions extends WatchStateDirOptions {
  /**
   * What a store that must load before it wakes anyone loads: `refresh` by
   * default; a listener that reads history passes a `readLatest` of what it
   * reads, so the channels it consults are loaded too. The file store, read
   * afresh by every read, needs none.
   */
  load?: () => Promise<unknown>;
}

/** A project's state, shared safely between processes. */
export interface Store {
  readonly projectDir: string;
  /** This project's .opencomms folder: pins and local files live there whichever store holds the state. */
  readonly stateDir: string;
  /**
   * Where this project's channels live, as channels record it (their
   * worktree) and as caches key it: the project folder for files,
   * `redis:<project id>` for a Redis project shared by several machines.
   */
  readonly location: string;
  readonly history: HistoryView;
  readonly archives: ArchiveShelf;
  readonly boardHistory: BoardHistoryShelf;
  /** How status, watch, serve and doctor name this store. */
  describe(): StoreDescription;
  /**
   * Whether the project may hold state: false only when the store knows it
   * holds none (no state.json; a Redis project whose last load found no
   * state). A Redis store not loaded yet cannot know, and says true.
   */
  hasState(): boolean;
  /**
   * Applies the engine change called `name` (engine/changes/table.ts) with
   * `args` to the current state, as one commit. The state is saved only when
   * the result is ok and something changed. The file store may have it
   * applied by another process holding the lock, in one rewrite with others:
   * the answer is the same either way, and means the same: committed.
   * Rejects with a fault (`lock_timeout`, `state_unwritable`) on I/O trouble;
   * a change that throws propagates and nothing of it is saved.
   */
  mutate<K extends ChangeName>(name: K, args: ChangeArgs<K>, options?: MutateOptions): Promise<ChangeResult<K>>;
  /** Runs `fn` on the latest state (and history) there is; nothing is saved. The read every caller that can wait uses. */
  readLatest<T>(fn: (state: State, ctx: EngineCtx) => T): Promise<T>;
  /**
   * Runs `fn` on a lock-free snapshot, at once. Changes `fn` makes are never
   * saved. For files that is the file as it is now; on Redis it is the state
   * of the last load or commit of this process: a listener woken by `watch`
   * (which loads first) or a caller after `refresh` sees the latest.
   */
  read<T>(fn: (state: State, ctx: EngineCtx) => T): T;
  /** The state as `read` sees it. A state that cannot be loaded reads as empty with an entry in `errors`. */
  snapshot(): State;
  /** Makes `read` and `snapshot` see the latest state (nothing to do for files, which are read each time). */
  refresh(): Promise<void>;
  /**
   * Wakes listeners when the project's state changes (any process, any
   * machine), at most once per debounce window. By the time a listener runs,
   * `read` and `snapshot` see the change. Nothing here keeps the process alive.
   */
  watch(options?: StoreWatchOptions): StateWatcher;
  /** Checks that this store can work here, one finding per thing that must hold (doctor prints them). */
  check(options: StoreCheckOptions): Promise<StoreCheckReport>;
  /** Reads the channel histories a page at a time, lock-free (history-pager.ts); close it when done. */
  pageHistory(): HistoryPager;
  /** Deletes a channel's history log under the lock (after the channel itself is gone). */
  dropHistory(channelId: string): Promise<void>;
  /** Lets go of what the store holds open (a network connection); the file store holds nothing. */
  close(): Promise<void>;
}
