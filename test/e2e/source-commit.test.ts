// The commit named in the header of dist/opencomms.js (scripts/source-commit.mjs).
// dist/ is committed and checked against a fresh build, so the name must be
// the same before and after dist/ is committed: the last commit that changed
// the sources, never HEAD.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WAIT_MS } from '../helpers/server';
import { runToEnd } from '../helpers/run';

const SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'source-commit.mjs');
const GIT_ENV = { ...process.env, GIT_CEILING_DIRECTORIES: tmpdir(), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-commit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function git(dir: string, ...args: string[]): Promise<string> {
  const identity = ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false'];
  const run = await runToEnd('git', [...identity, ...args], { cwd: dir, env: GIT_ENV, waitMs: WAIT_MS });
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.trim();
}

async function sourceCommit(dir: string): Promise<string> {
  const run = await runToEnd(process.execPath, [SCRIPT, dir], { env: GIT_ENV, waitMs: WAIT_MS });
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.trim();
}

/** A repository whose first commit holds the sources. */
async function repoWithSources(t: TestContext): Promise<{ dir: string; sources: string }> {
  const dir = tempDir(t);
  await git(dir, 'init', '-q');
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'main.ts'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'package.json'), '{"name":"x","version":"1.0.0"}\n');
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'sources');
  return { dir, sources: await git(dir, 'rev-parse', 'HEAD') };
}

test('the source commit is the last commit that changed the sources, and committing dist/ after it keeps it', async (t) => {
  const { dir, sources } = await repoWithSources(t);
  assert.equal(await sourceCommit(dir), sources);
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', 'opencomms.js'), `// Source commit: ${sources}\n`);
  writeFileSync(join(dir, 'README.md'), 'docs\n');
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'dist and docs');
  assert.notEqual(await git(dir, 'rev-parse', 'HEAD'), sources);
  assert.equal(await sourceCommit(dir), sources);
});

test('a change to the sources that no commit holds is named uncommitted, tracked or not', async (t) => {
  const { dir } = await repoWithSources(t);
  writeFileSync(join(dir, 'src', 'main.ts'), 'export const a = 2;\n');
  assert.equal(await sourceCommit(dir), 'uncommitted');
  await git(dir, 'checkout', '-q', '--', 'src/main.ts');
  writeFileSync(join(dir, 'src', 'new-module.ts'), 'export {};\n');
  assert.equal(await sourceCommit(dir), 'uncommitted');
});

test('outside a git checkout, and in a shallow clone that lacks the change, the source commit is unknown', async (t) => {
  const plain = tempDir(t);
  assert.equal(await sourceCommit(plain), 'unknown');
  const { dir } = await repoWithSources(t);
  writeFileSync(join(dir, 'README.md'), 'docs\n');
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'docs');
  const shallow = join(tempDir(t), 'clone');
  await git(dir, 'clone', '-q', '--depth', '1', `file://${dir}`, shallow);
  assert.equal(await sourceCommit(shallow), 'unknown');
});
