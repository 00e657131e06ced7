// Files and folders under .opencomms/ (PROTOCOL 4.1). A repository can ship
// any .opencomms/ tree, links included, and other users of the machine must
// not read the mail. So every file OpenComms opens there is opened without
// following a link and checked on its descriptor to be a regular file of
// ours; every folder is checked (lstat) to be a real folder of ours; anything
// else is refused with state_unwritable, naming the path and the fix. What
// OpenComms creates is private whatever the umask (which can only narrow the
// modes asked for), and wider modes found on a write are narrowed.
// Residual risk: the folder checks and the open are separate calls, so a
// process of the same user swapping a folder for a link in between could still
// redirect one write; a repository, which is static, cannot.
import { constants, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import { StoreFault } from './faults';
import { DIR_MODE, errnoOf, FILE_MODE, type FsPort } from './fs-port';

const IS_POSIX = process.platform !== 'win32';
/** Group and other permission bits: none of them belongs on anything under .opencomms/. */
const SHARED_BITS = 0o077;
const C = constants;
// Windows has none of these: an lstat before the open stands in for O_NOFOLLOW there.
const O_NOFOLLOW = C.O_NOFOLLOW ?? 0;
// A FIFO opened for reading would block until a writer came; non-blocking, the open returns and fstat refuses it.
const O_NONBLOCK = C.O_NONBLOCK ?? 0;
const O_DIRECTORY = C.O_DIRECTORY ?? 0;
const OPEN_FLAGS = {
  read: C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
  append: C.O_RDWR | C.O_APPEND | C.O_CREAT | O_NOFOLLOW | O_NONBLOCK,
  create: C.O_WRONLY | C.O_CREAT | C.O_EXCL | O_NOFOLLOW,
} as const;
// Narrowing walks at most this deep: .opencomms/claude-plugin/<folder>/<file> is the deepest we make.
const NARROW_DEPTH = 4;

/**
 * How a file under .opencomms/ is opened: `read`; `append` (read-write at the
 * end, created when absent); `create` (a new file, EEXIST when the name is
 * taken by anything, a dangling link included).
 */
export type OwnFileUse = keyof typeof OPEN_FLAGS;

/**
 * Opens a file under .opencomms/ without following a link (O_NOFOLLOW; an
 * lstat first where the platform lacks it). An existing file must be a regular
 * file owned by this user, and for `append` have a single name (no hard link
 * to a file elsewhere); its group and other bits are then dropped. A created
 * file gets `mode` (FILE_MODE by default). Refusals are `state_unwritable`
 * StoreFaults naming the path and the fix; errno errors (ENOENT, EEXIST, …)
 * are thrown as they are.
 */
export function openOwnFile(port: FsPort, path: string, use: OwnFileUse, mode: number = FILE_MODE): number {
  // O_EXCL made a fresh regular file of ours with `mode`: nothing to check on it.
  return use === 'create' ? openNoFollow(port, path, use, mode) : openChecked(port, path, use, mode).fd;
}

/** Opens a file under .opencomms/ for reading (checked as openOwnFile does), with its size; undefined when it does not exist. */
export function openOwnForRead(port: FsPort, path: string): { fd: number; size: number } | undefined {
  try {
    const { fd, stat } = openChecked(port, path, 'read', FILE_MODE);
    return { fd, size: stat.size };
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return undefined;
    throw err;
  }
}

function openNoFollow(port: FsPort, path: string, use: OwnFileUse, mode: number): number {
  if (O_NOFOLLOW === 0) refuseIfLink(port, path);
  let fd: number;
  try {
    fd = port.openSync(path, OPEN_FLAGS[use], mode);
  } catch (err) {
    throw linkRefusalOf(port, path, err) ?? err;
  }
  return fd;
}

function openChecked(port: FsPort, path: string, use: 'read' | 'append', mode: number): { fd: number; stat: Stats } {
  const fd = openNoFollow(port, path, use, mode);
  try {
    const stat = port.fstatSync(fd);
    checkOwnFile(stat, path, use === 'append');
    if (use === 'append' && IS_POSIX && (stat.mode & SHARED_BITS) !== 0) port.fchmodSync(fd, stat.mode & 0o700);
    return { fd, stat };
  } catch (err) {
    closeQuietly(port, fd);
    throw err;
  }
}

/**
 * Checks that `dir` under .opencomms/ is a real folder (not a link) owned by
 * this user; false when it does not exist. With `narrow` (callers about to
 * write), a folder other users may enter is narrowed to DIR_MODE, together
 * with everything in it: a tree left wide by an older version is closed by
 * its first write.
 */
export function checkOwnDir(port: FsPort, dir: string, narrow: boolean): boolean {
  const stat = port.lstatIfExists(dir);
  if (stat === undefined) return false;
  if (stat.isSymbolicLink()) throw refusalFor(dir, `is a symbolic link where OpenComms keeps a folder. ${LINK_FIX}`);
  if (!stat.isDirectory()) {
    throw refusalFor(dir, `is ${kindOf(stat)} where OpenComms keeps a folder; OpenComms will not replace or delete it: move it out of .opencomms/, then try again`);
  }
  checkOwner(stat, dir);
  if (narrow && IS_POSIX && (stat.mode & SHARED_BITS) !== 0) narrowTree(port, dir, 0);
  return true;
}

/**
 * Makes `dir` a private folder (DIR_MODE, missing parents too) unless a folder
 * of ours is there already, which is checked and narrowed (checkOwnDir).
 * Returns the first folder it made, as mkdir does, or undefined.
 */
export function ensureOwnDir(port: FsPort, dir: string): string | undefined {
  if (checkOwnDir(port, dir, true)) return undefined;
  const made = port.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  // Absent a moment ago, so anything there now was made meanwhile: check it like any other.
  if (made === undefined) checkOwnDir(port, dir, true);
  return made;
}

/** Whether the entry belongs to the user OpenComms runs as (always true where there are no uids). */
export function isOwnedByUs(stat: Stats): boolean {
  return UID === undefined || stat.uid === UID;
}

/** Whether other users may read or enter the entry (never on Windows, where modes mean nothing here). */
export function isShared(stat: Stats): boolean {
  return IS_POSIX && (stat.mode & SHARED_BITS) !== 0;
}

/** Drops the group and other bits of one entry without following a link; false when it is not a file or folder of ours. */
export function narrowEntry(port: FsPort, path: string): boolean {
  let fd: number;
  try {
    fd = port.openSync(path, C.O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
  } catch {
    return false; // a link (ELOOP), gone, or not ours to open: left as it is
  }
  try {
    const stat = port.fstatSync(fd);
    if (!(stat.isFile() || stat.isDirectory()) || !isOwnedByUs(stat)) return false;
    if ((stat.mode & SHARED_BITS) !== 0) port.fchmodSync(fd, stat.mode & 0o700);
    return true;
  } finally {
    closeQuietly(port, fd);
  }
}

// The folder first (it alone already shuts other users out), then what is in it.
function narrowTree(port: FsPort, dir: string, depth: number): void {
  const fd = port.openSync(dir, C.O_RDONLY | O_NOFOLLOW | O_DIRECTORY, 0);
  try {
    port.fchmodSync(fd, port.fstatSync(fd).mode & 0o700);
  } finally {
    closeQuietly(port, fd);
  }
  if (depth >= NARROW_DEPTH) return;
  let names: string[];
  try {
    names = port.readdirSync(dir);
  } catch {
    return; // the folder is closed; the entries wait for doctor --fix
  }
  for (const name of names) {
    const path = join(dir, name);
    const stat = port.lstatIfExists(path);
    if (stat === undefined || stat.isSymbolicLink() || !isOwnedByUs(stat)) continue;
    if (stat.isDirectory()) {
      try {
        narrowTree(port, path, depth + 1);
      } catch {
        // best effort below the top folder; doctor reports what is left
      }
    } else if (stat.isFile() && (stat.mode & SHARED_BITS) !== 0) {
      narrowEntry(port, path); // never opens a pipe or device: only what lstat called a file
    }
  }
}

const UID = IS_POSIX && typeof process.getuid === 'function' ? process.getuid() : undefined;

const LINK_FIX = 'OpenComms never follows links under .opencomms/, so it neither reads nor writes through it: remove the link (and find out how it got there), then try again';

function checkOwnFile(stat: Stats, path: string, isWrite: boolean): void {
  if (!stat.isFile()) throw refusalFor(path, misplacedText(stat, 'a file', path));
  checkOwner(stat, path);
  if (isWrite && stat.nlink > 1) {
    throw refusalFor(path, `has ${stat.nlink} names (hard links), so writing it would change a file elsewhere too; OpenComms writes only files with one name: replace it with a copy of itself (cp, then mv over it), then try again`);
  }
}

function checkOwner(stat: Stats, path: string): void {
  if (!isOwnedByUs(stat)) throw refusalFor(path, ownerText(stat.uid));
}

function ownerText(uid: number): string {
  return `belongs to another user (uid ${uid}; OpenComms runs as uid ${UID}), and OpenComms uses only its own files under .opencomms/: if the project is yours, take it back (chown -R), else run OpenComms as the user who owns it`;
}

function misplacedText(stat: Stats, expected: string, path?: string): string {
  const fresh = path !== undefined && basename(path) === 'state.json' ? ' (the next change then starts an empty state)' : '';
  return `is ${kindOf(stat)} where OpenComms keeps ${expected}; OpenComms will not use, replace or delete it: move it out of .opencomms/${fresh}, then try again`;
}

/** What an entry is, as a phrase: "a folder", "a named pipe", … */
export function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFile()) return 'a file';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  return 'a device';
}

function refusalFor(path: string, what: string): StoreFault {
  return new StoreFault('state_unwritable', `${path} ${what}`, undefined, true);
}

function refuseIfLink(port: FsPort, path: string): void {
  if (port.lstatIfExists(path)?.isSymbolicLink()) throw refusalFor(path, `is a symbolic link. ${LINK_FIX}`);
}

// O_NOFOLLOW reports a link as ELOOP (EMLINK on FreeBSD); a loop among the
// folders above gives ELOOP too, so the entry itself is looked at.
function linkRefusalOf(port: FsPort, path: string, err: unknown): StoreFault | undefined {
  const code = errnoOf(err);
  if (code !== 'ELOOP' && code !== 'EMLINK') return undefined;
  try {
    return port.lstatIfExists(path)?.isSymbolicLink() ? refusalFor(path, `is a symbolic link. ${LINK_FIX}`) : undefined;
  } catch {
    return undefined;
  }
}

function closeQuietly(port: FsPort, fd: number): void {
  try {
    port.closeSync(fd);
  } catch {
    // the error in flight is the one worth reporting
  }
}
