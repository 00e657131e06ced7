// Host config files (and the OpenCode plugin copy in .opencode/) are the
// user's own files in the project. A config that is a link is written
// through: its target is replaced atomically in its own folder and the link
// kept, so a dotfile manager's link is not silently turned into a stale copy.
// That happens only when the target is an existing file inside the project: a
// dangling link, a link leading out of the project, or a folder on the way that
// does, is refused before anything is written. The file's mode is kept.
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve as resolvePath, sep } from 'node:path';
import { NODE_FS } from '../files/fs-port';
import { replaceUserFile } from '../files/replace-file';
import { describePath, InstallFailure } from './install-common';

/** Where one of the user's files in the project really is, and what it holds. */
export interface UserFile {
  /** The path as the host names it. */
  path: string;
  /** Where the bytes are written: `path`, or the file a link at `path` leads to. */
  realPath: string;
  /** For a link: its target, relative to the project, for the output. */
  through?: string;
  /** The text now, or undefined when there is no file. */
  text?: string;
  /** The mode to keep, or undefined for a new file. */
  mode?: number;
}

const NOTHING_CHANGED = 'Nothing was changed.';

/** Resolves and reads `path`; throws InstallFailure (nothing written yet) when it must not be written. */
export function readUserFile(projectDir: string, path: string): UserFile {
  const project = realpathOf(projectDir) ?? resolvePath(projectDir);
  const shown = describePath(projectDir, path);
  const stat = lstatOf(path);
  if (stat?.isSymbolicLink()) {
    const target = realpathOf(path);
    if (target === undefined) {
      throw new InstallFailure(`${shown} is a link to ${readlinkSync(path)}, which does not exist; install does not create files through a link: create that file (\`{}\` will do for JSON) or replace the link with a file, then run again. ${NOTHING_CHANGED}`, 1);
    }
    if (!isInside(project, target)) {
      throw new InstallFailure(`${shown} is a link to ${target}, outside the project; install writes only inside the project: replace the link with a copy of that file, or add the entry by hand (\`--dry-run\` prints it). ${NOTHING_CHANGED}`, 1);
    }
    if (!statSync(target).isFile()) throw new InstallFailure(`${shown} is a link to ${target}, which is not a file; point it at a file or remove it, then run again. ${NOTHING_CHANGED}`, 1);
    return { path, realPath: target, through: relative(project, target), ...readLinkedText(path, target) };
  }
  if (stat !== undefined && !stat.isFile()) {
    throw new InstallFailure(`${shown} is not a file; move it away, then run again. ${NOTHING_CHANGED}`, 1);
  }
  // The file itself, or the folder that will hold it, may still sit behind a linked folder.
  const real = stat !== undefined ? realpathOf(path) : realpathOf(nearestExisting(dirname(path)));
  if (real !== undefined && !isInside(project, real)) {
    throw new InstallFailure(`${shown} would be written under ${real}, outside the project, because a folder on its way is a link; install writes only inside the project: replace that link with a folder, or add the entry by hand (\`--dry-run\` prints it). ${NOTHING_CHANGED}`, 1);
  }
  return stat === undefined ? { path, realPath: path } : { path, realPath: path, ...readLinkedText(path, path) };
}

/** Writes `text` where `file` really is, keeping its mode (a new file gets 0644, less the umask). */
export function writeUserFile(file: UserFile, text: string | Uint8Array): void {
  replaceUserFile(NODE_FS, file.realPath, text, file.mode);
}

/** " through the link to <target>" for a link written through, else "". */
export function throughNote(file: UserFile): string {
  return file.through === undefined ? '' : ` through the link to ${file.through}`;
}

function readLinkedText(path: string, real: string): { text: string; mode: number } {
  try {
    return { text: readFileSync(real, 'utf8'), mode: statSync(real).mode & 0o7777 };
  } catch (err) {
    throw new InstallFailure(`Cannot read ${path} (${(err as Error).message}); fix its permissions and run again. ${NOTHING_CHANGED}`, 1);
  }
}

function isInside(project: string, real: string): boolean {
  const rel = relative(project, real);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function lstatOf(path: string): ReturnType<typeof lstatSync> | undefined {
  return lstatSync(path, { throwIfNoEntry: false });
}

function realpathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function nearestExisting(dir: string): string {
  let at = dir;
  while (lstatOf(at) === undefined && dirname(at) !== at) at = dirname(at);
  return at;
}
