// The shell watch (PROTOCOL 8.6, "The watch"). The check after a shell call
// (shell-check.ts) must know which held files changed during the call; a
// status read per held file costs a fresh hook process about 5 µs, 10 ms for
// 2,000 files. On Linux, a server of the project watches instead: an inotify
// watch (node's fs.watch) on every folder holding a file someone reserved
// exclusively, and one on .opencomms/shell, where the call's record appears
// before the call and its ask after it. The kernel queues the events of all
// of a process's watches in one queue, in the order they happened, so the
// events read between the record and the ask are the changes made during
// the call, in every folder whose watch was in place before the record. The
// answer names those folders and the names that changed in them; the check
// reads the status of the rest only. No server, no answer in time, a queue
// that may have overflowed: the check reads them all, as without a watch.
import { lstatSync, readdirSync, readFileSync, watch as watchFolder } from 'node:fs';
import { basename, join } from 'node:path';
import { isRecordedProcessAlive, thisRecordedProcess, type RecordedProcess } from '../process/liveness';
import {
  ASK_NAME, ensureShellDir, isAskWaiting, isOwnBarrier, makeBarrier, readWatchAnswer, readWatchNotices, RECORD_NAME,
  removeAsk, removeWatchNotice, shellDirOf, writeWatchAnswer, writeAsk, writeWatchNotice, type DirWatch,
} from '../store';

/** What a watching server answers about one call. */
export interface WatchAnswer {
  /** Folders (project-relative, '' for the root) watched without a break since before the call's record. */
  covered: ReadonlySet<string>;
  /** Project-relative paths in watched folders that had an event between the record and the ask. */
  changed: ReadonlySet<string>;
  /**
   * Entries of covered folders that are not plain files (links, folders, …):
   * a write through a link, or inside a folder, shows no event in the
   * folder watched, so the check reads their status.
   */
  irregular: ReadonlySet<string>;
}

/** The folders to watch: project-relative path → whether new subfolders of it are to be watched too (a glob's tree). */
export type WatchedFolders = ReadonlyMap<string, boolean>;

/** How long the check after a call waits for an answer before it reads every held file itself. */
export const ASK_TIMEOUT_MS = 150;
/** A call's window still unanswered after this long is dropped (its call never asked). */
export const WINDOW_MAX_MS = 3_600_000;
/** A window that saw more changed names than this answers "not seen": the check reads every file. */
export const MAX_CHANGED_NAMES = 20_000;
/** At most this many folders are watched; files in the others are read by the check. */
export const MAX_WATCHED_FOLDERS = 2_000;
// The kernel's queue holds 16,384 events by default (fs.inotify.max_queued_events).
const DEFAULT_QUEUE_LIMIT = 16_384;
const REFRESH_DELAY_MS = 20;

/** Starts a watch of one folder; `name` is null when the platform does not say. Throws when it cannot. */
export type WatchOne = (dir: string, onEvent: (name: string | null) => void) => DirWatch;

export interface ShellWatchOptions {
  projectDir: string;
  /** The folders to watch now; asked again on every refresh(). */
  folders: () => WatchedFolders;
  log: (line: string) => void;
  /** Replaces fs.watch (tests). */
  watch?: WatchOne;
  /** Replaces the platform check (tests): the watch runs on Linux only. */
  platform?: string;
  /** Replaces the kernel's queue limit read from /proc (tests). */
  queueLimit?: number;
  /** Replaces MAX_CHANGED_NAMES (tests). */
  maxChangedNames?: number;
}

export interface ShellWatch {
  /** Looks at the folders again (after a change of the state), soon. */
  refresh(): void;
  /** The folders whose watch is in place (its barrier read): a call recorded from now on is covered there. */
  covering(): string[];
  close(): void;
}

/** The kernel's limit on a watching process's queue of events, where /proc tells it. */
function tryReadQueueLimit(): number | undefined {
  try {
    const limit = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    return Number.isInteger(limit) && limit > 0 ? limit : undefined;
  } catch {
    return undefined;
  }
}

const watchFolderWithNode: WatchOne = (dir, onEvent) =>
  watchFolder(dir, { persistent: false }, (_event, name) => onEvent(name == null ? null : String(name)));

interface Window {
  /** The event count at the record's event. */
  start: number;
  openedAt: number;
  changed: Set<string>;
  /** Too many names, or the queue may have overflowed: answered as not seen. */
  isSpoiled: boolean;
}

interface Watched {
  handle: DirWatch;
  /** Absolute path of the folder. */
  dir: string;
  /** Names in it that are not plain files: listed when the watch began, then looked at again on each event. */
  irregular: Set<string>;
  /** The event count at the barrier after this watch was added; Infinity until it is read. */
  since: number;
  isTree: boolean;
}

/**
 * Starts the watch of `projectDir` in this process, or returns undefined off
 * Linux (elsewhere the platform's watches do not promise one ordered queue)
 * and when the shell folder cannot be made or watched.
 */
export function startShellWatch(options: ShellWatchOptions): ShellWatch | undefined {
  if ((options.platform ?? process.platform) !== 'linux') return undefined;
  const { projectDir, log } = options;
  const watchOne = options.watch ?? watchFolderWithNode;
  const watched = new Map<string, Watched>();
  const windows = new Map<string, Window>();
  const barriers = new Map<string, string[]>();
  // An event count read in one go past half the queue means the queue may have filled and dropped events.
  const overflowAt = Math.max(1, Math.floor((options.queueLimit ?? tryReadQueueLimit() ?? DEFAULT_QUEUE_LIMIT) / 2));
  const maxChangedNames = options.maxChangedNames ?? MAX_CHANGED_NAMES;
  let count = 0;
  let run = 0;
  let isRunCounted = false;
  let barrierCount = 0;
  let refreshTimer: NodeJS.Timeout | undefined;
  let isClosed = false;
  let shellDir: string;
  let shellHandle: DirWatch;
  try {
    shellDir = ensureShellDir(projectDir);
    shellHandle = watchOne(shellDir, onShellEvent);
    shellHandle.on('error', (err) => stopAll(`the watch of ${shellDir} failed: ${err.message}`));
  } catch (err) {
    log(`shell watch: not started (${err instanceof Error ? err.message : String(err)}); shell calls read each held file`);
    return undefined;
  }
  const me = thisRecordedProcess();
  refreshNow();
  try {
    writeWatchNotice(projectDir, me);
  } catch (err) {
    log(`shell watch: could not say it watches (${err instanceof Error ? err.message : String(err)})`);
  }
  return {
    refresh: scheduleRefresh,
    covering: () => [...watched].filter(([, entry]) => entry.since < Number.POSITIVE_INFINITY).map(([folder]) => folder),
    close() {
      if (isClosed) return;
      stopAll(undefined);
      removeWatchNotice(projectDir, me.pid);
    },
  };

  // Each event read counts, and so does each run of events read in one go (see overflowAt).
  function countEvent(): void {
    count += 1;
    run += 1;
    if (!isRunCounted) {
      isRunCounted = true;
      setImmediate(() => {
        isRunCounted = false;
        run = 0;
      });
    }
    if (run === overflowAt) {
      for (const window of windows.values()) window.isSpoiled = true;
      log(`shell watch: ${run} events read in one go; the calls under way read each held file`);
    }
  }

  function onShellEvent(name: string | null): void {
    countEvent();
    if (isClosed) return;
    if (name === null || name === basename(shellDir)) {
      // The folder itself moved or went: nothing it says can be trusted any more.
      stopAll(`${shellDir} changed under the watch`);
      return;
    }
    const record = RECORD_NAME.exec(name);
    if (record) {
      openWindow(record[1]!);
      return;
    }
    const ask = ASK_NAME.exec(name);
    if (ask) {
      if (Number(ask[2]) === process.pid) answerAsk(ask[1]!);
      return;
    }
    const folders = barriers.get(name);
    if (folders !== undefined && isOwnBarrier(name)) {
      barriers.delete(name);
      for (const folder of folders) {
        const entry = watched.get(folder);
        if (entry !== undefined && entry.since === Number.POSITIVE_INFINITY) entry.since = count;
      }
    }
  }

  // The record's event opens its call's window, unless one is open: the
  // earlier start is the safer one. Only a record that exists now opens one:
  // the event of its removal must not open a window that starts after the call.
  function openWindow(key: string): void {
    if (windows.has(key)) return;
    let isRecordThere: boolean;
    try {
      isRecordThere = lstatSync(join(shellDir, `${key}.json`), { throwIfNoEntry: false }) !== undefined;
    } catch {
      isRecordThere = false;
    }
    if (!isRecordThere) return;
    const now = Date.now();
    for (const [other, window] of windows) if (now - window.openedAt > WINDOW_MAX_MS) windows.delete(other);
    // Opened in a run already past the line: events after this record may be among those dropped.
    windows.set(key, { start: count, openedAt: now, changed: new Set(), isSpoiled: run >= overflowAt });
  }

  function answerAsk(key: string): void {
    if (!isAskWaiting(projectDir, key)) return;
    const window = windows.get(key);
    windows.delete(key);
    let text: string;
    if (window === undefined || window.isSpoiled) {
      text = JSON.stringify({ seen: false });
    } else {
      const covered = [...watched].filter(([, entry]) => entry.since < window.start);
      const irregular = covered.flatMap(([folder, entry]) => [...entry.irregular].map((name) => (folder === '' ? name : `${folder}/${name}`)));
      text = JSON.stringify({ seen: true, covered: covered.map(([folder]) => folder), changed: [...window.changed], irregular });
    }
    try {
      writeWatchAnswer(projectDir, key, text);
    } catch (err) {
      log(`shell watch: could not answer (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  function onFolderEvent(folder: string, own: string, name: string | null): void {
    countEvent();
    const entry = watched.get(folder);
    if (isClosed || entry === undefined) return;
    if (name === null || name === own) {
      // The folder itself (or a child of the same name, which cannot be told apart): watched afresh.
      entry.handle.close();
      watched.delete(folder);
      scheduleRefresh();
      return;
    }
    const isFolder = noteKind(entry, name);
    const path = folder === '' ? name : `${folder}/${name}`;
    for (const window of windows.values()) {
      if (window.isSpoiled) continue;
      window.changed.add(path);
      if (window.changed.size > maxChangedNames) window.isSpoiled = true;
    }
    // A new subfolder of a glob's tree is watched too (until then its files are read by the check).
    if (isFolder && entry.isTree && !watched.has(path)) scheduleRefresh();
  }

  /** Looks at what `name` in a watched folder is now; true when it is a folder. */
  function noteKind(entry: Watched, name: string): boolean {
    let stat;
    try {
      stat = lstatSync(join(entry.dir, name), { throwIfNoEntry: false });
    } catch {
      entry.irregular.add(name); // unreadable: read by the check
      return false;
    }
    if (stat === undefined || stat.isFile()) entry.irregular.delete(name);
    else entry.irregular.add(name);
    return stat?.isDirectory() === true;
  }

  function scheduleRefresh(): void {
    if (isClosed || refreshTimer !== undefined) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = undefined;
      refreshNow();
    }, REFRESH_DELAY_MS);
    refreshTimer.unref();
  }

  function refreshNow(): void {
    if (isClosed) return;
    let want: WatchedFolders;
    try {
      want = options.folders();
    } catch (err) {
      log(`shell watch: could not tell the held folders (${err instanceof Error ? err.message : String(err)})`);
      return;
    }
    for (const [folder, entry] of watched) {
      if (want.get(folder) === undefined) {
        entry.handle.close();
        watched.delete(folder);
      } else {
        entry.isTree = want.get(folder)!;
      }
    }
    const added: string[] = [];
    for (const [folder, isTree] of want) {
      if (watched.has(folder)) continue;
      if (watched.size >= MAX_WATCHED_FOLDERS) break;
      const dir = folder === '' ? projectDir : join(projectDir, folder);
      const own = basename(dir);
      let handle: DirWatch | undefined;
      try {
        const started = watchOne(dir, (name) => onFolderEvent(folder, own, name));
        handle = started;
        started.on('error', () => {
          started.close();
          if (watched.get(folder)?.handle === started) watched.delete(folder);
        });
        // Listed once the watch is in place: an entry changed meanwhile has an event, which looks again.
        const irregular = new Set(readdirSync(dir, { withFileTypes: true }).filter((entry) => !entry.isFile()).map((entry) => entry.name));
        watched.set(folder, { handle: started, dir, irregular, since: Number.POSITIVE_INFINITY, isTree });
        added.push(folder);
      } catch {
        // absent, not watchable or not listable: the check reads the files in it
        handle?.close();
      }
    }
    if (added.length === 0) return;
    try {
      barrierCount += 1;
      barriers.set(makeBarrier(shellDir, barrierCount), added);
    } catch (err) {
      log(`shell watch: could not mark new watches (${err instanceof Error ? err.message : String(err)}); their files are read by the check`);
    }
  }

  function stopAll(problem: string | undefined): void {
    if (problem !== undefined) log(`shell watch: stopped: ${problem}; shell calls read each held file`);
    isClosed = true;
    if (refreshTimer !== undefined) clearTimeout(refreshTimer);
    shellHandle.close();
    for (const entry of watched.values()) entry.handle.close();
    watched.clear();
    windows.clear();
    if (problem !== undefined) removeWatchNotice(projectDir, me.pid);
  }
}

/** A live process of this machine that says it keeps the shell watch of `projectDir`, if any. */
export function liveShellWatchOf(projectDir: string): RecordedProcess | undefined {
  let names: string[];
  try {
    names = readdirSync(shellDirOf(projectDir));
  } catch {
    return undefined;
  }
  return readWatchNotices(projectDir, names).find((proc) => isRecordedProcessAlive(proc) === true);
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * After a shell call: asks a live watching server of this project about the
 * call's record `key`. Undefined when none watches, when it has not seen the
 * record (it started later, or its queue may have overflowed), or when no
 * answer came within ASK_TIMEOUT_MS.
 */
export function askShellWatch(projectDir: string, key: string, timeoutMs = ASK_TIMEOUT_MS, platform = process.platform): WatchAnswer | undefined {
  if (platform !== 'linux') return undefined;
  const server = liveShellWatchOf(projectDir);
  if (server === undefined || !writeAsk(projectDir, key, server.pid)) return undefined;
  try {
    const deadline = Date.now() + timeoutMs;
    let pauseMs = 0.1;
    for (;;) {
      const text = readWatchAnswer(projectDir, key, server.pid);
      if (text !== undefined) return parseWatchAnswer(text);
      if (Date.now() >= deadline) return undefined;
      Atomics.wait(sleepCell, 0, 0, pauseMs);
      pauseMs = Math.min(2, pauseMs * 1.5);
    }
  } catch {
    return undefined;
  } finally {
    removeAsk(projectDir, key, server.pid);
  }
}

/** An answer as a watching server wrote it, or undefined when it says "not seen" or is not one. */
export function parseWatchAnswer(text: string): WatchAnswer | undefined {
  let value: { seen?: unknown; covered?: unknown; changed?: unknown; irregular?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    return undefined;
  }
  const isNames = (list: unknown): list is string[] => Array.isArray(list) && list.every((item) => typeof item === 'string');
  if (value.seen !== true || !isNames(value.covered) || !isNames(value.changed) || !isNames(value.irregular)) return undefined;
  return { covered: new Set(value.covered), changed: new Set(value.changed), irregular: new Set(value.irregular) };
}
