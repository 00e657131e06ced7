// In a git repository install keeps .opencomms/ state out of git but the
// vendored server copy in it, through lines it adds to .gitignore; uninstall
// takes exactly those lines out again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject, type Finished } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { writeFiles } from '../hosts/install-support';

const LINES = '.opencomms/*\n!.opencomms/opencomms.js\n!.opencomms/package.json\n';
const CLAUDE_LINES = '# OpenComms: Claude Code\'s local settings hold your own grants\n.claude/settings.local.json\n';

type Run = (args: string[], options: { cwd?: string }) => Promise<Finished>;

function commandsVia(run: Run) {
  return {
    install: (host: string, project: string, ...extra: string[]) => run(['install', host, '--project', project, ...extra], { cwd: tmpdir() }),
    uninstall: (host: string, project: string) => run(['uninstall', host, '--project', project], { cwd: tmpdir() }),
  };
}

const { install, uninstall } = commandsVia(runCliInProcess);
/** The shipped CLI, for one test of each path (install, uninstall, --dry-run): the rest run in this process. */
const throughCli = commandsVia(runCli);

/** A project that is a git repository: `.git` is a folder, as `git init` makes it, or a file, as in a worktree. */
function gitProject(t: Parameters<typeof tempProject>[0], kind: 'dir' | 'file' = 'dir'): string {
  const project = tempProject(t);
  if (kind === 'dir') mkdirSync(join(project, '.git'));
  else writeFileSync(join(project, '.git'), 'gitdir: /somewhere/else\n');
  return project;
}

const HAS_GIT = spawnSync('git', ['--version']).status === 0;

test('in a git repository install adds the ignore lines to .gitignore and says so; git then ignores the state but not the server copy', { skip: !HAS_GIT }, async (t) => {
  const project = tempProject(t);
  execFileSync('git', ['init', '-q', project]);
  const { code, stdout, stderr } = await throughCli.install('claude-code', project);
  assert.equal(code, 0, stderr);
  const text = readFileSync(join(project, '.gitignore'), 'utf8');
  assert.ok(text.endsWith(`${LINES}\n${CLAUDE_LINES}`), text);
  assert.match(stdout, /^wrote \.gitignore \(.*\.opencomms.*\)$/m);
  writeFiles(project, { '.opencomms/state.json': '{}\n', '.opencomms/pins/sess_a.json': '{}\n', '.opencomms/history/c.jsonl': '\n' });
  const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: project, encoding: 'utf8' });
  const listed = status.split('\n').filter(Boolean).map((line) => line.slice(3)).sort();
  assert.deepEqual(listed, ['.claude/settings.json', '.gitignore', '.mcp.json', '.opencomms/opencomms.js', '.opencomms/package.json']);
});

test('claude-code: install ignores .claude/settings.local.json, the person\'s own grants, so git add -A does not commit them; uninstall takes that line out', { skip: !HAS_GIT }, async (t) => {
  const project = tempProject(t);
  execFileSync('git', ['init', '-q', project]);
  writeFiles(project, { '.gitignore': 'node_modules\n' });
  assert.equal((await throughCli.install('claude-code', project)).code, 0);
  assert.ok(readFileSync(join(project, '.gitignore'), 'utf8').endsWith(`${LINES}\n${CLAUDE_LINES}`));
  const ignored = spawnSync('git', ['check-ignore', '-q', '.claude/settings.local.json'], { cwd: project });
  assert.equal(ignored.status, 0, '.claude/settings.local.json is ignored');
  assert.equal((await throughCli.uninstall('claude-code', project)).code, 0);
  assert.equal(readFileSync(join(project, '.gitignore'), 'utf8'), 'node_modules\n');
});

test('a .git file (a worktree or submodule) also counts as a git repository', async (t) => {
  const project = gitProject(t, 'file');
  assert.equal((await install('codex', project)).code, 0);
  assert.ok(readFileSync(join(project, '.gitignore'), 'utf8').endsWith(LINES));
});

test('outside a git repository install leaves .gitignore alone', async (t) => {
  const bare = tempProject(t);
  const withFile = tempProject(t);
  writeFiles(withFile, { '.gitignore': 'node_modules\n' });
  for (const project of [bare, withFile]) {
    const { code, stdout } = await install('claude-code', project);
    assert.equal(code, 0);
    assert.doesNotMatch(stdout, /gitignore/);
  }
  assert.equal(existsSync(join(bare, '.gitignore')), false);
  assert.equal(readFileSync(join(withFile, '.gitignore'), 'utf8'), 'node_modules\n');
});

for (const [name, before] of [
  ['no .gitignore', undefined],
  ['a .gitignore without a final newline', 'node_modules'],
  ['a .gitignore with CRLF line ends', 'node_modules\r\ndist/\r\n'],
  ['a .gitignore ending in a blank line', '# mine\n*.log\n\n'],
] as const) {
  test(`uninstall gives back ${name} byte for byte`, async (t) => {
    const { install, uninstall } = before === undefined ? throughCli : commandsVia(runCliInProcess);
    const project = gitProject(t);
    if (before !== undefined) writeFiles(project, { '.gitignore': before });
    assert.equal((await install('gemini-cli', project)).code, 0);
    const installed = readFileSync(join(project, '.gitignore'), 'utf8');
    assert.ok(installed.startsWith(before ?? ''), 'the user\'s lines are kept as they were');
    assert.ok(installed.replace(/\r\n/g, '\n').endsWith(LINES));
    if (before?.includes('\r\n')) assert.doesNotMatch(installed.replace(/\r\n/g, ''), /\n/, 'the added lines use the file\'s CRLF');
    const again = await install('gemini-cli', project);
    assert.match(again.stdout, /already installed/);
    assert.equal(readFileSync(join(project, '.gitignore'), 'utf8'), installed, 'a second install adds nothing');
    const { code, stdout } = await uninstall('gemini-cli', project);
    assert.equal(code, 0);
    assert.match(stdout, /\.gitignore/);
    if (before === undefined) assert.equal(existsSync(join(project, '.gitignore')), false);
    else assert.equal(readFileSync(join(project, '.gitignore'), 'utf8'), before);
  });
}

test('uninstall keeps the lines while another host is still installed, and takes them out with the last one', async (t) => {
  const project = gitProject(t);
  writeFiles(project, { '.gitignore': 'node_modules\n' });
  assert.equal((await install('claude-code', project)).code, 0);
  assert.equal((await install('codex', project)).code, 0);
  const installed = readFileSync(join(project, '.gitignore'), 'utf8');
  const first = await uninstall('codex', project);
  assert.equal(first.code, 0);
  assert.match(first.stdout, /kept .*\.gitignore.*claude-code/);
  assert.equal(readFileSync(join(project, '.gitignore'), 'utf8'), installed);
  assert.equal((await uninstall('claude-code', project)).code, 0);
  assert.equal(readFileSync(join(project, '.gitignore'), 'utf8'), 'node_modules\n');
});

for (const [first, second] of [['claude-code', 'codex'], ['codex', 'claude-code'], ['claude-code', 'opencode'], ['opencode', 'gemini-cli']] as const) {
  test(`with ${first} and ${second} installed, uninstalling either keeps the lines the other needs, and the last gives .gitignore back byte for byte`, async (t) => {
    for (const order of [[first, second], [second, first]]) {
      const project = gitProject(t);
      writeFiles(project, { '.gitignore': '# mine\r\n*.log' });
      for (const host of [first, second]) assert.equal((await throughCli.install(host, project)).code, 0);
      const removed = await throughCli.uninstall(order[0], project);
      assert.equal(removed.code, 0, removed.stderr);
      const left = readFileSync(join(project, '.gitignore'), 'utf8').replace(/\r\n/g, '\n');
      assert.ok(left.includes(LINES), `${order[1]} still needs the state lines: ${left}`);
      assert.equal(left.includes(CLAUDE_LINES), order[1] === 'claude-code', 'the Claude Code line stays only with claude-code');
      assert.equal((await throughCli.uninstall(order[1], project)).code, 0);
      assert.equal(readFileSync(join(project, '.gitignore'), 'utf8'), '# mine\r\n*.log');
    }
  });
}

test('the lines a teammate committed are used as they are, not added twice', async (t) => {
  const project = gitProject(t);
  assert.equal((await install('claude-code', project)).code, 0);
  const committed = readFileSync(join(project, '.gitignore'), 'utf8');
  const clone = gitProject(t);
  writeFiles(clone, { '.gitignore': committed });
  const { code, stdout } = await install('claude-code', clone);
  assert.equal(code, 0);
  assert.doesNotMatch(stdout, /gitignore/);
  assert.equal(readFileSync(join(clone, '.gitignore'), 'utf8'), committed);
});

test('a .gitignore that ignores all of .opencomms/ is left alone, and install says the server copy cannot be committed', async (t) => {
  const project = gitProject(t);
  writeFiles(project, { '.gitignore': 'node_modules\n/.opencomms/\n' });
  const { code, stdout } = await install('claude-code', project);
  assert.equal(code, 0);
  assert.equal(readFileSync(join(project, '.gitignore'), 'utf8'), 'node_modules\n/.opencomms/\n');
  assert.match(stdout, /\.gitignore.*ignores all of \.opencomms\//);
});

test('--dry-run prints the .gitignore it would write and writes nothing', async (t) => {
  const project = gitProject(t);
  writeFiles(project, { '.gitignore': 'node_modules\n' });
  const { code, stdout } = await throughCli.install('claude-code', project, '--dry-run');
  assert.equal(code, 0);
  assert.ok(stdout.includes(`would write ${join(project, '.gitignore')}:\nnode_modules\n\n`), stdout);
  assert.equal(readFileSync(join(project, '.gitignore'), 'utf8'), 'node_modules\n');
});
