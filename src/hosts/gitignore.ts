// The lines install adds to a git repository's .gitignore: the state under
// .opencomms/ stays out of git, the vendored server copy (and the package.json
// that keeps it CommonJS) stays in, so a teammate who clones has what the
// committed host configs start. The lines go at the end, after one line
// break, so uninstall can take out exactly what was added and give the file
// back byte for byte; nothing else in the file is touched.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { STATE_DIR_NAME } from '../store';
import { BUNDLE_NAME } from './bundle';
import { readUserFile, type UserFile } from './user-file';

export const GITIGNORE_LINES = [
  '# OpenComms: keep the local state out of git, commit the server copy',
  `${STATE_DIR_NAME}/*`,
  `!${STATE_DIR_NAME}/${BUNDLE_NAME}`,
  `!${STATE_DIR_NAME}/package.json`,
] as const;

/** What install or uninstall would do to .gitignore. */
export interface GitignorePlan {
  file: UserFile;
  path: string;
  /** The new text; undefined to delete the file (nothing of the user's was in it). */
  after: string | undefined;
}

/** Whether the project folder is a git repository (or a worktree or submodule of one): it holds `.git`, a folder or a file. */
export function isGitRepository(projectDir: string): boolean {
  return lstatSync(join(projectDir, '.git'), { throwIfNoEntry: false }) !== undefined;
}

function blockOf(nl: string): string {
  return GITIGNORE_LINES.join(nl) + nl;
}

/** Where our lines start in `text` (at the start of a line), or -1. */
function findIgnoreBlock(text: string): { at: number; length: number } | undefined {
  for (const block of [blockOf('\n'), blockOf('\r\n')]) {
    for (const candidate of [block, block.replace(/\r?\n$/, '')]) {
      let at = text.indexOf(candidate);
      while (at !== -1) {
        const isLineStart = at === 0 || text[at - 1] === '\n';
        const isLineEnd = candidate === block || at + candidate.length === text.length;
        if (isLineStart && isLineEnd) return { at, length: candidate.length };
        at = text.indexOf(candidate, at + 1);
      }
    }
  }
  return undefined;
}

/** A line that ignores all of .opencomms/, under which git cannot take the server copy back in. */
function ignoresAllOfState(text: string): boolean {
  return text.split(/\r?\n/).some((line) => ['', '/'].some((lead) => ['', '/'].some((tail) => line.trim() === `${lead}${STATE_DIR_NAME}${tail}`)));
}

export type GitignoreInstall =
  | { kind: 'none' }
  | { kind: 'write'; plan: GitignorePlan }
  | { kind: 'blocked'; path: string };

/** What install does to .gitignore: nothing outside a git repository or when our lines are there. */
export function planGitignoreInstall(projectDir: string): GitignoreInstall {
  if (!isGitRepository(projectDir)) return { kind: 'none' };
  const path = join(projectDir, '.gitignore');
  const file = readUserFile(projectDir, path);
  const text = file.text ?? '';
  if (findIgnoreBlock(text)) return { kind: 'none' };
  if (ignoresAllOfState(text)) return { kind: 'blocked', path };
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  // One line break before our lines: it ends a last line that had none, or leaves a blank line after one that had.
  return { kind: 'write', plan: { file, path, after: text === '' ? blockOf(nl) : text + nl + blockOf(nl) } };
}

/**
 * What uninstall does to .gitignore: takes our lines out with the one line
 * break install put before them; the file goes when nothing else is left in
 * it, unless it is a link (kept, as host configs are).
 */
export function planGitignoreUninstall(projectDir: string): GitignorePlan | undefined {
  const path = join(projectDir, '.gitignore');
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  const file = readUserFile(projectDir, path);
  const text = file.text ?? '';
  const found = findIgnoreBlock(text);
  if (!found) return undefined;
  const breakBefore = found.at >= 2 && text.slice(found.at - 2, found.at) === '\r\n' ? 2 : found.at >= 1 ? 1 : 0;
  const after = text.slice(0, found.at - breakBefore) + text.slice(found.at + found.length);
  return { file, path, after: after === '' && file.through === undefined ? undefined : after };
}
