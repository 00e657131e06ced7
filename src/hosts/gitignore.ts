// The lines install adds to a git repository's .gitignore: the state under
// .opencomms/ stays out of git, the vendored server copy (and the package.json
// that keeps it CommonJS) stays in, so a teammate who clones has what the
// committed host configs start. The lines go at the end, after one line
// break, so uninstall can take out exactly what was added and give the file
// back byte for byte; nothing else in the file is touched. Claude Code's
// local settings get a block of their own, which goes with claude-code alone.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { STATE_DIR_NAME } from '../local/state-dir';
import { BUNDLE_NAME } from './bundle';
import { readUserFile, type UserFile } from './user-file';

export const GITIGNORE_LINES = [
  '# OpenComms: keep the local state out of git, commit the server copy',
  `${STATE_DIR_NAME}/*`,
  `!${STATE_DIR_NAME}/${BUNDLE_NAME}`,
  `!${STATE_DIR_NAME}/package.json`,
] as const;

/** Claude Code reads .claude/settings.local.json for the one person whose grants install wrote there: never a teammate's. */
export const CLAUDE_GITIGNORE_LINES = [
  '# OpenComms: Claude Code\'s local settings hold your own grants',
  '.claude/settings.local.json',
] as const;

type IgnoreBlock = readonly string[];

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

function blockOf(lines: IgnoreBlock, nl: string): string {
  return lines.join(nl) + nl;
}

/** Where the block's lines start in `text` (at the start of a line), or undefined. */
function findIgnoreBlock(text: string, lines: IgnoreBlock): { at: number; length: number } | undefined {
  for (const block of [blockOf(lines, '\n'), blockOf(lines, '\r\n')]) {
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

/** What install does to .gitignore: the lines to add (none outside a git repository), and the path when all of .opencomms/ is ignored. */
export interface GitignoreInstall {
  plan?: GitignorePlan;
  blockedPath?: string;
}

/** What install does to .gitignore for `host`: adds each of its blocks that is not there yet. */
export function planGitignoreInstall(projectDir: string, host: string): GitignoreInstall {
  if (!isGitRepository(projectDir)) return {};
  const path = join(projectDir, '.gitignore');
  const file = readUserFile(projectDir, path);
  const original = file.text ?? '';
  const nl = original.includes('\r\n') ? '\r\n' : '\n';
  const isBlocked = !findIgnoreBlock(original, GITIGNORE_LINES) && ignoresAllOfState(original);
  if (isBlocked) return { blockedPath: path }; // the user keeps this file's OpenComms lines by hand
  let text = original;
  for (const lines of [GITIGNORE_LINES, ...(host === 'claude-code' ? [CLAUDE_GITIGNORE_LINES] : [])]) {
    // One line break before a block: it ends a last line that had none, or leaves a blank line after one that had.
    if (!findIgnoreBlock(text, lines)) text = text === '' ? blockOf(lines, nl) : text + nl + blockOf(lines, nl);
  }
  return text === original ? {} : { plan: { file, path, after: text } };
}

/**
 * What uninstall does to .gitignore: takes each of the blocks out with the
 * one line break install put before it; the file goes when nothing else is
 * left in it, unless it is a link (kept, as host configs are).
 */
export function planGitignoreUninstall(projectDir: string, blocks: readonly IgnoreBlock[]): GitignorePlan | undefined {
  const path = join(projectDir, '.gitignore');
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  const file = readUserFile(projectDir, path);
  const original = file.text ?? '';
  let text = original;
  for (const lines of blocks) {
    const found = findIgnoreBlock(text, lines);
    if (!found) continue;
    const breakBefore = found.at >= 2 && text.slice(found.at - 2, found.at) === '\r\n' ? 2 : found.at >= 1 ? 1 : 0;
    text = text.slice(0, found.at - breakBefore) + text.slice(found.at + found.length);
  }
  if (text === original) return undefined;
  return { file, path, after: text === '' && file.through === undefined ? undefined : text };
}

/** Whether .gitignore holds the block every host needs. */
export function hasStateIgnoreBlock(projectDir: string): boolean {
  const path = join(projectDir, '.gitignore');
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return false;
  return findIgnoreBlock(readUserFile(projectDir, path).text ?? '', GITIGNORE_LINES) !== undefined;
}
