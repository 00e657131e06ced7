// The files of the shell checker (hooks/shell-checker.ts), kept in
// .opencomms/shell/ beside the shell records (side-files.ts):
//   checker-<pid>.json       a server that runs the check after a shell call
//                            for this project's hooks: {pid, machine, start},
//                            removed when it stops;
//   <key>.ask-<pid>          a hook asking that server to judge the record
//                            `<key>.json` of its call;
//   <key>.answer-<pid>.json  the server's verdict, written by temp and rename.
// All are private files of ours, made without following a link (fs-port).
import { join } from 'node:path';
import type { RecordedProcess } from '../process/liveness';
import { tryReadFile } from '../files/file-read';
import { errnoOf, NODE_FS, unlinkQuietly, type FsPort } from '../files/fs-port';
import { ensureOwnDir, openOwnFile } from '../files/own-files';
import { isShellKey, shellDirOf, writeUnsynced } from './side-files';
import { STATE_DIR_NAME } from './state-dir';

/** An ask: the record's key and the pid of the server asked. */
export const ASK_NAME = /^([0-9a-f]{16,64})\.ask-(\d+)$/;
const NOTICE_NAME = /^checker-(\d+)\.json$/;

/** Makes the shell folder (and .opencomms) when absent; returns its path. */
export function ensureShellDir(projectDir: string, port: FsPort = NODE_FS): string {
  const dir = shellDirOf(projectDir);
  ensureOwnDir(port, join(projectDir, STATE_DIR_NAME));
  ensureOwnDir(port, dir);
  return dir;
}

/** Says that `proc` runs the check after a shell call for this project. */
export function writeCheckerNotice(projectDir: string, proc: RecordedProcess, port: FsPort = NODE_FS): void {
  writeUnsynced(port, join(shellDirOf(projectDir), `checker-${proc.pid}.json`), JSON.stringify(proc));
}

/** Takes back what writeCheckerNotice said for `pid`. */
export function removeCheckerNotice(projectDir: string, pid: number, port: FsPort = NODE_FS): void {
  unlinkQuietly(port, join(shellDirOf(projectDir), `checker-${pid}.json`));
}

/**
 * The processes whose notices are in the shell folder (`names`: its
 * listing), whether or not they still run. A notice must be a private file
 * (0600, as we make it): a repository can ship files here, but a checkout
 * never makes one that private, so a planted notice makes no hook wait.
 * One that cannot be read is passed over.
 */
export function readCheckerNotices(projectDir: string, names: readonly string[], port: FsPort = NODE_FS): RecordedProcess[] {
  const found: RecordedProcess[] = [];
  for (const name of names) {
    const match = NOTICE_NAME.exec(name);
    if (!match) continue;
    const path = join(shellDirOf(projectDir), name);
    try {
      const stat = port.lstatIfExists(path);
      if (stat === undefined || !stat.isFile() || (stat.mode & 0o077) !== 0) continue;
      const value = JSON.parse(tryReadFile(port, path)?.toString('utf8') ?? 'null') as Partial<RecordedProcess> | null;
      const start = value?.start;
      if (value !== null && value.pid === Number(match[1]) && typeof value.machine === 'string' && (start === null || typeof start === 'number')) {
        found.push({ pid: value.pid, machine: value.machine, start });
      }
    } catch {
      // half a notice (its writer was killed mid-write), or not a file of ours: not a checker to ask
    }
  }
  return found;
}

function askPath(projectDir: string, key: string, pid: number): string {
  return join(shellDirOf(projectDir), `${key}.ask-${pid}`);
}

function answerPath(projectDir: string, key: string, pid: number): string {
  return join(shellDirOf(projectDir), `${key}.answer-${pid}.json`);
}

/**
 * Leaves the ask for server `pid` about the record `key`, after removing any
 * answer already there (only an answer written after the ask is read);
 * false when it cannot be left.
 */
export function writeAsk(projectDir: string, key: string, pid: number, port: FsPort = NODE_FS): boolean {
  if (!isShellKey(key)) return false;
  unlinkQuietly(port, answerPath(projectDir, key, pid));
  const path = askPath(projectDir, key, pid);
  try {
    port.closeSync(openOwnFile(port, path, 'create'));
    return true;
  } catch (err) {
    if (errnoOf(err) !== 'EEXIST') return false;
    // An ask left by an earlier run of this very call: asked again, as new.
    unlinkQuietly(port, path);
    return writeAsk(projectDir, key, pid, port);
  }
}

/** Whether the ask about `key` to this process is still waiting for its answer. */
export function isAskWaiting(projectDir: string, key: string, port: FsPort = NODE_FS): boolean {
  return port.lstatIfExists(askPath(projectDir, key, process.pid)) !== undefined
    && port.lstatIfExists(answerPath(projectDir, key, process.pid)) === undefined;
}

/** This process answers the ask about `key`. */
export function writeCheckerAnswer(projectDir: string, key: string, text: string, port: FsPort = NODE_FS): void {
  writeUnsynced(port, answerPath(projectDir, key, process.pid), text);
}

/** The answer of server `pid` about `key`, or undefined while there is none. */
export function readCheckerAnswer(projectDir: string, key: string, pid: number, port: FsPort = NODE_FS): string | undefined {
  return tryReadFile(port, answerPath(projectDir, key, pid))?.toString('utf8');
}

/** Removes the ask about `key` to server `pid` and its answer, if any. */
export function removeAsk(projectDir: string, key: string, pid: number, port: FsPort = NODE_FS): void {
  unlinkQuietly(port, askPath(projectDir, key, pid));
  unlinkQuietly(port, answerPath(projectDir, key, pid));
}
