// Git commands that throw away a held file's content, through real hook
// processes (dist) and a real git: a command naming a held path is denied;
// one that resets a whole folder (`git checkout .`, `git reset --hard`) is
// denied only while a held file in it has changes to lose; trouble asking git
// lets the command run and says why on stderr (docs/internals.md, "The pre-tool check").
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { reservePaths } from '../../src/engine/index';
import { GIT_STATUS_TIMEOUT_MS } from '../../src/hooks/reset-check';
import { runCli } from '../helpers/server';
import { channelWith, claudeEvent, codexEvent, geminiEvent, tempProject } from './support';
import { edit } from '../helpers/edit';

const CLEAN_ENV = { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_HOST: undefined };
const CLAUDE = { OPENCOMMS_HOST: 'claude-code' };

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd: dir, encoding: 'utf8' });
}

/** A git repository holding the project at `sub` ('' for its root), with src/a.ts held by alice and other/b.ts free, all committed. */
async function heldRepo(t: TestContext, sub = '', paths = ['src/a.ts']) {
  const repo = tempProject(t);
  const project = join(repo, sub);
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(project, 'other'));
  writeFileSync(join(project, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(project, 'other', 'b.ts'), 'export const b = 1;\n');
  git(repo, 'init', '-q');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'start');
  const store = await channelWith(project, 'review', [{ id: 'alice-1', role: 'author', host: 'mcp' }]);
  await edit(store, (state, ctx) => reservePaths(state, {
    channel: 'review', session_id: 'alice-1', paths, exclusive: true, reason: null, project_dir: project,
  }, ctx));
  return { repo, project };
}

async function hookRun(project: string, event: Record<string, unknown>, env: Record<string, string | undefined> = CLAUDE) {
  const run = await runCli(['hook', '--project', project], { input: JSON.stringify(event), env: { ...CLEAN_ENV, ...env } });
  assert.match(run.stdout, /^\{.*\}\n$/s, `stdout: ${run.stdout} stderr: ${run.stderr}`);
  return { answer: JSON.parse(run.stdout) as Record<string, any>, stderr: run.stderr };
}

function bash(project: string, command: string, cwd = project) {
  return claudeEvent('PreToolUse', 'bob-session', { cwd, tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_git' });
}

function isDenied(answer: Record<string, any>): boolean {
  return answer.hookSpecificOutput?.permissionDecision === 'deny' || answer.decision === 'deny';
}

for (const command of ['git checkout -- src/a.ts', 'git checkout HEAD~0 -- src/a.ts', 'git restore src/a.ts', 'git restore --source=HEAD src/a.ts', 'git -C src checkout a.ts']) {
  test(`\`${command}\` naming a held file is denied, changed or not, naming the holder`, async (t) => {
    const { project } = await heldRepo(t);
    const { answer } = await hookRun(project, bash(project, command));
    assert.equal(answer.hookSpecificOutput?.permissionDecision, 'deny');
    assert.match(answer.hookSpecificOutput.permissionDecisionReason, /src\/a\.ts is reserved exclusively by author \(alice-1\)/);
  });
}

for (const command of ['git checkout .', 'git restore .', 'git reset --hard', 'git checkout -f', 'git stash', 'git checkout -- src']) {
  test(`\`${command}\` is denied while a held file has uncommitted changes, and passes while it has none`, async (t) => {
    const { project } = await heldRepo(t);
    assert.equal(isDenied((await hookRun(project, bash(project, command))).answer), false, 'nothing to lose yet');
    writeFileSync(join(project, 'src', 'a.ts'), 'export const a = 2; // the holder\'s work\n');
    const { answer } = await hookRun(project, bash(project, command));
    assert.equal(answer.hookSpecificOutput?.permissionDecision, 'deny');
    assert.match(answer.hookSpecificOutput.permissionDecisionReason, /^OpenComms refused this shell command on purpose, before it ran/);
    assert.match(answer.hookSpecificOutput.permissionDecisionReason, /src\/a\.ts is reserved exclusively by author \(alice-1\)/);
  });
}

test('`git reset --hard` is denied while a held file has staged changes only', async (t) => {
  const { project } = await heldRepo(t);
  writeFileSync(join(project, 'src', 'a.ts'), 'export const a = 3;\n');
  git(project, 'add', 'src/a.ts');
  assert.equal(isDenied((await hookRun(project, bash(project, 'git reset --hard'))).answer), true);
});

test('a glob reservation counts: `git checkout .` is denied while a file it covers has changes', async (t) => {
  const { project } = await heldRepo(t, '', ['src/**']);
  writeFileSync(join(project, 'src', 'a.ts'), 'changed\n');
  assert.equal(isDenied((await hookRun(project, bash(project, 'git checkout .'))).answer), true);
});

test('a reset of another folder passes while a held file elsewhere has changes, and so do git commands that reset nothing', async (t) => {
  const { project } = await heldRepo(t);
  writeFileSync(join(project, 'src', 'a.ts'), 'changed\n');
  writeFileSync(join(project, 'other', 'b.ts'), 'changed too\n');
  assert.deepEqual((await hookRun(project, bash(project, 'cd other && git checkout .'))).answer, {});
  assert.deepEqual((await hookRun(project, bash(project, 'git checkout -- other/b.ts'))).answer, {});
  for (const command of ['git status', 'git diff src/a.ts', 'git stash list', 'git restore --staged src/a.ts', 'git checkout -b topic']) {
    assert.deepEqual((await hookRun(project, bash(project, command))).answer, {}, command);
  }
});

test('a project inside a larger repository: paths git reports from the repository root are read as the project\'s', async (t) => {
  const { project } = await heldRepo(t, 'packages/app');
  writeFileSync(join(project, 'src', 'a.ts'), 'changed\n');
  assert.equal(isDenied((await hookRun(project, bash(project, 'git checkout .'))).answer), true);
  assert.equal(isDenied((await hookRun(project, bash(project, 'git checkout .', join(project, 'other')))).answer), false, 'run from the other folder');
});

test('Codex exec_command and Gemini CLI run_shell_command get the same judgement, in their own deny formats', async (t) => {
  const { project } = await heldRepo(t);
  writeFileSync(join(project, 'src', 'a.ts'), 'changed\n');
  const codex = codexEvent('PreToolUse', 'codex-session', { cwd: project, tool_name: 'Bash', tool_input: { command: 'git reset --hard' } });
  assert.equal((await hookRun(project, codex, {})).answer.hookSpecificOutput?.permissionDecision, 'deny');
  const gemini = geminiEvent('BeforeTool', 'gemini-session', { cwd: project, tool_name: 'run_shell_command', tool_input: { command: 'git checkout .' } });
  assert.equal((await hookRun(project, gemini, {})).answer.decision, 'deny');
});

test('without git on PATH the command goes ahead (fail open) and the hook says why on stderr', async (t) => {
  const { project } = await heldRepo(t);
  writeFileSync(join(project, 'src', 'a.ts'), 'changed\n');
  const empty = join(tempProject(t), 'bin');
  mkdirSync(empty);
  const { answer, stderr } = await hookRun(project, bash(project, 'git checkout .'), { ...CLAUDE, PATH: empty });
  assert.deepEqual(answer, {});
  assert.match(stderr, /could not ask git whether held files have changes \(.*ENOENT.*\); the git command goes ahead unchecked/);
});

test('a git that does not answer in time is given up on within the bound: the command goes ahead and the hook says why', async (t) => {
  const { project } = await heldRepo(t);
  const bin = join(tempProject(t), 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'git'), '#!/bin/sh\nexec sleep 30\n');
  chmodSync(join(bin, 'git'), 0o755);
  const started = Date.now();
  const { answer, stderr } = await hookRun(project, bash(project, 'git reset --hard'), { ...CLAUDE, PATH: `${bin}:${process.env.PATH}` });
  const tookMs = Date.now() - started;
  assert.deepEqual(answer, {});
  assert.match(stderr, /could not ask git whether held files have changes/);
  assert.ok(tookMs < GIT_STATUS_TIMEOUT_MS + 8_000, `answered after ${tookMs} ms`);
});

test('with nothing held by others in the reset folder, git is not asked at all', async (t) => {
  const { project } = await heldRepo(t);
  const bin = join(tempProject(t), 'bin');
  mkdirSync(bin);
  // A git that would fail loudly: not being run is what passes.
  writeFileSync(join(bin, 'git'), '#!/bin/sh\necho "git was run" >&2\nexit 3\n');
  chmodSync(join(bin, 'git'), 0o755);
  const { answer, stderr } = await hookRun(project, bash(project, 'cd other && git checkout .'), { ...CLAUDE, PATH: `${bin}:${process.env.PATH}` });
  assert.deepEqual(answer, {});
  assert.doesNotMatch(stderr, /git/);
});
