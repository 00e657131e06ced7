// What a git command throws away in the work tree (docs/internals.md "The pre-tool check", Git):
// the files it names (`git checkout [ref] -- p…`, `git restore p…`,
// `git stash push -- p…`) and the folders whose tracked files it resets to
// another version (`git checkout .`, `git restore src`, and the whole work
// tree for `git reset --hard`, `git checkout -f`, `git switch -f`,
// `git stash`). Read from the words of one command, as shell-parse.ts splits
// them; nothing here touches the disk. A named path is judged like any
// written file; a folder is judged by whether a held file in it has changes
// to lose (reset-check.ts).
import { isAbsolute, join } from 'node:path';

/** A folder that holds every folder: the whole work tree, wherever the repository's root is. */
export const WHOLE_WORK_TREE = '/';

export interface GitResets {
  /** The pathspecs the command names, relative to its folder (after any `-C`). */
  paths: string[];
  /** Folders whose tracked files it resets, relative to its folder, or WHOLE_WORK_TREE. */
  trees: string[];
}

const NO_RESETS: GitResets = { paths: [], trees: [] };
// git's own options that take the next word.
const GLOBAL_WITH_ARG = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env']);
const CHECKOUT_WITH_ARG = new Set(['-b', '-B', '--orphan', '--conflict', '--pathspec-from-file']);
const RESTORE_WITH_ARG = new Set(['-s', '--source', '--conflict', '--pathspec-from-file']);
const STASH_WITH_ARG = new Set(['-m', '--message', '--pathspec-from-file']);

/** The options and operands of a subcommand's words, split at `--` (an option's argument is neither). */
function splitWords(args: readonly string[], withArg: ReadonlySet<string>): { options: string[]; operands: string[]; afterDashes: string[] | undefined } {
  const options: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') return { options, operands, afterDashes: args.slice(i + 1) };
    if (arg.startsWith('-') && arg !== '-') {
      options.push(arg);
      if (withArg.has(arg)) i += 1;
      continue;
    }
    operands.push(arg);
  }
  return { options, operands, afterDashes: undefined };
}

/** Whether `options` hold a long option or, in a cluster of short ones, a letter. */
function hasOption(options: readonly string[], long: readonly string[], letter?: string): boolean {
  return options.some((o) => long.some((l) => o === l || o.startsWith(`${l}=`))
    || (letter !== undefined && /^-[A-Za-z]+$/.test(o) && o.includes(letter)));
}

// Pathspecs as folders too: each may be a folder (`.`, `src`), whose held
// files lose their changes. A pathspec with magic (`:/`, `:(top)…`) or read
// from a file is taken as the whole work tree.
function resetsOf(pathspecs: readonly string[], fromFile: boolean): GitResets {
  const paths = pathspecs.filter((p) => !p.startsWith(':'));
  const trees = fromFile || paths.length < pathspecs.length ? [...paths, WHOLE_WORK_TREE] : [...paths];
  return { paths, trees };
}

function checkoutResets(args: readonly string[]): GitResets {
  const { options, operands, afterDashes } = splitWords(args, CHECKOUT_WITH_ARG);
  const fromFile = hasOption(options, ['--pathspec-from-file']);
  const isForced = hasOption(options, ['--force'], 'f');
  // With `--`, what follows are pathspecs and what precedes is the source. Without it, git takes
  // each operand as a ref or a path: every operand is judged as a path (a branch named like a
  // held file is refused too).
  const pathspecs = afterDashes ?? (hasOption(options, ['-b', '-B', '--orphan']) ? [] : operands);
  if (pathspecs.length === 0 && !fromFile) return isForced ? { paths: [], trees: [WHOLE_WORK_TREE] } : NO_RESETS;
  return resetsOf(pathspecs, fromFile);
}

function restoreResets(args: readonly string[]): GitResets {
  const { options, operands, afterDashes } = splitWords(args, RESTORE_WITH_ARG);
  // `--staged` alone restores the index only; the work tree is untouched.
  const isIndexOnly = hasOption(options, ['--staged'], 'S') && !hasOption(options, ['--worktree'], 'W');
  if (isIndexOnly) return NO_RESETS;
  return resetsOf([...operands, ...(afterDashes ?? [])], hasOption(options, ['--pathspec-from-file']));
}

function stashResets(args: readonly string[]): GitResets {
  const sub = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : 'push';
  if (sub !== 'push' && sub !== 'save') return NO_RESETS;
  const { options, afterDashes, operands } = splitWords(sub === args[0] ? args.slice(1) : args, STASH_WITH_ARG);
  const pathspecs = sub === 'push' ? [...operands, ...(afterDashes ?? [])] : [];
  if (pathspecs.length === 0 && !hasOption(options, ['--pathspec-from-file'])) return { paths: [], trees: [WHOLE_WORK_TREE] };
  return resetsOf(pathspecs, hasOption(options, ['--pathspec-from-file']));
}

/** What `git ARGS…` (its words after `git`) resets in the work tree; nothing for every other git command. */
export function gitResets(args: readonly string[]): GitResets {
  let dir = '';
  let i = 0;
  for (; i < args.length && args[i]!.startsWith('-'); i += 1) {
    const arg = args[i]!;
    if (arg === '-C' && args[i + 1] !== undefined) dir = join(dir, args[i + 1]!);
    if (GLOBAL_WITH_ARG.has(arg)) i += 1;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  let resets: GitResets;
  if (sub === 'checkout') resets = checkoutResets(rest);
  else if (sub === 'restore') resets = restoreResets(rest);
  else if (sub === 'reset') resets = hasOption(rest, ['--hard']) ? { paths: [], trees: [WHOLE_WORK_TREE] } : NO_RESETS;
  else if (sub === 'switch') resets = hasOption(rest, ['--force', '--discard-changes'], 'f') ? { paths: [], trees: [WHOLE_WORK_TREE] } : NO_RESETS;
  else if (sub === 'stash') resets = stashResets(rest);
  else return NO_RESETS;
  if (dir === '') return resets;
  const place = (p: string): string => (isAbsolute(p) ? p : join(dir, p));
  return { paths: resets.paths.map(place), trees: resets.trees.map(place) };
}
