// The shell checker: a server of the project judges a shell call's record
// for the hook after the call, warm (src/hooks/shell-checker.ts). Here it
// runs in this process, and its answers are read as the hook's ask leaves
// them (the hook's own ask blocks, so in the tests at the end it runs in
// real hook processes, beside a real server).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { reservePaths } from '../../src/engine/index';
import { askShellChecker, parseCheckerAnswer, startShellChecker, type ShellCheckerOptions } from '../../src/hooks/shell-checker';
import { changedSinceRecord, judgeShellRecord } from '../../src/hooks/shell-check';
import { openStore } from '../../src/store/index';
import { readCheckerAnswer, removeAsk, writeAsk, writeCheckerNotice } from '../../src/local/shell-checker-files';
import { shellDirOf, writeShellRecord } from '../../src/local/side-files';
import { thisRecordedProcess } from '../../src/process/liveness';
import { runCli, startServer } from '../helpers/server';
import { until } from '../helpers/wait';
import { channelWith, claudeEvent, tempProject } from './support';

const KEY = 'ab'.repeat(16);
const skip = process.platform === 'linux' ? false : 'the shell checker runs on Linux only';

function projectWith(t: TestContext, files: string[]): string {
  const dir = tempProject(t);
  for (const file of files) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), 'before\n');
  }
  return dir;
}

/** A checker of `dir` in this process, closed after the test. */
function checking(t: TestContext, dir: string, extra: Partial<ShellCheckerOptions> = {}) {
  const logs: string[] = [];
  const checker = startShellChecker({ projectDir: dir, judge: (key) => judgeShellRecord(dir, key), log: (line) => logs.push(line), ...extra });
  assert.ok(checker, 'the checker started');
  t.after(() => checker.close());
  return { checker, logs };
}

function record(dir: string, present: string[], key = KEY): void {
  writeShellRecord(dir, key, JSON.stringify({ patterns: [], present }), Date.now());
}

/** Asks the checker in this process as the hook does, and waits (without blocking) for its answer. */
async function ask(dir: string, key = KEY, pid = process.pid): Promise<string[] | 'none'> {
  assert.ok(writeAsk(dir, key, pid));
  try {
    const text = await until('the checker\'s answer', () => readCheckerAnswer(dir, key, pid));
    return parseCheckerAnswer(text) ?? 'none';
  } finally {
    removeAsk(dir, key, pid);
  }
}

test('the checker answers an ask with the held files the call changed, judged as the hook judges them', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts', 'src/b.ts', 'lib/c.ts']);
  checking(t, dir);
  writeFileSync(join(dir, 'src/b.ts'), 'before the call');
  record(dir, ['src/a.ts', 'src/b.ts', 'lib/c.ts']);
  writeFileSync(join(dir, 'src/a.ts'), 'during the call');
  rmSync(join(dir, 'lib/c.ts'));
  const answer = await ask(dir);
  assert.deepEqual(answer, ['src/a.ts', 'lib/c.ts']);
  assert.deepEqual(judgeShellRecord(dir, KEY), answer, 'the same judgement as the hook\'s own');
});

test('an ask about a call with no record, or one the judge fails on, is answered with none: the hook judges it itself', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  assert.equal(await (async () => { checking(t, dir); return ask(dir); })(), 'none');
  const other = projectWith(t, ['src/a.ts']);
  const { logs } = checking(t, other, { judge: () => { throw new Error('broken'); } });
  record(other, ['src/a.ts']);
  assert.equal(await ask(other), 'none');
  assert.ok(logs.some((line) => /could not judge a shell call \(broken\)/.test(line)), logs.join('\n'));
});

test('only an ask addressed to this process is answered', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  checking(t, dir);
  record(dir, ['src/a.ts']);
  assert.ok(writeAsk(dir, KEY, process.pid + 1));
  record(dir, ['src/a.ts'], 'cd'.repeat(16));
  assert.deepEqual(await ask(dir, 'cd'.repeat(16)), [], 'answered: every ask before it was seen');
  assert.equal(readCheckerAnswer(dir, KEY, process.pid + 1), undefined);
});

test('the checker says it runs while it runs, and takes that back when closed or when its folder goes', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  const { checker } = checking(t, dir);
  const notice = join(shellDirOf(dir), `checker-${process.pid}.json`);
  assert.equal(existsSync(notice), true);
  checker.close();
  assert.equal(existsSync(notice), false);
  assert.equal(checker.isRunning(), false);
  const { checker: second, logs } = checking(t, dir);
  rmSync(shellDirOf(dir), { recursive: true });
  await until('the checker to stop', () => !second.isRunning());
  assert.ok(logs.some((line) => /was moved or removed/.test(line)), logs.join('\n'));
});

test('a shell folder the checker may not use (a link) keeps it from starting, and says why', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  mkdirSync(join(dir, '.opencomms'), { recursive: true });
  symlinkSync(join(dir, 'src'), shellDirOf(dir));
  const logs: string[] = [];
  assert.equal(startShellChecker({ projectDir: dir, judge: () => [], log: (line) => logs.push(line) }), undefined);
  assert.ok(logs.some((line) => /shell checker: not started \(.*link/.test(line)), logs.join('\n'));
  assert.deepEqual(readdirSync(join(dir, 'src')), ['a.ts'], 'nothing written through the link');
});

test('off Linux the checker does not start, and the hook asks no one', async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  assert.equal(startShellChecker({ projectDir: dir, judge: () => [], log: () => undefined, platform: 'darwin' }), undefined);
  assert.equal(askShellChecker(dir, KEY, 1_000, 'darwin'), undefined);
});

test('the hook takes the checker\'s answer, judges the record itself without one, and removes the record either way', async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  record(dir, ['src/a.ts']);
  assert.deepEqual(changedSinceRecord(dir, KEY, () => ['src/a.ts']), ['src/a.ts'], 'the answer, as given');
  assert.equal(existsSync(join(shellDirOf(dir), `${KEY}.json`)), false);
  record(dir, ['src/a.ts']);
  writeFileSync(join(dir, 'src/a.ts'), 'after the record');
  assert.deepEqual(changedSinceRecord(dir, KEY, () => undefined), ['src/a.ts'], 'judged here');
  assert.equal(existsSync(join(shellDirOf(dir), `${KEY}.json`)), false);
  assert.deepEqual(changedSinceRecord(dir, KEY, () => { throw new Error('not asked without a record'); }), []);
});

test('the hook asks no checker whose process is gone, gives up on one that does not answer in time, and never reads an answer left before its ask', async (t) => {
  const dir = projectWith(t, []);
  mkdirSync(shellDirOf(dir), { recursive: true });
  writeCheckerNotice(dir, { ...thisRecordedProcess(), pid: 2 ** 22 + 1 });
  let started = Date.now();
  assert.equal(askShellChecker(dir, KEY, 5_000), undefined);
  assert.ok(Date.now() - started < 2_000, 'no wait for a dead checker');
  // This process says it checks, but cannot answer while it waits; an answer already there is not taken for one.
  writeCheckerNotice(dir, thisRecordedProcess());
  writeFileSync(join(shellDirOf(dir), `${KEY}.answer-${process.pid}.json`), JSON.stringify({ changed: [] }), { mode: 0o600 });
  started = Date.now();
  assert.equal(askShellChecker(dir, KEY, 50), undefined);
  assert.ok(Date.now() - started >= 50);
  assert.deepEqual(readdirSync(shellDirOf(dir)).filter((n) => n.includes('.ask-') || n.includes('.answer-')), [], 'the ask is taken back');
});

test('a notice that is not private (as a repository\'s checkout makes files) is not asked, so a planted one makes no hook wait', async (t) => {
  const dir = projectWith(t, []);
  mkdirSync(shellDirOf(dir), { recursive: true });
  const planted = join(shellDirOf(dir), `checker-${process.pid}.json`);
  writeFileSync(planted, JSON.stringify(thisRecordedProcess()));
  chmodSync(planted, 0o644);
  writeFileSync(join(shellDirOf(dir), 'checker-7.json'), '{"pid":7,', { mode: 0o600 });
  const started = Date.now();
  assert.equal(askShellChecker(dir, KEY, 5_000), undefined);
  assert.ok(Date.now() - started < 2_000, 'no wait');
  assert.deepEqual(readdirSync(shellDirOf(dir)).filter((n) => n.includes('.ask-')), [], 'nobody was asked');
});

// Through real processes: a server of the project checks; hooks run as a host runs them.
const HOLDER = 'alice-1';
const CLAUDE = { OPENCOMMS_HOST: 'claude-code', OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined };

async function heldProject(t: TestContext, count: number) {
  const files = Array.from({ length: count }, (_, i) => `src/f${i}.ts`);
  const project = projectWith(t, files);
  const store = await channelWith(project, 'review', [
    { id: HOLDER, role: 'author', host: 'mcp' },
    { id: 'bob-1', role: 'reviewer', host: 'claude-code', hostSessionId: 'bob-session' },
  ]);
  await store.mutate((state, ctx) => reservePaths(state, { channel: 'review', session_id: HOLDER, paths: files, exclusive: true, reason: null, project_dir: project }, ctx));
  return project;
}

async function shellCall(project: string, command: string, id: string) {
  const event = (name: string) => JSON.stringify(claudeEvent(name, 'bob-session', { cwd: project, tool_name: 'Bash', tool_input: { command }, tool_use_id: id }));
  const pre = await runCli(['hook', '--project', project], { input: event('PreToolUse'), env: CLAUDE });
  assert.equal(pre.stdout, '{}\n', pre.stderr);
  execFileSync('sh', ['-c', command], { cwd: project });
  const post = await runCli(['hook', '--project', project], { input: event('PostToolUse'), env: CLAUDE });
  return JSON.parse(post.stdout) as { hookSpecificOutput?: { additionalContext?: string } };
}

const notices = (project: string) => (existsSync(shellDirOf(project)) ? readdirSync(shellDirOf(project)).filter((n) => n.startsWith('checker-')) : []);

test('with the project\'s server checking, shell writes to held files are reported, one through a hard link made during the call too; killed, the hook judges itself and still reports', { skip }, async (t) => {
  const project = await heldProject(t, 40);
  const server = startServer(t, { project, env: { OPENCOMMS_HOST: 'mcp' } });
  await server.initialize();
  await until('the server\'s checker', () => notices(project).includes(`checker-${server.child.pid}.json`));
  const direct = await shellCall(project, "node -e \"require('fs').appendFileSync('src/f7.ts', 'x')\"", 'toolu_1');
  assert.match(direct.hookSpecificOutput?.additionalContext ?? '', /changed a file another agent holds exclusively:\n- src\/f7\.ts /);
  // Written through another name: nothing happens in src/, but the file's change time moves.
  const linked = await shellCall(project, 'ln src/f8.ts elsewhere.ts && echo x >> elsewhere.ts', 'toolu_2');
  assert.match(linked.hookSpecificOutput?.additionalContext ?? '', /changed a file another agent holds exclusively:\n- src\/f8\.ts /);
  assert.equal((await shellCall(project, 'true', 'toolu_3')).hookSpecificOutput, undefined, 'a call that changed nothing: nothing reported');
  server.child.kill('SIGKILL');
  await server.exited;
  assert.deepEqual(notices(project), [`checker-${server.child.pid}.json`], 'a killed server leaves its notice; its pid tells it is gone');
  const alone = await shellCall(project, "node -e \"require('fs').appendFileSync('src/f9.ts', 'x')\"", 'toolu_4');
  assert.match(alone.hookSpecificOutput?.additionalContext ?? '', /changed a file another agent holds exclusively:\n- src\/f9\.ts /);
  assert.deepEqual(readdirSync(shellDirOf(project)).filter((n) => !n.startsWith('checker-')), [], 'no record, ask or answer is left');
});

test('one server of a project runs its checker; when it is killed, another starts one at the next change of the state', { skip }, async (t) => {
  const project = await heldProject(t, 3);
  const first = startServer(t, { project, env: { OPENCOMMS_HOST: 'mcp' } });
  await first.initialize();
  await until('the first server\'s checker', () => notices(project).includes(`checker-${first.child.pid}.json`));
  const second = startServer(t, { project, env: { OPENCOMMS_HOST: 'mcp' } });
  await second.initialize();
  await second.callTool('opencomms_status'); // its push side (and its look for a checker) is up once a tool has answered
  assert.deepEqual(notices(project), [`checker-${first.child.pid}.json`], 'the second server leaves the checking to the first');
  first.child.kill('SIGKILL');
  await first.exited;
  const store = openStore({ projectDir: project });
  await store.mutate((state, ctx) => reservePaths(state, { channel: 'review', session_id: HOLDER, paths: ['lib/x.ts'], exclusive: true, reason: null, project_dir: project }, ctx));
  await until('the second server\'s checker', () => notices(project).includes(`checker-${second.child.pid}.json`));
  assert.deepEqual(notices(project), [`checker-${second.child.pid}.json`], 'the dead server\'s notice was removed');
});
