// What a git command throws away in the work tree, as the shell check reads
// it: the paths it names are judged as written files, and the folders it
// resets are checked for held files with changes (docs/internals.md, "The pre-tool check").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shellTargets } from '../../src/hooks/shell-parse';

const CASES: Array<[string, string[], string[]]> = [
  // command, files it names, folders it resets ('/' is the whole work tree)
  ['git checkout -- src/a.ts', ['/p/src/a.ts'], ['/p/src/a.ts']],
  ['git checkout HEAD~2 -- src/a.ts b.ts', ['/p/src/a.ts', '/p/b.ts'], ['/p/src/a.ts', '/p/b.ts']],
  ['git checkout src/a.ts', ['/p/src/a.ts'], ['/p/src/a.ts']],
  ['git checkout .', ['/p'], ['/p']],
  ['cd src && git checkout .', ['/p/src'], ['/p/src']],
  ['git -C src checkout -- a.ts', ['/p/src/a.ts'], ['/p/src/a.ts']],
  ['git -c core.x=y --no-pager checkout -- a.ts', ['/p/a.ts'], ['/p/a.ts']],
  ['git checkout -b feature', [], []],
  ['git checkout -f', [], ['/']],
  ['git checkout -- :/', [], ['/']],
  ['git checkout --pathspec-from-file=list.txt', [], ['/']],
  ['git restore src/a.ts', ['/p/src/a.ts'], ['/p/src/a.ts']],
  ['git restore --source=HEAD~1 -W .', ['/p'], ['/p']],
  ['git restore --staged src/a.ts', [], []],
  ['git restore -SW src/a.ts', ['/p/src/a.ts'], ['/p/src/a.ts']],
  ['git reset --hard', [], ['/']],
  ['git reset --hard HEAD~3', [], ['/']],
  ['git reset HEAD src/a.ts', [], []],
  ['git switch -f main', [], ['/']],
  ['git switch --discard-changes main', [], ['/']],
  ['git switch main', [], []],
  ['git stash', [], ['/']],
  ['git stash -u', [], ['/']],
  ['git stash push -m wip -- src/a.ts', ['/p/src/a.ts'], ['/p/src/a.ts']],
  ['git stash list', [], []],
  ['sudo git reset --hard', [], ['/']],
  ['git status && git diff src/a.ts', [], []],
  ['git commit -am msg', [], []],
];

for (const [command, files, trees] of CASES) {
  test(`the shell check reads \`${command}\` as naming ${files.length === 0 ? 'no file' : files.join(', ')} and resetting ${trees.length === 0 ? 'nothing' : trees.join(', ')}`, () => {
    assert.deepEqual(shellTargets(command, '/p'), { files, trees });
  });
}
