// The pieces of the git reset check (reset-check.ts): which held patterns a
// reset folder covers, and how git's porcelain answer is read back as the
// project's files.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { changedHeldFiles, heldInTrees, type GitRun } from '../../src/hooks/reset-check';
import { tempProject } from './support';

const HELD = ['src/a.ts', 'src/deep/**', 'docs/b.md'];

test('a reset folder covers the held patterns under it; one holding the project covers all; one beside it none', (t) => {
  const project = tempProject(t);
  assert.deepEqual(heldInTrees(HELD, [join(project, 'src')], project), ['src/a.ts', 'src/deep/**']);
  assert.deepEqual(heldInTrees(HELD, [join(project, 'src', 'deep', 'x')], project), ['src/deep/**']);
  assert.deepEqual(heldInTrees(HELD, ['/'], project), HELD);
  assert.deepEqual(heldInTrees(HELD, [project], project), HELD);
  assert.deepEqual(heldInTrees(HELD, [join(project, 'other')], project), []);
  assert.deepEqual(heldInTrees(HELD, [join(project, '..', 'elsewhere')], project), []);
});

test('git\'s porcelain paths are read from the repository root, renames skip their old path, and files outside the project are left out', (t) => {
  const repo = tempProject(t);
  mkdirSync(join(repo, '.git'));
  const project = join(repo, 'app');
  mkdirSync(project);
  let asked: readonly string[] = [];
  const run: GitRun = (args) => {
    asked = args;
    return { ok: true, stdout: ' M app/src/a.ts\0R  app/docs/b.md\0app/docs/old.md\0M  lib/x.ts\0' };
  };
  assert.deepEqual(changedHeldFiles(project, ['src/a.ts', 'docs/b.md'], run), { files: ['src/a.ts', 'docs/b.md'] });
  assert.deepEqual(asked.slice(-3), ['--', ':(glob)src/a.ts', ':(glob)docs/b.md']);
});

test('outside a repository git is not asked, and git\'s trouble is handed back as a problem', (t) => {
  const project = tempProject(t);
  const never: GitRun = () => assert.fail('git was asked');
  assert.deepEqual(changedHeldFiles(project, ['src/a.ts'], never), { files: [] });
  mkdirSync(join(project, '.git'));
  assert.deepEqual(changedHeldFiles(project, ['src/a.ts'], () => ({ ok: false, problem: 'spawnSync git ENOENT' })), { problem: 'spawnSync git ENOENT' });
});
