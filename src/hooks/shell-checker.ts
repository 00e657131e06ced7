// The shell checker (PROTOCOL 8.5, "The checker"). The check after a shell
// call (shell-check.ts) reads the status of every held file; a fresh hook
// process pays about 5 µs a read, cold, 10 ms for 2,000 files. A server of
// the project is a warm process that is there anyway, so one server per
// project on this machine runs that same check for the hooks: the hook
// leaves an ask beside its call's record, the server judges the record
// exactly as the hook would (judgeShellRecord, warm: about 1.2 µs a read)
// and answers with the files that changed. No live server, or no answer
// within ASK_TIMEOUT_MS: the hook judges the record itself.
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { isRecordedProcessAlive, thisRecordedProcess, type RecordedProcess } from '../process/liveness';
import { ASK_NAME, ensureShellDir, isAskWaiting, readCheckerAnswer, readCheckerNotices, removeAsk, removeCheckerNotice, writeAsk, writeCheckerAnswer, writeCheckerNotice } from '../local/shell-checker-files';
import { shellDirOf } from '../local/side-files';
import { watchDirWithNode, type DirWatch, type WatchDir } from '../local/state-dir-watch';

/** How long the check after a call waits for a server's answer before it judges the record itself. */
export const ASK_TIMEOUT_MS = 150;

export interface ShellCheckerOptions {
  projectDir: string;
  /** The files held before the call `key` that changed during it, as the hook would judge them; undefined without its record. */
  judge: (key: string) => string[] | undefined;
  log: (line: string) => void;
  /** Replaces fs.watch (tests). */
  watch?: WatchDir;
  /** Replaces the platform check (tests): the checker runs on Linux only. */
  platform?: string;
}

export interface ShellChecker {
  /** False once it stopped: closed, or its folder went. */
  isRunning(): boolean;
  close(): void;
}

/**
 * Starts answering this project's asks in this process, or returns
 * undefined off Linux (where an ask was not measured to be answered faster
 * than the hook judges it) and when the shell folder cannot be made or watched.
 */
export function startShellChecker(options: ShellCheckerOptions): ShellChecker | undefined {
  if ((options.platform ?? process.platform) !== 'linux') return undefined;
  const { projectDir, log } = options;
  const me = thisRecordedProcess();
  let isStopped = false;
  let dir: string;
  let handle: DirWatch | undefined;
  try {
    dir = ensureShellDir(projectDir);
    const started = (options.watch ?? watchDirWithNode)(dir, onEvent);
    handle = started;
    started.on('error', (err) => stop(`its watch of ${dir} failed: ${err.message}`));
    // Notices of checkers that died without taking theirs back go now.
    for (const proc of readCheckerNotices(projectDir, readdirSync(dir))) {
      if (isRecordedProcessAlive(proc) === false) removeCheckerNotice(projectDir, proc.pid);
    }
    writeCheckerNotice(projectDir, me);
  } catch (err) {
    handle?.close();
    log(`shell checker: not started (${err instanceof Error ? err.message : String(err)}); hooks judge their shell calls themselves`);
    return undefined;
  }
  return {
    isRunning: () => !isStopped,
    close: () => stop(undefined),
  };

  function onEvent(name: string | null): void {
    if (isStopped) return;
    if (name === null || name === basename(dir)) {
      stop(`${dir} was moved or removed`);
      return;
    }
    const ask = ASK_NAME.exec(name);
    if (!ask || Number(ask[2]) !== process.pid || !isAskWaiting(projectDir, ask[1]!)) return;
    let changed: string[] | undefined;
    try {
      changed = options.judge(ask[1]!);
    } catch (err) {
      log(`shell checker: could not judge a shell call (${err instanceof Error ? err.message : String(err)}); its hook judges it`);
      changed = undefined;
    }
    try {
      writeCheckerAnswer(projectDir, ask[1]!, JSON.stringify({ changed: changed ?? null }));
    } catch (err) {
      log(`shell checker: could not answer (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  function stop(problem: string | undefined): void {
    if (isStopped) return;
    isStopped = true;
    if (problem !== undefined) log(`shell checker: stopped: ${problem}; hooks judge their shell calls themselves`);
    handle?.close();
    removeCheckerNotice(projectDir, me.pid);
  }
}

/** A live process of this machine that says it checks shell calls for `projectDir`, if any. */
export function liveShellCheckerOf(projectDir: string): RecordedProcess | undefined {
  let names: string[];
  try {
    names = readdirSync(shellDirOf(projectDir));
  } catch {
    return undefined;
  }
  return readCheckerNotices(projectDir, names).find((proc) => isRecordedProcessAlive(proc) === true);
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * After a shell call: asks a live checker of this project to judge the
 * call's record `key`; returns the files it found changed. Undefined when
 * none runs, when it could not judge, or when no answer came within
 * `timeoutMs`: the hook then judges the record itself.
 */
export function askShellChecker(projectDir: string, key: string, timeoutMs = ASK_TIMEOUT_MS, platform = process.platform): string[] | undefined {
  if (platform !== 'linux') return undefined;
  const server = liveShellCheckerOf(projectDir);
  if (server === undefined || !writeAsk(projectDir, key, server.pid)) return undefined;
  try {
    const deadline = Date.now() + timeoutMs;
    let pauseMs = 0.1;
    for (;;) {
      const text = readCheckerAnswer(projectDir, key, server.pid);
      if (text !== undefined) return parseCheckerAnswer(text);
      if (Date.now() >= deadline) return undefined;
      Atomics.wait(sleepCell, 0, 0, pauseMs);
      pauseMs = Math.min(0.5, pauseMs * 1.5);
    }
  } catch {
    return undefined;
  } finally {
    removeAsk(projectDir, key, server.pid);
  }
}

/** The changed files an answer names, or undefined when it names none (no record) or is not an answer. */
export function parseCheckerAnswer(text: string): string[] | undefined {
  let value: { changed?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    return undefined;
  }
  const { changed } = value;
  return Array.isArray(changed) && changed.every((f) => typeof f === 'string') ? changed : undefined;
}
