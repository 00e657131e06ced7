// Checks of a project's .opencomms folder, which every store keeps (pins and
// local files live there even when the state is on a server): what
// OpenComms would refuse under it, and modes wider than the owner's.
import { lstatSync, readdirSync, readlinkSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Check } from './check';
import { NODE_FS } from '../files/fs-port';
import { isOwnedByUs, isShared, kindOf, narrowEntry } from '../files/own-files';
import { STATE_DIR_NAME } from '../local/state-dir';

/** An entry's lstat, or undefined when nothing is there. */
export function lstatOrNone(path: string): Stats | undefined {
  return lstatSync(path, { throwIfNoEntry: false });
}

/** One entry under .opencomms/, found without following links. */
interface Entry {
  /** Shown as `.opencomms/<rel>`. */
  shown: string;
  path: string;
  rel: string;
  stat: Stats;
}

// Deep enough for .opencomms/claude-plugin/<folder>/<file>, the deepest we make.
const WALK_DEPTH = 3;
/** Folders OpenComms keeps under .opencomms/, and those of them that hold only files. */
const OWN_FOLDERS = new Set(['history', 'pins', 'archives', 'claude-plugin', 'edits', 'shell', 'turns']);
const FILE_FOLDERS = new Set(['history', 'pins', 'archives', 'edits', 'shell', 'turns']);

function walkStateDir(projectDir: string): Entry[] {
  const root = join(projectDir, STATE_DIR_NAME);
  const entries: Entry[] = [];
  const visit = (path: string, rel: string, depth: number): void => {
    const stat = lstatOrNone(path);
    if (stat === undefined) return;
    entries.push({ shown: rel === '' ? STATE_DIR_NAME : join(STATE_DIR_NAME, rel), path, rel, stat });
    if (!stat.isDirectory() || depth >= WALK_DEPTH) return;
    for (const name of readdirSync(path).sort()) visit(join(path, name), rel === '' ? name : join(rel, name), depth + 1);
  };
  visit(root, '', 0);
  return entries;
}

// What OpenComms would refuse about an entry (see fs-port), or undefined.
function entryProblem(entry: Entry): string | undefined {
  const { stat, rel } = entry;
  if (stat.isSymbolicLink()) return `${entry.shown} is a link to ${readlinkSync(entry.path)}`;
  if ((rel === '' || OWN_FOLDERS.has(rel)) && !stat.isDirectory()) return `${entry.shown} is ${kindOf(stat)} where a folder belongs`;
  if (FILE_FOLDERS.has(dirname(rel)) && !stat.isFile()) return `${entry.shown} is ${kindOf(stat)} where a file belongs`;
  if (!stat.isFile() && !stat.isDirectory()) return `${entry.shown} is ${kindOf(stat)}`;
  if (!isOwnedByUs(stat)) return `${entry.shown} belongs to another user (uid ${stat.uid})`;
  return undefined;
}

export function checkEntries(projectDir: string): Check {
  // state.json has its own check above.
  const problems = walkStateDir(projectDir).filter((e) => e.rel !== 'state.json').map(entryProblem).filter((p) => p !== undefined);
  if (problems.length === 0) return { name: 'entries', status: 'ok', message: 'no links, misplaced or foreign entries under .opencomms' };
  return {
    name: 'entries',
    status: 'fail',
    message: `OpenComms refuses these (it never follows a link under .opencomms, and uses only its own files): ${problems.join('; ')}. ` +
      'Find out how they got there, then remove or move them; doctor leaves them alone.',
  };
}

export function checkModes(projectDir: string, fix: boolean): Check {
  if (process.platform === 'win32') return { name: 'modes', status: 'ok', message: 'not checked on Windows' };
  const entries = walkStateDir(projectDir);
  if (entries.length === 0) return { name: 'modes', status: 'ok', message: 'no .opencomms folder yet' };
  const wide = entries.filter((e) => (e.stat.isFile() || e.stat.isDirectory()) && isOwnedByUs(e.stat) && isShared(e.stat));
  if (wide.length === 0) return { name: 'modes', status: 'ok', message: 'folders and files under .opencomms are private to you' };
  const list = wide.slice(0, 5).map((e) => `${e.shown} ${(e.stat.mode & 0o777).toString(8)}`).join(', ') + (wide.length > 5 ? ', …' : '');
  const what = `${wide.length} folder(s) or file(s) under .opencomms that other users can read or enter (${list})`;
  if (!fix) return { name: 'modes', status: 'warn', message: `${what}; run doctor --fix to make folders 0700 and files 0600` };
  const left = wide.filter((e) => !narrowEntry(NODE_FS, e.path));
  if (left.length > 0) return { name: 'modes', status: 'warn', message: `${what}; could not narrow ${left.map((e) => e.shown).join(', ')}: chmod go-rwx them` };
  return { name: 'modes', status: 'ok', message: `narrowed ${what}`, fixed: true };
}
