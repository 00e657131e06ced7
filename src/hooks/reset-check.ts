// Before a git command that resets folders of the work tree (git-writes.ts):
// would it throw away changes to a file another session holds? Git is asked
// (`git status` on the held files in those folders, nothing else), only
// when others hold files there, and for at most GIT_STATUS_TIMEOUT_MS.
// Without git, or when git fails, the command goes ahead and the hook says
// why on stderr (fail open, PROTOCOL 8.3).
import { lstatSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { patternsHeldByOthers, patternsOverlap, type EditVerdict, type State } from '../engine';
import { isRecordedProcessAlive } from '../process/liveness';
import { realPathOf } from '../files/real-path';
import { judgeEvent } from './pre-tool';

/** How long the hook waits for `git status` before it lets the command go ahead. */
export const GIT_STATUS_TIMEOUT_MS = 2_000;

/** Runs git with `args` in `cwd`: its output, or what went wrong. Tests replace it. */
export type GitRun = (args: readonly string[], cwd: string) => { ok: true; stdout: string } | { ok: false; problem: string };

/** Runs the real git, bounded in time, taking no optional lock (a status may otherwise rewrite the index). */
export const runGit: GitRun = (args, cwd) => {
  // Loaded on use: node:child_process costs every other hook start-up time.
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  const result = spawnSync('git', ['--no-optional-locks', ...args], {
    cwd, encoding: 'utf8', timeout: GIT_STATUS_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true,
  });
  if (result.error) return { ok: false, problem: result.error.message };
  if (result.status !== 0) return { ok: false, problem: `git ${args[0]} ${result.signal ? `was killed by ${result.signal}` : `exited with ${result.status}`}: ${(result.stderr ?? '').trim().slice(0, 200)}` };
  return { ok: true, stdout: result.stdout };
};

/** The held patterns (project-relative) that lie in one of `trees` (absolute folders). */
export function heldInTrees(patterns: readonly string[], trees: readonly string[], projectDir: string): string[] {
  const root = realPathOf(projectDir);
  const isWithinRoot = (path: string): boolean => path === '' || (!path.startsWith('..') && !isAbsolute(path));
  const scopes: string[] = [];
  for (const tree of trees) {
    const real = realPathOf(tree);
    // A folder that holds the project covers all of it; one inside it, what lies under it; any other, nothing.
    if (isWithinRoot(relative(real, root))) return [...patterns];
    const inside = relative(root, real);
    if (isWithinRoot(inside)) scopes.push(`${inside.split('\\').join('/')}/**`);
  }
  return patterns.filter((pattern) => scopes.some((scope) => patternsOverlap(pattern, scope)));
}

/** The repository's root above `dir` (the folder with `.git`), or undefined outside one. */
function repositoryRootOf(dir: string): string | undefined {
  for (let head = dir; ; head = dirname(head)) {
    if (lstatSync(join(head, '.git'), { throwIfNoEntry: false }) !== undefined) return head;
    if (dirname(head) === head) return undefined;
  }
}

/**
 * The files (project-relative) matching `patterns` that have changes git
 * would throw away (staged or not; untracked files are not reset), or the
 * problem that kept git from saying.
 */
export function changedHeldFiles(projectDir: string, patterns: readonly string[], run: GitRun = runGit): { files: string[] } | { problem: string } {
  const root = realPathOf(projectDir);
  const top = repositoryRootOf(root);
  if (top === undefined) return { files: [] };
  const answer = run(['status', '--porcelain=v1', '-z', '--untracked-files=no', '--', ...patterns.map((p) => `:(glob)${p}`)], root);
  if (!answer.ok) return { problem: answer.problem };
  // Porcelain paths are relative to the repository's root, whatever the folder git ran in.
  const prefix = relative(top, root).split('\\').join('/');
  const entries = answer.stdout.split('\0');
  const files: string[] = [];
  for (let i = 0; i < entries.length; i += 1) {
    const entry = entries[i]!;
    if (entry.length < 4) continue;
    // A rename or copy is followed by the path it came from.
    if (/[RC]/.test(entry.slice(0, 2))) i += 1;
    const path = entry.slice(3);
    if (prefix === '') files.push(path);
    else if (path.startsWith(`${prefix}/`)) files.push(path.slice(prefix.length + 1));
  }
  return { files };
}

/**
 * The verdict on a call that writes `files` (repo-relative) and resets
 * `trees` (absolute folders): the files are judged as edits; when none is
 * denied, each held file in a reset folder that has changes to lose is
 * denied as if written. Undefined when the call writes and resets nothing.
 */
export function judgeWritesAndResets(
  state: State, memberId: string | undefined, files: readonly string[], trees: readonly string[], projectDir: string, now: number, warn: (text: string) => void, run: GitRun = runGit,
): EditVerdict | undefined {
  const verdict = files.length === 0 ? undefined : judgeEvent(state, memberId, files, now);
  if (trees.length === 0 || verdict?.kind === 'deny') return verdict;
  const held = heldInTrees(patternsHeldByOthers(state, memberId, now, (proc) => isRecordedProcessAlive(proc)), trees, projectDir);
  if (held.length === 0) return verdict;
  const changed = changedHeldFiles(projectDir, held, run);
  if ('problem' in changed) {
    warn(`opencomms: could not ask git whether held files have changes (${changed.problem}); the git command goes ahead unchecked`);
    return verdict;
  }
  const reset = changed.files.length === 0 ? undefined : judgeEvent(state, memberId, changed.files, now);
  return reset?.kind === 'deny' ? reset : verdict ?? { kind: 'pass', conflicts: [] };
}
