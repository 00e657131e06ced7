// The shell watch: a server's inotify watch of the held folders answers the
// check after a shell call (src/hooks/shell-watch.ts). The watch runs here in
// this process on the real file system; its answers are read as the check's
// ask leaves them (the check's own ask blocks, so it runs in another process
// in the tests at the end, which drive real hook and server processes).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { reservePaths } from '../../src/engine/index';
import { askShellWatch, parseWatchAnswer, startShellWatch, type ShellWatchOptions, type WatchAnswer } from '../../src/hooks/shell-watch';
import { changedSinceRecord, watchedFoldersOf } from '../../src/hooks/shell-check';
import { openStore, readWatchAnswer, removeAsk, shellDirOf, writeAsk, writeShellRecord, writeWatchNotice } from '../../src/store/index';
import { thisRecordedProcess } from '../../src/process/liveness';
import { runCli, startServer } from '../helpers/server';
import { until } from '../helpers/wait';
import { channelWith, claudeEvent, tempProject } from './support';

const KEY = 'ab'.repeat(16);
const isLinux = process.platform === 'linux';
const skip = isLinux ? false : 'the shell watch runs on Linux only';

function projectWith(t: TestContext, files: string[]): string {
  const dir = tempProject(t);
  for (const file of files) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), 'before\n');
  }
  return dir;
}

/** A watch of `folders` in `dir`, closed after the test; resolves once every folder is covered. */
async function watching(t: TestContext, dir: string, folders: Record<string, boolean>, extra: Partial<ShellWatchOptions> = {}) {
  const logs: string[] = [];
  let want = new Map(Object.entries(folders));
  const watch = startShellWatch({ projectDir: dir, folders: () => want, log: (line) => logs.push(line), ...extra });
  assert.ok(watch, 'the watch started');
  t.after(() => watch.close());
  await until('the watch to cover its folders', () => Object.keys(folders).every((f) => watch.covering().includes(f)));
  return { watch, logs, setFolders: (next: Record<string, boolean>) => { want = new Map(Object.entries(next)); watch.refresh(); } };
}

function record(dir: string, key = KEY): void {
  writeShellRecord(dir, key, JSON.stringify({ patterns: [], present: [] }), Date.now());
}

/** Asks the watch in this process as the check does, and waits (without blocking) for its answer. */
async function ask(dir: string, key = KEY): Promise<WatchAnswer | undefined | 'not seen'> {
  assert.ok(writeAsk(dir, key, process.pid));
  try {
    const text = await until('the watch\'s answer', () => readWatchAnswer(dir, key, process.pid));
    return parseWatchAnswer(text) ?? 'not seen';
  } finally {
    removeAsk(dir, key, process.pid);
  }
}

test('the watch answers with the names changed between a call\'s record and its ask, and the folders it covered', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts', 'src/b.ts', 'src/c.ts', 'lib/d.ts']);
  await watching(t, dir, { src: false, lib: false });
  writeFileSync(join(dir, 'src/c.ts'), 'before the call');
  record(dir);
  writeFileSync(join(dir, 'src/a.ts'), 'during the call');
  rmSync(join(dir, 'lib/d.ts'));
  const answer = await ask(dir);
  assert.ok(answer !== undefined && answer !== 'not seen');
  assert.deepEqual([...answer.covered].sort(), ['lib', 'src']);
  assert.deepEqual([...answer.changed].sort(), ['lib/d.ts', 'src/a.ts'], 'not c.ts, changed before the record; not b.ts');
  assert.deepEqual([...answer.irregular], []);
});

test('a call whose record came before the watch began is answered as not seen', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  record(dir);
  await watching(t, dir, { src: false });
  writeFileSync(join(dir, 'src/a.ts'), 'during the call');
  assert.equal(await ask(dir), 'not seen');
});

test('the removal of a record opens no window: only a record that is there does', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  record(dir);
  await watching(t, dir, { src: false });
  rmSync(join(shellDirOf(dir), `${KEY}.json`));
  assert.equal(await ask(dir), 'not seen', 'a window opened at the removal would start after the changes');
});

test('a folder whose watch began after the record is not covered', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts', 'lib/b.ts']);
  const { watch, setFolders } = await watching(t, dir, { src: false });
  record(dir);
  setFolders({ src: false, lib: false });
  await until('lib to be covered', () => watch.covering().includes('lib'));
  const answer = await ask(dir);
  assert.ok(answer !== undefined && answer !== 'not seen');
  assert.deepEqual([...answer.covered], ['src']);
});

test('a watched folder removed and made again during a call is not covered, and is watched afresh', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  const { watch } = await watching(t, dir, { src: false });
  record(dir);
  rmSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/a.ts'), 'during the call');
  const answer = await ask(dir);
  assert.ok(answer !== undefined && answer !== 'not seen');
  assert.equal(answer.covered.has('src'), false);
  await until('src to be watched again', () => watch.covering().includes('src'));
  record(dir, 'cd'.repeat(16));
  writeFileSync(join(dir, 'src/a.ts'), 'during the next call');
  const next = await ask(dir, 'cd'.repeat(16));
  assert.ok(next !== undefined && next !== 'not seen');
  assert.deepEqual([...next.covered], ['src']);
  assert.deepEqual([...next.changed], ['src/a.ts']);
});

test('links and folders in a covered folder are named as irregular, whose status the check reads', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts', 'lib/target.ts']);
  symlinkSync('../lib/target.ts', join(dir, 'src/link.ts'));
  mkdirSync(join(dir, 'src/sub'));
  await watching(t, dir, { src: false });
  record(dir);
  writeFileSync(join(dir, 'src/link.ts'), 'through the link');
  const answer = await ask(dir);
  assert.ok(answer !== undefined && answer !== 'not seen');
  assert.deepEqual([...answer.irregular].sort(), ['src/link.ts', 'src/sub']);
  assert.equal(answer.changed.has('src/link.ts'), false, 'the write went to lib/, which is not watched');
});

test('a new folder under a glob\'s tree is watched once it appears; until then it is not covered', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  const watch = startShellWatch({ projectDir: dir, folders: () => watchedFoldersOf(dir, ['src/**/*.ts']), log: () => undefined });
  assert.ok(watch);
  t.after(() => watch.close());
  await until('src to be covered', () => watch.covering().includes('src'));
  record(dir);
  mkdirSync(join(dir, 'src/new'));
  writeFileSync(join(dir, 'src/new/b.ts'), 'made during the call');
  const answer = await ask(dir);
  assert.ok(answer !== undefined && answer !== 'not seen');
  assert.deepEqual([...answer.covered], ['src'], 'src/new: watched only after the record, so not covered');
  assert.ok(answer.changed.has('src/new'));
  await until('the new folder to be watched', () => watch.covering().includes('src/new'));
});

test('a run of events past half the kernel\'s queue spoils the calls under way: they are answered as not seen', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  const { logs } = await watching(t, dir, { src: false }, { queueLimit: 40 });
  record(dir);
  for (let i = 0; i < 30; i += 1) writeFileSync(join(dir, `src/n${i}.ts`), 'x'); // read in one go: this test does not yield
  assert.equal(await ask(dir), 'not seen');
  assert.ok(logs.some((line) => /events read in one go/.test(line)), logs.join('\n'));
});

test('a call whose record is read in such a run, past the line, is answered as not seen too', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  await watching(t, dir, { src: false }, { queueLimit: 40 });
  for (let i = 0; i < 30; i += 1) writeFileSync(join(dir, `src/n${i}.ts`), 'x');
  record(dir); // read in the same run as the writes before it: the events after it may have been dropped
  writeFileSync(join(dir, 'src/a.ts'), 'during the call');
  assert.equal(await ask(dir), 'not seen');
});

test('a call that changed more names than the watch keeps is answered as not seen', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  await watching(t, dir, { src: false }, { maxChangedNames: 5 });
  record(dir);
  for (let i = 0; i < 8; i += 1) writeFileSync(join(dir, `src/n${i}.ts`), 'x');
  assert.equal(await ask(dir), 'not seen');
});

test('the watch says it watches while it runs, and takes that back when closed', { skip }, async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  const { watch } = await watching(t, dir, { src: false });
  const notice = join(shellDirOf(dir), `watch-${process.pid}.json`);
  assert.equal(existsSync(notice), true);
  watch.close();
  assert.equal(existsSync(notice), false);
});

test('off Linux the watch does not start, and the check asks no one', async (t) => {
  const dir = projectWith(t, ['src/a.ts']);
  assert.equal(startShellWatch({ projectDir: dir, folders: () => new Map([['src', false]]), log: () => undefined, platform: 'darwin' }), undefined);
  assert.equal(askShellWatch(dir, KEY, 1_000, 'darwin'), undefined);
});

test('the check trusts an answer only where it covers: a covered file with no event is not read, an irregular or uncovered one is', async (t) => {
  const dir = projectWith(t, ['src/a.ts', 'src/b.ts', 'lib/c.ts']);
  const files = ['src/a.ts', 'src/b.ts', 'lib/c.ts'];
  const judge = (answer: WatchAnswer) => {
    writeShellRecord(dir, KEY, JSON.stringify({ patterns: [], present: files }), Date.now());
    // Every file changes after the record: each one read counts as changed.
    for (const file of files) writeFileSync(join(dir, file), 'after the record');
    return changedSinceRecord(dir, KEY, () => answer).sort();
  };
  const covered = new Set(['src']);
  assert.deepEqual(judge({ covered, changed: new Set(), irregular: new Set() }), ['lib/c.ts']);
  assert.deepEqual(judge({ covered, changed: new Set(['src/b.ts']), irregular: new Set() }), ['lib/c.ts', 'src/b.ts']);
  assert.deepEqual(judge({ covered, changed: new Set(), irregular: new Set(['src/a.ts']) }), ['lib/c.ts', 'src/a.ts']);
  assert.equal(existsSync(join(shellDirOf(dir), `${KEY}.json`)), false, 'the record is removed once judged');
});

test('the check asks no watch whose process is gone, and gives up on one that does not answer within its time', async (t) => {
  const dir = projectWith(t, []);
  mkdirSync(shellDirOf(dir), { recursive: true });
  writeWatchNotice(dir, { ...thisRecordedProcess(), pid: 2 ** 22 + 1 });
  let started = Date.now();
  assert.equal(askShellWatch(dir, KEY, 5_000), undefined);
  assert.ok(Date.now() - started < 2_000, 'no wait for a dead watch');
  // This process says it watches but cannot answer while it waits; an answer already there (shipped, or left) is not taken for one.
  writeWatchNotice(dir, thisRecordedProcess());
  writeFileSync(join(shellDirOf(dir), `${KEY}.answer-${process.pid}.json`), JSON.stringify({ seen: true, covered: [''], changed: [], irregular: [] }), { mode: 0o600 });
  started = Date.now();
  assert.equal(askShellWatch(dir, KEY, 50), undefined);
  assert.ok(Date.now() - started >= 50);
  assert.deepEqual(readdirSync(shellDirOf(dir)).filter((n) => n.includes('.ask-') || n.includes('.answer-')), [], 'the ask is taken back');
});

test('a notice that is not private (as a repository\'s checkout makes files) is not asked, so a planted one makes no call wait', async (t) => {
  const dir = projectWith(t, []);
  mkdirSync(shellDirOf(dir), { recursive: true });
  writeFileSync(join(shellDirOf(dir), `watch-${process.pid}.json`), JSON.stringify(thisRecordedProcess()), { mode: 0o644 });
  chmodSync(join(shellDirOf(dir), `watch-${process.pid}.json`), 0o644);
  writeFileSync(join(shellDirOf(dir), 'watch-7.json'), '{"pid":7,', { mode: 0o600 });
  const started = Date.now();
  assert.equal(askShellWatch(dir, KEY, 5_000), undefined);
  assert.ok(Date.now() - started < 2_000, 'no wait');
  assert.deepEqual(readdirSync(shellDirOf(dir)).filter((n) => n.includes('.ask-')), [], 'nobody was asked');
});

// Through real processes: a server of the project watches; hooks run as a host runs them.
const HOLDER = 'alice-1';
const WRITER = 'bob-1';
const CLAUDE = { OPENCOMMS_HOST: 'claude-code', OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined };

async function heldProject(t: TestContext, count: number) {
  const files = Array.from({ length: count }, (_, i) => `src/f${i}.ts`);
  const project = projectWith(t, files);
  const store = await channelWith(project, 'review', [
    { id: HOLDER, role: 'author', host: 'mcp' },
    { id: WRITER, role: 'reviewer', host: 'claude-code', hostSessionId: 'bob-session' },
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

test('with the project\'s server watching, a shell write to a held file is reported; killed, the check reads the files itself and still reports', { skip }, async (t) => {
  const project = await heldProject(t, 40);
  const server = startServer(t, { project, env: { OPENCOMMS_HOST: 'mcp' } });
  await server.initialize();
  const notice = () => readdirSync(shellDirOf(project)).includes(`watch-${server.child.pid}.json`);
  await until('the server\'s shell watch', () => existsSync(shellDirOf(project)) && notice());
  const watched = await shellCall(project, "node -e \"require('fs').appendFileSync('src/f7.ts', 'x')\"", 'toolu_1');
  assert.match(watched.hookSpecificOutput?.additionalContext ?? '', /changed a file another agent holds exclusively: src\/f7\.ts /);
  assert.equal((await shellCall(project, 'true', 'toolu_2')).hookSpecificOutput, undefined, 'a call that changed nothing: nothing reported');
  server.child.kill('SIGKILL');
  await server.exited;
  assert.equal(notice(), true, 'a killed server leaves its notice; its pid tells it is gone');
  const fallback = await shellCall(project, "node -e \"require('fs').appendFileSync('src/f9.ts', 'x')\"", 'toolu_3');
  assert.match(fallback.hookSpecificOutput?.additionalContext ?? '', /changed a file another agent holds exclusively: src\/f9\.ts /);
  assert.deepEqual(readdirSync(shellDirOf(project)).filter((n) => !n.startsWith('watch-')), [], 'no record, ask or answer is left');
});

test('one server of a project keeps its shell watch; when it is killed, another starts one at the next change of the state', { skip }, async (t) => {
  const project = await heldProject(t, 3);
  const first = startServer(t, { project, env: { OPENCOMMS_HOST: 'mcp' } });
  await first.initialize();
  const notices = () => (existsSync(shellDirOf(project)) ? readdirSync(shellDirOf(project)).filter((n) => n.startsWith('watch-')) : []);
  await until('the first server\'s watch', () => notices().includes(`watch-${first.child.pid}.json`));
  const second = startServer(t, { project, env: { OPENCOMMS_HOST: 'mcp' } });
  await second.initialize();
  await second.callTool('opencomms_status'); // its push side (and the look at the watch) is up once a tool has answered
  assert.deepEqual(notices(), [`watch-${first.child.pid}.json`], 'the second server leaves the watch to the first');
  first.child.kill('SIGKILL');
  await first.exited;
  const store = openStore({ projectDir: project });
  await store.mutate((state, ctx) => reservePaths(state, { channel: 'review', session_id: HOLDER, paths: ['lib/x.ts'], exclusive: true, reason: null, project_dir: project }, ctx));
  await until('the second server\'s watch', () => notices().includes(`watch-${second.child.pid}.json`));
});

