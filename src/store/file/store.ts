// The one door to the state file. mutate = lock → load (quarantine a bad file)
// → v1 migration → fn → history move → atomic save → unlock, with fn
// synchronous so nothing can nest or interleave inside the critical section.
import { randomHex } from '../../process/crypto';
import { createEngineCtx } from '../ctx';
import { hostname } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import type { EngineCtx, State, ToolResult } from '../../engine/types';
import type { Store, StoreTx } from '../contract';
import { changeFnOf, type LocalChange, type LocalEdits, type MutateOptions } from '../change-call';
import { describeSelection } from '../describe';
import { checkFileStore } from './file-check';
import { STATE_DIR_NAME } from '../../local/state-dir';
import { watchStateDir } from '../../local/state-dir-watch';
import type { StateCodec } from '../codec';
import { encodeReusing } from '../../files/file-read';
import { errnoOf, FILE_MODE, FsPort, NODE_FS } from '../../files/fs-port';
import { StoreFault, unwritable } from '../../files/faults';
import { HistoryLog } from './history';
import { fileHistoryPager } from './history-pages';
import { BoardHistoryLog } from './board-history';
import { GENERATION_HEAD_BYTES, LoadedState, quarantineState, readState, splitGeneration, withGeneration } from './load';
import { addError } from '../../engine/error-log';
import { ParseMemo, noteRejection, rejectionNote } from '../parse';
import { applyChange, type ChangeWrite } from '../change';
import { takeFinished } from '../../engine/finished';
import { Answered, claimLock, claimLockOrAnswer, ClaimedWith, servableTickets, LockHandle, refreshLock, releaseLock } from './lock';
import { Answer, answerAll, Applied, applyWaiting, gatherWaiting, plainChange, prepareAll, ServingFailed, ServingRefused } from './waiting-batch';
import { answerChange, MAX_WAITING_PER_COMMIT, seededCtx, type WaitingChange } from './waiting-changes';
import { migrateV1IfPresent, migrationPaths, writeMarker } from './migrate-v1';
import { deleteArchive, listArchives, readArchive, writeArchive } from './archives';
import { fsyncDirectory, renameIntoPlace } from '../../files/replace-file';

/** A change whose commit fence fails this many times in a row gives up with `lock_timeout`. */
export const FENCE_ATTEMPTS = 5;

/**
 * What a locked change loaded: the file's inode (undefined when there was no
 * file) and its generation. A save commits only if state.json still matches.
 */
interface StateFence {
  ino: number | undefined;
  generation: number | undefined;
}

// Thrown by the commit fence: someone else committed since our load, so the
// lock we hold was not exclusive (it was broken under us). The change is run
// again from a fresh lock and load.
class FenceLost extends Error {}

export interface StoreOptions {
  projectDir: string;
  codec: StateCodec;
  fs?: FsPort;
  /** The clock handed to the engine and used for stamps; Date.now by default. */
  now?: () => number;
  lockTimeoutMs?: number;
  /** This machine's name in lock stamps; os.hostname() by default. */
  host?: string;
  historyKeep?: number;
  historyCompactLines?: number;
  isPidAlive?: (pid: number) => boolean;
}

/** Opens the store of `projectDir` with an explicit codec. Nothing touches the disk until the first call. */
export function createStore(options: StoreOptions): Store & LocalEdits {
  const projectDir = resolvePath(options.projectDir);
  const stateDir = join(projectDir, STATE_DIR_NAME);
  const statePath = join(stateDir, 'state.json');
  const lockPath = join(stateDir, '.state.lock');
  const port = options.fs ?? NODE_FS;
  const codec = options.codec;
  const now = options.now ?? Date.now;
  const host = options.host ?? hostname();
  const history = new HistoryLog({
    port,
    historyDir: join(stateDir, 'history'),
    keepRecords: options.historyKeep,
    compactLines: options.historyCompactLines,
  });
  const boardLog = new BoardHistoryLog(port, join(stateDir, 'history'));
  const ctx = createEngineCtx(now, history);
  let isMigrationSettled = false;
  const memo: ParseMemo = {};
  // One mutate at a time per process: the lock file would serialise them
  // anyway, but only by polling against ourselves.
  let queue: Promise<unknown> = Promise.resolve();

  // Set by a save whose rename is done but not yet durable (see settleSave).
  let isRenameUnsynced = false;

  // Lock timing runs on the wall clock, never on the injected engine clock.
  const lockOptions = { port, lockPath, host, timeoutMs: options.lockTimeoutMs, isPidAlive: options.isPidAlive };
  function withLock<T>(section: (lock: LockHandle) => T): Promise<T> {
    return lockedOrAnswered((claimed) => section(claimed.lock), undefined) as Promise<T>;
  }

  // withLock, or for a change written as data the answer a holder gave it while it waited.
  async function lockedOrAnswered<T>(section: (claimed: ClaimedWith) => T, change: WaitingChange | undefined): Promise<T | Answered> {
    const turn = queue.then(async () => {
      for (let attempt = 1; ; attempt++) {
        const claimed = change === undefined ? { lock: await claimLock(lockOptions) } : await claimLockOrAnswer(lockOptions, change);
        if ('answered' in claimed) return claimed;
        const lock = claimed.lock;
        let isDone = false;
        try {
          const result = section(claimed);
          isDone = true;
          return result;
        } catch (err) {
          if (!(err instanceof FenceLost)) throw err;
          if (attempt >= FENCE_ATTEMPTS) {
            throw new StoreFault('lock_timeout', `gave up after ${attempt} attempts: another process kept committing to ${statePath} while this one held the lock`);
          }
        } finally {
          releaseLock(port, lock);
          settleSave(isDone);
        }
      }
    });
    queue = turn.catch(() => undefined);
    return turn;
  }

  // The directory fsync that makes a save's rename durable runs after the
  // lock is released: the new state is complete and fsynced before the
  // rename, so a peer may build on it at once, and this mutation still
  // reports success only once the fsync is done. (A peer's later save can
  // only supersede it.) A section that failed keeps its own error.
  function settleSave(isDone: boolean): void {
    if (!isRenameUnsynced) return;
    isRenameUnsynced = false;
    try {
      fsyncDirectory(port, stateDir);
    } catch (err) {
      if (isDone) throw unwritable('save', statePath, err);
    }
  }

  // Runs a change under the lock, with the changes waiting in the queue
  // when its own went through: one load, one rewrite for all, and each
  // waiter answered only once that rewrite is durable (its folder fsynced
  // before the lock is let go). A waiting change that throws is left to its
  // waiter, one that is refused gets its refusal: either way the run is done
  // again from a fresh load without it, so it fails alone and leaves nothing
  // behind in the state. `mine` is an answer a holder prepared for our own
  // change before it stopped.
  function runLocked<T extends ToolResult>(lock: LockHandle, own: (state: State) => T, mine?: ClaimedWith['prepared']): T {
    const left = new Set<string>();
    const refused: Answer[] = [];
    for (;;) {
      try {
        return commitLocked(lock, own, mine, left, refused);
      } catch (err) {
        if (!(err instanceof ServingFailed) && !(err instanceof ServingRefused)) throw err;
        left.add(err.path);
        if (err instanceof ServingRefused) refused.push({ path: err.path, result: err.result });
      }
    }
  }

  function commitLocked<T extends ToolResult>(lock: LockHandle, own: (state: State) => T, mine: ClaimedWith['prepared'], left: Set<string>, refused: Answer[]): T {
    const loaded = loadLocked(lock);
    // Saved by a holder that stopped before it answered: the state holds it.
    if (mine !== undefined && mine.commit === loaded.commit) return mine.result as T;
    const found = gatherWaiting(port, servableTickets(lockOptions, Date.now()), loaded.commit, MAX_WAITING_PER_COMMIT);
    // Answered before this rewrite replaces the commit they are in (waiting-changes.ts).
    for (const answer of found.committed) {
      try {
        answerChange(port, answer.path, answer.result);
      } catch (err) {
        throw unwritable('answer a waiting change at', answer.path, err);
      }
    }
    const pending = found.toApply.filter((f) => !left.has(f.path));
    let applied: Applied[] = [];
    const { result, write } = applyChange(loaded, codec, ctx.now(), (state) => {
      const ownResult = own(state);
      applied = ownResult.ok ? applyWaiting(state, pending, ctx, tx) : [];
      return ownResult;
    });
    if (write) {
      const commit = randomHex(8);
      prepareAll(port, applied, commit);
      save(write, lock, loaded.fence, commit);
    }
    if (applied.length > 0 || refused.length > 0) {
      settleSave(true);
      answerAll(port, [...applied, ...refused]);
    }
    return result;
  }

  // What a change decided to write: its finished records and retired tasks to
  // their history logs first (a crash in between can only repeat a record), then the state.
  function save(write: ChangeWrite, lock: LockHandle, fence: StateFence, commit: string): void {
    refreshLock(port, lock, Date.now());
    try {
      history.appendFinished(write.finished);
      boardLog.append(write.retired);
    } catch (err) {
      throw unwritable('append to the history in', join(stateDir, 'history'), err);
    }
    writeState(lock, write.text, fence, commit);
  }

  function writeState(lock: LockHandle, text: string, fence: StateFence, commit: string): void {
    refreshLock(port, lock, Date.now());
    try {
      renameIntoPlace(port, statePath, encodeReusing(withGeneration(text, (fence.generation ?? 0) + 1, commit)), FILE_MODE, () => checkFence(fence));
    } catch (err) {
      if (err instanceof FenceLost) throw err;
      throw unwritable('save', statePath, err);
    }
    isRenameUnsynced = true;
  }

  // The fence at commit: immediately before the rename, state.json must still
  // be the file this change loaded (same inode, same generation). A mismatch
  // means another process committed while we held the lock, so our change was
  // built on a state that is gone: it is not saved, and the change runs again.
  function checkFence(fence: StateFence): void {
    const stat = port.statIfExists(statePath);
    if (stat?.ino !== fence.ino) throw new FenceLost();
    if (stat !== undefined && readGeneration() !== fence.generation) throw new FenceLost();
  }

  function readGeneration(): number | undefined {
    let fd: number;
    try {
      fd = port.openSync(statePath, 'r');
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') throw new FenceLost();
      throw err;
    }
    try {
      const head = Buffer.alloc(GENERATION_HEAD_BYTES);
      const got = port.readSync(fd, head, 0, head.length, 0);
      return splitGeneration(head.toString('latin1', 0, got)).generation;
    } finally {
      port.closeSync(fd);
    }
  }

  function fenceOf(loaded: LoadedState): StateFence {
    return { ino: loaded.isAbsent ? undefined : port.statIfExists(statePath)?.ino, generation: loaded.generation };
  }

  function loadLocked(lock: LockHandle): LoadedState & { fence: StateFence } {
    const at = now();
    const loaded = readState(port, statePath, codec, at, memo);
    const fence = fenceOf(loaded);
    if (loaded.rejected) {
      const name = quarantineState(port, stateDir, loaded.rejected.bytes, at);
      noteRejection(loaded.state, at, 'state file', loaded.rejected.reason, name);
    }
    if (!isMigrationSettled) {
      const outcome = migrateV1IfPresent({ port, projectDir, stateDir, codec, now: at, loaded, hadStateFile: !loaded.isAbsent && !loaded.rejected });
      // 'pending' means no legacy file: a v1 install appearing under a running
      // process is not a case worth a stat on every mutation.
      if (outcome.kind !== 'migrated') isMigrationSettled = true;
      if (outcome.kind === 'migrated') {
        const finished = takeFinished(outcome.state);
        const text = codec.serializeState(outcome.state);
        save({ text, finished, retired: [], isFallback: false }, lock, fence, randomHex(8));
        writeMarker(port, migrationPaths(projectDir, stateDir).marker, outcome.marker);
        isMigrationSettled = true;
        return { state: outcome.state, baseline: text, fence: fenceOf({ state: outcome.state, baseline: text, generation: (fence.generation ?? 0) + 1 }) };
      }
    }
    return { ...loaded, fence };
  }

  // Under the lock, before the state is saved: an archive is on disk before
  // the live channel it saves is gone.
  const tx: StoreTx = {
    putArchive: (archive) => writeArchive(projectDir, archive, port),
    deleteArchive: (channelId) => void deleteArchive(projectDir, channelId, port),
  };

  const description = describeSelection(undefined, projectDir);
  return {
    projectDir,
    stateDir,
    location: description.location,
    history,
    archives: {
      list: async () => listArchives(projectDir, port),
      get: async (channelId) => readArchive(projectDir, channelId, port),
    },
    boardHistory: { where: boardLog.path, find: async (id) => boardLog.find(id) },

    mutate: (async (name: string, args: unknown, mutateOptions?: MutateOptions): Promise<ToolResult> => {
      const apply = changeFnOf(name);
      const change = plainChange(name, args, mutateOptions?.member, now());
      const outcome = await lockedOrAnswered((claimed) => runLocked(claimed.lock, (state) => apply(state, change.args, seededCtx(ctx, change), tx), claimed.prepared), change);
      return 'answered' in outcome ? outcome.answered : outcome;
    }) as Store['mutate'],

    editLocally: <T extends ToolResult>(fn: LocalChange<T>): Promise<T> => withLock((lock) => runLocked(lock, (state) => fn(state, ctx, tx))),

    read<T>(fn: (state: State, ctx: EngineCtx) => T): T {
      return fn(this.snapshot(), ctx);
    },

    async readLatest<T>(fn: (state: State, ctx: EngineCtx) => T): Promise<T> {
      return fn(this.snapshot(), ctx);
    },

    async refresh(): Promise<void> {
      // Files are read afresh by every read.
    },

    describe: () => description,

    hasState(): boolean {
      try {
        return port.statIfExists(statePath) !== undefined;
      } catch {
        return false; // .opencomms is not a folder: nothing here to read either
      }
    },

    watch: (watchOptions) => watchStateDir(stateDir, watchOptions),

    check: (checkOptions) => checkFileStore(projectDir, stateDir, checkOptions),

    async close(): Promise<void> {
      // Nothing is held open between calls.
    },

    snapshot(): State {
      const at = now();
      // A snapshot is often followed by a load of the same text (the
      // doorbell's, then the next tool call's), so it teaches the memo.
      const loaded = readState(port, statePath, codec, at, memo, true);
      if (loaded.rejected) {
        addError(loaded.state, at, rejectionNote('state file', loaded.rejected.reason));
      }
      return loaded.state;
    },

    pageHistory: () => fileHistoryPager(port, join(stateDir, 'history')),

    dropHistory(channelId: string): Promise<void> {
      return withLock(() => {
        try {
          history.drop(channelId);
        } catch (err) {
          throw unwritable('delete the history of', channelId, err);
        }
      });
    },
  };
}
