// Wakes listeners when state.json changes. The store replaces the file by
// rename on every save, so a watch on the file itself would follow the old
// inode and go quiet after the first save: we watch the DIRECTORY and keep
// only the events that name state.json. A slow stat poll stands in where
// the platform cannot watch. Nothing here keeps the process alive: the stdio
// server alone decides when to exit.
import { existsSync, statSync, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** After a wake-up, changes within this window fold into one more wake-up at its end. */
export const DEFAULT_DEBOUNCE_MS = 5;
/** How often the fallback poll looks at state.json, only where watching fails. */
export const DEFAULT_POLL_MS = 2_000;

const STATE_FILE = 'state.json';

export interface StateWatcher {
  /** Adds a listener; returns its unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Stops watching, polling and any pending wake-up, and drops every listener. */
  close(): void;
}

/** What a directory watch must offer: the subset of fs.FSWatcher we use. */
export interface DirWatch {
  close(): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/** Starts a non-persistent watch on `dir`; `filename` is null when the platform does not say. Throws when it cannot. */
export type WatchDir = (dir: string, onEvent: (filename: string | null) => void) => DirWatch;

export interface WatchStateDirOptions {
  debounceMs?: number;
  pollMs?: number;
  log?: (line: string) => void;
  /** Replaces fs.watch; tests use it to stand for a platform where watching throws or fails later. */
  watch?: WatchDir;
}

/** fs.watch as a WatchDir: non-persistent, the file name as a string (or null). */
export const watchDirWithNode: WatchDir = (dir, onEvent) =>
  watch(dir, { persistent: false }, (_event, filename) => onEvent(filename == null ? null : String(filename)));

/** ino + size + mtime of state.json, or 'absent'. A rename-replace always changes the inode. */
function signatureOf(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'absent';
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Watches `stateDir` (the project's `.opencomms`) for changes to state.json:
 * the file store's way of watching (Store.watch).
 * Listeners run at most once per debounce window. When the directory does not
 * exist yet, its parent is watched until it appears.
 */
export function watchStateDir(stateDir: string, options: WatchStateDirOptions = {}): StateWatcher {
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const log = options.log ?? (() => undefined);
  const watchDir = options.watch ?? watchDirWithNode;
  const statePath = join(stateDir, STATE_FILE);
  const dirName = basename(stateDir);
  const listeners = new Set<() => void>();
  let isClosed = false;
  let current: DirWatch | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let isLeadingQueued = false;
  let isDirty = false;
  let poll: NodeJS.Timeout | undefined;
  // Only read by the poll and by the hand-over from the parent watch, which
  // must each tell whether state.json changed while nothing was watching it.
  let lastSignature = signatureOf(statePath);

  const fire = (): void => {
    isDirty = false;
    if (isClosed) return;
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (err) {
        log(`state watcher listener failed: ${errorText(err)}`);
      }
    }
  };

  // The first change after a quiet spell wakes listeners at once (in a
  // microtask: the rename is complete when its event arrives, so the new
  // state is there to read). Changes inside the window that follows fold
  // into one wake-up at its end; the window is not pushed back, so a steady
  // stream of saves still wakes listeners once per window.
  const openWindow = (): void => {
    debounce = setTimeout(endWindow, debounceMs);
    debounce.unref();
  };
  const endWindow = (): void => {
    debounce = undefined;
    if (isClosed || !isDirty) return;
    openWindow();
    fire();
  };
  const schedule = (): void => {
    if (isClosed) return;
    if (debounce || isLeadingQueued) {
      isDirty = true;
      return;
    }
    openWindow();
    isLeadingQueued = true;
    queueMicrotask(() => {
      isLeadingQueued = false;
      fire();
    });
  };

  const fireIfChanged = (): void => {
    const signature = signatureOf(statePath);
    if (signature === lastSignature) return;
    lastSignature = signature;
    schedule();
  };

  const stopCurrent = (): void => {
    const watcher = current;
    current = undefined;
    try {
      watcher?.close();
    } catch {
      // closing a watch that already failed has nothing left to release
    }
  };

  /** Polls until closed. `isAwaitingDir`: the poll began only because the directory was missing, so a real watch is tried once it appears. */
  const startPolling = (isAwaitingDir: boolean): void => {
    stopCurrent();
    if (isClosed || poll) return;
    // lastSignature is deliberately not refreshed here: a change made while
    // the failed watch was going quiet then shows on the first tick. A spare
    // wake-up is harmless to listeners; a lost one is not.
    poll = setInterval(() => {
      if (isAwaitingDir && existsSync(stateDir)) {
        clearInterval(poll);
        poll = undefined;
        isAwaitingDir = false;
        watchStateFile();
        fireIfChanged();
        return;
      }
      fireIfChanged();
    }, pollMs);
    poll.unref();
  };

  const onWatchError = (watcher: DirWatch, where: string) => (err: Error): void => {
    if (isClosed || current !== watcher) return;
    log(`watching ${where} failed (${err.message}); polling state.json every ${pollMs} ms instead`);
    startPolling(false);
  };

  function watchStateFile(): void {
    if (isClosed) return;
    let watcher: DirWatch;
    try {
      watcher = watchDir(stateDir, (filename) => {
        // A watch already replaced may still report what was queued for it.
        if (isClosed || current !== watcher) return;
        if (filename === null || filename === STATE_FILE) schedule();
        // An event naming the directory itself is its deletion or a move, so
        // this watch now follows a dead inode. The directory may already be
        // back (removed and re-created within one tick): watch whatever is
        // at the path now, and wake listeners, since state.json may have
        // changed with it. Only when nothing is there, wait for it.
        else if (filename === dirName) rewatchStateDir();
      });
    } catch (err) {
      if (isMissing(err)) return awaitStateDir();
      log(`cannot watch ${stateDir} (${errorText(err)}); polling state.json every ${pollMs} ms instead`);
      return startPolling(false);
    }
    current = watcher;
    watcher.on('error', onWatchError(watcher, stateDir));
  }

  function rewatchStateDir(): void {
    if (!existsSync(stateDir)) return awaitStateDir();
    stopCurrent();
    watchStateFile();
    schedule();
  }

  function awaitStateDir(): void {
    stopCurrent();
    if (isClosed) return;
    const parent = dirname(stateDir);
    const handOver = (): void => {
      if (isClosed || !existsSync(stateDir)) return;
      stopCurrent();
      watchStateFile();
      // state.json may have been written between the mkdir and our watch.
      fireIfChanged();
    };
    let watcher: DirWatch;
    try {
      watcher = watchDir(parent, (filename) => {
        if (filename === null || filename === dirName) handOver();
      });
    } catch {
      return startPolling(true);
    }
    current = watcher;
    watcher.on('error', onWatchError(watcher, parent));
    // The directory may have appeared before the parent watch began.
    handOver();
  }

  watchStateFile();

  return {
    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close() {
      isClosed = true;
      stopCurrent();
      if (debounce) clearTimeout(debounce);
      if (poll) clearInterval(poll);
      debounce = undefined;
      poll = undefined;
      listeners.clear();
    },
  };
}
