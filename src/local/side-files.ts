// Small per-session records beside the state, written without the lock and
// without touching state.json (PROTOCOL 4.1):
//   edits/<member_id>.jsonl  each member's own edits, appended one line per
//                            edit, read by the collision check of the others;
//   shell/<key>.json         what the held files looked like before one shell
//                            call, read and removed after it.
// Both are private files of ours, opened without following a link (fs-port).
// Neither is fsynced: a crash loses at most a notice, never the state.
import { basename, dirname, join } from 'node:path';
import { tryReadFile } from '../files/file-read';
import { FsPort, NODE_FS, unlinkQuietly, writeAll, errnoOf } from '../files/fs-port';
import { ensureOwnDir, openOwnFile, checkOwnDir } from '../files/own-files';
import { isValidMemberId } from './member-id';
import { replaceFile } from '../files/replace-file';
import { STATE_DIR_NAME } from './state-dir';

/** An edit log is cut back to its recent lines once it passes this size. */
export const EDIT_LOG_MAX_BYTES = 64 * 1024;
/** A shell record older than this was left by a call that never finished; the next write removes it. */
const SHELL_RECORD_MAX_AGE_MS = 24 * 3_600_000;
const SHELL_KEY = /^[0-9a-f]{16,64}$/;

/** One line of an edit log. */
export interface LoggedEdit {
  file: string;
  at: number;
}

function sideDir(projectDir: string, kind: 'edits' | 'shell'): string {
  return join(projectDir, STATE_DIR_NAME, kind);
}

/** The folder of the shell records. */
export function shellDirOf(projectDir: string): string {
  return sideDir(projectDir, 'shell');
}

/**
 * Appends one edit to `memberId`'s log; once the log passes
 * EDIT_LOG_MAX_BYTES it is rewritten with only the edits made since `keepSince`.
 */
export function appendEdits(projectDir: string, memberId: string, edits: readonly LoggedEdit[], keepSince: number, port: FsPort = NODE_FS): void {
  if (!isValidMemberId(memberId) || edits.length === 0) return;
  const dir = sideDir(projectDir, 'edits');
  ensureOwnDir(port, join(projectDir, STATE_DIR_NAME));
  ensureOwnDir(port, dir);
  const path = join(dir, `${memberId}.jsonl`);
  const fd = openOwnFile(port, path, 'append');
  let size: number;
  try {
    // One write per call: O_APPEND keeps concurrent hooks' lines whole.
    writeAll(port, fd, Buffer.from(edits.map((e) => JSON.stringify({ file: e.file, at: e.at })).join('\n') + '\n', 'utf8'));
    size = port.fstatSync(fd).size;
  } finally {
    port.closeSync(fd);
  }
  // Residual risk: a line appended by a parallel hook of the same member between the read and the rename is lost (one notice at most).
  if (size > EDIT_LOG_MAX_BYTES) {
    const kept = readEdits(projectDir, memberId, port).filter((e) => e.at >= keepSince);
    replaceFile(port, path, kept.map((e) => JSON.stringify(e)).join('\n') + (kept.length > 0 ? '\n' : ''));
  }
}

/** The edits in `memberId`'s log (none when it has no log); a line that does not parse is skipped. */
export function readEdits(projectDir: string, memberId: string, port: FsPort = NODE_FS): LoggedEdit[] {
  if (!isValidMemberId(memberId)) return [];
  const bytes = tryReadFile(port, join(sideDir(projectDir, 'edits'), `${memberId}.jsonl`));
  if (bytes === undefined) return [];
  const edits: LoggedEdit[] = [];
  for (const line of bytes.toString('utf8').split('\n')) {
    if (line === '') continue;
    try {
      const value = JSON.parse(line) as { file?: unknown; at?: unknown };
      if (typeof value.file === 'string' && typeof value.at === 'number' && Number.isFinite(value.at)) edits.push({ file: value.file, at: value.at });
    } catch {
      // a line cut by a crash: the rest of the log still counts
    }
  }
  return edits;
}

/** Writes the record of one shell call (`key`: lowercase hex), replacing any earlier one of that key. */
export function writeShellRecord(projectDir: string, key: string, text: string, now: number, port: FsPort = NODE_FS): void {
  if (!SHELL_KEY.test(key)) throw new Error('invalid shell record key');
  const dir = sideDir(projectDir, 'shell');
  ensureOwnDir(port, join(projectDir, STATE_DIR_NAME));
  if (ensureOwnDir(port, dir) === undefined) removeOldRecords(port, dir, now);
  writeRecordFile(port, dir, key, text);
}

/** Writes `text` to `<dir>/<stem>.json` as writeUnsynced does. */
export function writeRecordFile(port: FsPort, dir: string, stem: string, text: string): void {
  writeUnsynced(port, join(dir, `${stem}.json`), text);
}

/**
 * Writes `text` to `target` through a temp file renamed into place, so a
 * reader sees the old file or the new one, never half of one. The temp is
 * named as every temp file of ours (`.<name>.<pid>.<8 hex>.tmp`, which
 * doctor --fix clears once its process is dead), the hex from the clock:
 * node:crypto would cost a hook process about 6 ms to load. A name still
 * taken (a dead process of the same pid) is replaced. Not fsynced: for
 * records worth a notice at most, and for answers to a commit that already is.
 */
export function writeUnsynced(port: FsPort, target: string, text: string): void {
  const stamp = (Date.now() >>> 0).toString(16).padStart(8, '0');
  const temp = join(dirname(target), `.${basename(target).replace(/\.json$/, '')}.${process.pid}.${stamp}.tmp`);
  let fd: number;
  try {
    fd = openOwnFile(port, temp, 'create');
  } catch (err) {
    if (errnoOf(err) !== 'EEXIST') throw err;
    unlinkQuietly(port, temp);
    fd = openOwnFile(port, temp, 'create');
  }
  try {
    writeAll(port, fd, Buffer.from(text, 'utf8'));
  } finally {
    port.closeSync(fd);
  }
  try {
    port.renameSync(temp, target);
  } catch (err) {
    unlinkQuietly(port, temp);
    throw err;
  }
}

/**
 * Reads the record of one shell call, with the time the file system stamped
 * on its write (mtime, ms); undefined when there is none.
 */
export function readShellRecord(projectDir: string, key: string, port: FsPort = NODE_FS): { text: string; writtenAtMs: number } | undefined {
  if (!SHELL_KEY.test(key)) return undefined;
  const path = join(sideDir(projectDir, 'shell'), `${key}.json`);
  let bytes: Buffer | undefined;
  let stat: ReturnType<FsPort['lstatIfExists']>;
  try {
    stat = port.lstatIfExists(path);
    bytes = stat?.isFile() ? tryReadFile(port, path) : undefined;
  } catch (err) {
    if (errnoOf(err) === 'ENOTDIR') return undefined;
    throw err;
  }
  if (bytes === undefined || stat === undefined) return undefined;
  return { text: bytes.toString('utf8'), writtenAtMs: stat.mtimeMs };
}

/** Whether the shell call `key` has a record (a look, not a read). */
export function hasShellRecord(projectDir: string, key: string, port: FsPort = NODE_FS): boolean {
  if (!SHELL_KEY.test(key)) return false;
  try {
    return port.lstatIfExists(join(sideDir(projectDir, 'shell'), `${key}.json`)) !== undefined;
  } catch {
    return false;
  }
}

/** Removes the record of one shell call, once it has been judged. */
export function removeShellRecord(projectDir: string, key: string, port: FsPort = NODE_FS): void {
  if (!SHELL_KEY.test(key)) return;
  const dir = sideDir(projectDir, 'shell');
  if (checkOwnDir(port, dir, false)) unlinkQuietly(port, join(dir, `${key}.json`));
}

function removeOldRecords(port: FsPort, dir: string, now: number): void {
  let names: string[];
  try {
    names = port.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    const stat = port.lstatIfExists(path);
    if (stat?.isFile() && now - stat.mtimeMs > SHELL_RECORD_MAX_AGE_MS) unlinkQuietly(port, path);
  }
}
