// Which commit the bundle is built from, for the header of dist/opencomms.js
// and `opencomms --version`.
//
// A committed file cannot name the commit that adds it, so the bundle names
// the last commit that changed what the build reads (SOURCE_INPUTS), never
// HEAD: dist/ committed after that commit names it, and a clean clone of any
// later commit that leaves the sources alone rebuilds the same bytes. The
// price is an order of work: commit the sources, then build and commit dist/.
// A build from sources with uncommitted changes says so instead of naming a
// commit, and scripts/check-dist.mjs refuses such a bundle once they are
// committed.
//
//   node scripts/source-commit.mjs [dir]   prints the commit (or `uncommitted`, `unknown`)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Everything scripts/build.mjs reads: a change to any of them changes the bundle. */
export const SOURCE_INPUTS = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build.mjs', 'scripts/source-commit.mjs'];

/** Named in place of a commit when the sources have changes that no commit holds. */
export const UNCOMMITTED = 'uncommitted';
/** Named in place of a commit outside git, or where a shallow clone hides it. */
export const UNKNOWN = 'unknown';

/** `{ commit, why, shallow? }`: a full commit id, or UNCOMMITTED / UNKNOWN with the reason (`shallow` when a shallow clone hides it). */
export function sourceCommit(dir) {
  const git = (...args) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 }).trim();
  try {
    if (git('rev-parse', '--is-inside-work-tree') !== 'true') return { commit: UNKNOWN, why: 'not a git work tree' };
  } catch {
    return { commit: UNKNOWN, why: 'not a git work tree (or git is missing)' };
  }
  const dirty = git('status', '--porcelain', '--untracked-files=all', '--', ...SOURCE_INPUTS);
  if (dirty !== '') return { commit: UNCOMMITTED, why: `${dirty.split('\n').length} source file(s) with uncommitted changes (git status -- ${SOURCE_INPUTS.join(' ')})` };
  let commit = '';
  try {
    commit = git('log', '-1', '--format=%H', '--', ...SOURCE_INPUTS);
  } catch {
    return { commit: UNKNOWN, why: 'the repository has no commits yet' };
  }
  if (!/^[0-9a-f]{40,64}$/.test(commit)) return { commit: UNKNOWN, why: 'no commit holds the sources' };
  // In a shallow clone the oldest commit present looks as if it added every
  // file; the change that really made the sources may lie beyond it.
  const shallowFile = git('rev-parse', '--git-path', 'shallow');
  const shallowPath = isAbsolute(shallowFile) ? shallowFile : join(dir, shallowFile);
  if (existsSync(shallowPath) && readFileSync(shallowPath, 'utf8').split('\n').includes(commit)) {
    return { commit: UNKNOWN, shallow: true, why: 'a shallow clone: the change that made the sources is not in the fetched history (git fetch --unshallow)' };
  }
  return { commit, why: 'the last commit that changed the sources' };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const dir = process.argv[2] ?? join(fileURLToPath(new URL('.', import.meta.url)), '..');
  console.log(sourceCommit(dir).commit);
}
