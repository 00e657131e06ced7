// Changes written as data (store/waiting-changes.ts): a change waiting in the
// lock's queue is applied by whoever holds the lock, through the engine's
// table, in one rewrite with its own change, and answered in place; a change
// is never applied twice (even when its holder dies between its rewrite and
// its answers), a change that throws or is refused fails alone, and a dead
// waiter's change is never applied at all.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createChannel, joinChannel, LOCAL_PRESENCE_RENEW_MS, personSay, recordPresence } from '../../src/engine';
import { thisRecordedProcess } from '../../src/process/liveness';
import type { EngineCtx, HistoryRecord, State, ToolResult } from '../../src/engine/types';
import { openStore, type Store } from '../../src/store';
import { claimLock, queueDirOf, releaseLock } from '../../src/store/file/lock';
import { sleepUntilChanged } from '../../src/store/file/lock-queue';
import { NODE_FS } from '../../src/files/fs-port';
import { readChangeFile } from '../../src/store/file/waiting-changes';
import { until } from '../helpers/wait';
import { seededRandom } from '../helpers/seeded-random';
import { runBurst } from './burst';
import { tempProject } from './helpers';
import { edit } from '../helpers/edit';

const SENDER = join(__dirname, '..', '..', '..', 'test', 'store', 'fixtures', 'shared-sender.cjs');
const DYING_HOLDER = join(__dirname, '..', '..', '..', 'test', 'store', 'fixtures', 'dying-holder.cjs');
const base = { channel: 'shared', role_prompt: 'p', delivery_mode: 'pull', project_id: 'shared-project' } as const;

async function setUp(t: TestContext): Promise<{ dir: string; store: Store }> {
  const dir = tempProject(t);
  const store = openStore({ projectDir: dir });
  await edit(store, (s, ctx) => {
    const created = createChannel(s, { ...base, worktree: dir, role: 'inbox', session_id: 'inbox', rate_limit: 1_000 }, ctx);
    for (const member of ['a', 'b', 'c']) assert.equal(joinChannel(s, { ...base, worktree: dir, role: member, session_id: member }, ctx).ok, true);
    return created;
  });
  return { dir, store };
}

const send = (store: Store, _dir: string, member: string, content: string): Promise<ToolResult> =>
  store.mutate('send', { member, channel: 'shared', content, to: 'inbox', broadcast: false }, { member });

const generationOf = (dir: string): number => JSON.parse(readFileSync(join(dir, '.opencomms', 'state.json'), 'utf8').split('\n')[0]!).generation as number;
const contents = (store: Store): string[] => Object.values(store.snapshot().messages).map((e) => e.content).sort();
const changeFiles = (dir: string): string[] => {
  const queue = queueDirOf(join(dir, '.opencomms', '.state.lock'));
  return existsSync(queue) ? readdirSync(queue).filter((name) => name.endsWith('.change')) : [];
};

// Change files that hold a whole waiting change: a sender creates its file, then writes it, and a
// holder that reads it in between skips it (its waiter then applies the change itself, in a rewrite
// of its own), so a test that counts on one rewrite waits for the whole change.
const waitingChangeCount = (dir: string): number => {
  const queue = queueDirOf(join(dir, '.opencomms', '.state.lock'));
  return changeFiles(dir).filter((name) => readChangeFile(NODE_FS, join(queue, name))?.kind === 'waiting').length;
};

interface Sender {
  result: Promise<ToolResult>;
  /** Lets the sender send (it has recorded its presence and waits for this). */
  go: () => void;
  kill: () => void;
  pid: number;
}

// A sender process that has recorded itself for its member (or for `speaksFor`), as a server does at its first call.
async function startSender(dir: string, member: string, content: string, speaksFor = member, rawArgs?: unknown): Promise<Sender> {
  const extra = rawArgs === undefined ? [] : [JSON.stringify(rawArgs)];
  const child = spawn(process.execPath, [SENDER, dir, member, 'inbox', content, speaksFor, ...extra], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let markPresent!: () => void;
  const present = new Promise<void>((resolve) => (markPresent = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.startsWith('present\n')) markPresent();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  child.stdin.on('error', () => undefined);
  const exited = once(child, 'exit');
  const result = exited.then(() => {
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line === undefined) throw new Error(`the sender printed no result: ${err}`);
    return JSON.parse(line) as ToolResult;
  });
  await Promise.race([present, exited.then(() => { throw new Error(`the sender ended before it was present: ${err}`); })]);
  return { result, go: () => child.stdin.end('go\n'), kill: () => child.kill('SIGKILL'), pid: child.pid! };
}

// This process, recorded as speaking for `member` (as the server of that member would be).
const speakFor = (store: Store, member: string): Promise<ToolResult> => edit(store, (s, ctx) => {
  recordPresence(s, member, { ...thisRecordedProcess(), kind: 'server' }, ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  return { ok: true, message: 'present' };
});

test('sends waiting in the queue are applied by the holder in one commit with its own, and each waiter gets its own answer without taking the lock', { timeout: 30_000 }, async (t) => {
  const { dir, store } = await setUp(t);
  const lockPath = join(dir, '.opencomms', '.state.lock');
  const waiters = await Promise.all([startSender(dir, 'a', 'from a'), startSender(dir, 'b', 'from b')]);
  t.after(() => waiters.forEach((w) => w.kill()));
  await speakFor(store, 'c');
  const held = await claimLock({ port: NODE_FS, lockPath, host: hostname() });
  waiters.forEach((w) => w.go());
  await until('both senders waiting in the queue with their change', () => waitingChangeCount(dir) === 2);
  // A third sender, in this process, waits behind them: whoever gets the lock first serves the others.
  const own = send(store, dir, 'c', 'from c');
  await until('the third change waiting too', () => waitingChangeCount(dir) === 3);
  const before = generationOf(dir);
  releaseLock(NODE_FS, held);
  const results = await Promise.all([...waiters.map((w) => w.result), own]);
  for (const result of results) assert.equal(result.ok, true, result.message);
  assert.deepEqual(results.map((r) => (r.data?.recipients as string[])[0]), ['inbox', 'inbox', 'inbox']);
  const ids = results.map((r) => (r.data?.message_ids as string[])[0]);
  assert.equal(new Set(ids).size, 3, 'each answer names its own message');
  assert.deepEqual(contents(store), ['from a', 'from b', 'from c']);
  assert.equal(generationOf(dir), before + 1, 'the three sends were committed in one save');
  assert.deepEqual(changeFiles(dir), [], 'no change left in the queue');
});

test('a send waiting behind a dead waiter\'s ticket is served, and the dead waiter\'s change is deleted, never applied', { timeout: 30_000 }, async (t) => {
  const { dir, store } = await setUp(t);
  const lockPath = join(dir, '.opencomms', '.state.lock');
  const doomed = await startSender(dir, 'a', 'never sent');
  const held = await claimLock({ port: NODE_FS, lockPath, host: hostname() });
  doomed.go();
  await until('the doomed sender waiting with its change', () => waitingChangeCount(dir) === 1);
  doomed.kill();
  await doomed.result.catch(() => undefined);
  assert.equal(changeFiles(dir).length, 1, 'a killed waiter leaves its change behind');
  releaseLock(NODE_FS, held);
  const result = await send(store, dir, 'b', 'from b');
  assert.equal(result.ok, true, result.message);
  assert.deepEqual(contents(store), ['from b']);
  assert.deepEqual(changeFiles(dir), [], 'the dead waiter\'s change was deleted');
});

test('a holder applies the waiting change of a live process that no presence record names (a hook, a fresh process) as it applies any other: in its one rewrite', { timeout: 30_000 }, async (t) => {
  const { dir, store } = await setUp(t);
  const lockPath = join(dir, '.opencomms', '.state.lock');
  // A live process of this boot recorded for nobody of the channel, leaving a change that names b.
  const other = await startSender(dir, 'b', 'as b', 'nobody-here');
  t.after(() => other.kill());
  const held = await claimLock({ port: NODE_FS, lockPath, host: hostname() });
  const own = send(store, dir, 'c', 'from c');
  await until('this process waiting first in the queue', () => waitingChangeCount(dir) === 1);
  other.go();
  await until('the other change waiting behind it', () => waitingChangeCount(dir) === 2);
  const before = generationOf(dir);
  releaseLock(NODE_FS, held);
  const [mine, theirs] = await Promise.all([own, other.result]);
  assert.equal(mine.ok, true, mine.message);
  assert.equal(theirs.ok, true, theirs.message);
  assert.equal(generationOf(dir), before + 1, 'the holder committed both in one rewrite');
  assert.deepEqual(contents(store), ['as b', 'from c']);
});

// A holder (its own process) that dies at `when` while it commits its own send and the waiter's behind it.
async function holderDyingAt(t: TestContext, when: 'saved' | 'prepared'): Promise<void> {
  const { dir, store } = await setUp(t);
  const lockPath = join(dir, '.opencomms', '.state.lock');
  const waiter = await startSender(dir, 'a', 'from a');
  t.after(() => waiter.kill());
  const held = await claimLock({ port: NODE_FS, lockPath, host: hostname() });
  const holder = spawn(process.execPath, [DYING_HOLDER, dir, 'c', 'from c', when], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => holder.kill('SIGKILL'));
  const holderExit = once(holder, 'exit');
  await until('the holder-to-be waiting first in the queue', () => waitingChangeCount(dir) === 1);
  waiter.go();
  await until('the sender waiting behind it', () => waitingChangeCount(dir) === 2);
  releaseLock(NODE_FS, held);
  const [, signal] = await holderExit;
  assert.equal(signal, 'SIGKILL', 'the holder died where it was told to');
  const theirs = await waiter.result;
  assert.equal(theirs.ok, true, theirs.message);
  const messages = Object.values(store.snapshot().messages);
  assert.equal(messages.filter((m) => m.content === 'from a').length, 1, 'the waiter\'s send is in the state exactly once');
  assert.deepEqual(theirs.data?.message_ids, messages.filter((m) => m.content === 'from a').map((m) => m.message_id), 'its answer names that message');
  // The holder's own send is in exactly when its rewrite happened.
  assert.equal(messages.filter((m) => m.content === 'from c').length, when === 'saved' ? 1 : 0);
  assert.deepEqual(changeFiles(dir), [], 'no change left in the queue');
}

test('a holder killed between its rewrite and its answers: the waiter takes the lock, finds its answer prepared for the rewrite state.json carries, and returns it without applying its change again', { timeout: 30_000 }, async (t) => {
  await holderDyingAt(t, 'saved');
});

test('a holder killed after it prepared an answer but before its rewrite: the rewrite never happened, so the waiter applies its change itself, once', { timeout: 30_000 }, async (t) => {
  await holderDyingAt(t, 'prepared');
});

test('a waiter that takes the lock and finds an answer prepared for the commit state.json carries returns it: its change is in the state already', async (t) => {
  const { dir, store } = await setUp(t);
  assert.equal((await send(store, dir, 'a', 'first')).ok, true);
  const commit = /"commit":"([0-9a-f]{16})"/.exec(readFileSync(join(dir, '.opencomms', 'state.json'), 'utf8'))?.[1];
  assert.ok(commit, 'every rewrite names its commit in the head of state.json');
  // This process waits; a holder saved its change in that commit and died before it answered.
  const lockPath = join(dir, '.opencomms', '.state.lock');
  const held = await claimLock({ port: NODE_FS, lockPath, host: hostname() });
  const pending = send(store, dir, 'b', 'second');
  await until('this process waiting in the queue', () => waitingChangeCount(dir) === 1);
  const [changeName] = changeFiles(dir);
  const changePath = join(queueDirOf(lockPath), changeName!);
  const waiting = readChangeFile(NODE_FS, changePath);
  assert.equal(waiting?.kind, 'waiting');
  const answer = { ok: true, message: 'prepared by a holder that stopped' };
  writeFileSync(changePath, `opencomms-prepared 2\n${JSON.stringify({ change: waiting.kind === 'waiting' ? waiting.change : undefined, commit, result: answer })}`);
  releaseLock(NODE_FS, held);
  const result = await pending;
  assert.deepEqual(result, answer, 'the prepared answer stands: the change is in the state already');
  assert.deepEqual(contents(store), ['first'], 'and it was not applied again');
});

test('a change file is read only when whole and well formed: half a file, another tool\'s text, a bad seed or a bad commit is no change at all', (t) => {
  const dir = tempProject(t);
  const path = join(dir, 'x.change');
  const seed = '0123456789abcdef0123456789abcdef';
  const cases: [string, string][] = [
    ['cut short', `opencomms-change 2\n{"op":"send","args":{},"seed":"${seed}","at":1`],
    ['not ours', `{"seed":"${seed}"}`],
    ['an older format', `opencomms-change 1\n{"seed":"${seed}","change":{"kind":"send","member":"a","args":{}}}`],
    ['bad seed', 'opencomms-change 2\n{"op":"send","args":{},"seed":"xyz","at":1}'],
    ['no time', `opencomms-change 2\n{"op":"send","args":{},"seed":"${seed}"}`],
    ['no op', `opencomms-change 2\n{"args":{},"seed":"${seed}","at":1}`],
    ['prepared without a commit', `opencomms-prepared 2\n{"change":{"op":"send","args":{},"seed":"${seed}","at":1},"result":{"ok":true,"message":"m"}}`],
    ['result without ok', 'opencomms-result 1\n{"message":"x"}'],
  ];
  for (const [what, text] of cases) {
    writeFileSync(path, text);
    assert.equal(readChangeFile(NODE_FS, path), undefined, what);
  }
  writeFileSync(path, `opencomms-change 2\n{"op":"send","args":{"channel":"c"},"member":"a","seed":"${seed}","at":1}`);
  assert.equal(readChangeFile(NODE_FS, path)?.kind, 'waiting');
  writeFileSync(path, `opencomms-prepared 2\n{"change":{"op":"send","args":{},"seed":"${seed}","at":1},"commit":"00112233aabbccdd","result":{"ok":true,"message":"m"}}`);
  assert.equal(readChangeFile(NODE_FS, path)?.kind, 'prepared');
});

test('a send whose arguments are malformed (a hand-made change) is refused with invalid_argument, not applied', async (t) => {
  const { store } = await setUp(t);
  const result = await store.mutate('send', { member: 'a', channel: 'shared', content: 42 as unknown as string, broadcast: false }, { member: 'a' });
  assert.equal(result.ok, false);
  assert.equal(result.data?.reason, 'invalid_argument');
  assert.deepEqual(contents(store), []);
});

test('a send that speaks as a person (no send tool makes one) is refused with invalid_argument, never applied: it cannot lift a loop-guard pause', async (t) => {
  const { dir, store } = await setUp(t);
  await edit(store, (s, ctx) => {
    const said = personSay(s, {
      channel: 'shared', person_id: 'person-user', content: 'hi', role: null, type: null, project_id: base.project_id, worktree: dir,
      terminal: { tty: '/dev/pts/9', session_leader: 'bash (pid 1)' },
    }, ctx);
    s.channels.shared!.paused = true;
    s.channels.shared!.paused_reason = 'agent_streak';
    return said;
  });
  const before = contents(store);
  const result = await store.mutate('send', { member: 'person-user', channel: 'shared', content: 'go on', to: 'inbox', broadcast: false }, { member: 'person-user' });
  assert.equal(result.ok, false);
  assert.equal(result.data?.reason, 'invalid_argument');
  assert.deepEqual(contents(store), before);
  assert.equal(store.snapshot().channels.shared!.paused, true, 'the pause holds');
});

test('SIGKILLs at random moments of a burst of sends written down as waiting changes (a holder may die mid-batch, a waiter while its change waits): every acknowledged send is in the state once, none twice', { timeout: 120_000 }, async (t) => {
  const dir = tempProject(t);
  const random = seededRandom('group-commit kills', t);
  const outcome = await runBurst({ dir, writers: 16, sendsEach: 12, onCleanup: (fn) => t.after(fn), kills: { count: 6, withinMs: 600, random } });
  t.diagnostic(`${outcome.acked} sends acknowledged, wall ${outcome.wallMs.toFixed(0)} ms`);
  assert.deepEqual(outcome.refused, {}, 'sends refused');
  assert.ok(outcome.acked >= 16 * 12 - 6 * 12, `the writers not killed were all served (${outcome.acked} acknowledged)`);
  assert.equal(outcome.lost, 0, 'acknowledged sends lost');
  assert.equal(outcome.duplicated, 0, 'sends applied twice');
});

test('a waiter whose change was answered just before its watches started wakes at once, not at the end of its poll', async (t) => {
  const dir = tempProject(t);
  const ahead = join(dir, 'ahead');
  const change = join(dir, 'mine.change');
  writeFileSync(ahead, 'x');
  writeFileSync(change, 'opencomms-result 1\n{"ok":true,"message":"done"}');
  const options = { port: NODE_FS, lockPath: join(dir, '.state.lock'), host: hostname() };
  const started = Date.now();
  const isWoken = await sleepUntilChanged(options, ahead, 30_000, change, () => readChangeFile(NODE_FS, change)?.kind === 'answered');
  assert.equal(isWoken, true);
  assert.ok(Date.now() - started < 10_000, 'woke at once');
  assert.equal(await sleepUntilChanged(options, ahead, 50, change, () => false), false, 'with nothing answered it sleeps its time');
});

test('a change file whose ticket is gone (an answer that came after its waiter gave up) is deleted by the next holder that serves the queue', async (t) => {
  const { dir, store } = await setUp(t);
  assert.equal((await send(store, dir, 'a', 'first')).ok, true);
  const queue = queueDirOf(join(dir, '.opencomms', '.state.lock'));
  mkdirSync(queue, { recursive: true, mode: 0o700 });
  const orphan = join(queue, '001796540000000.4242.00010abc.change');
  writeFileSync(orphan, 'opencomms-result 1\n{"ok":true,"message":"late"}', { mode: 0o600 });
  assert.equal((await send(store, dir, 'b', 'second')).ok, true);
  assert.equal(existsSync(orphan), false);
  assert.deepEqual(contents(store), ['first', 'second']);
});

test('a waiting change that throws as the holder applies it fails alone: the holder commits its own, and the waiter applies its change itself and gets the error', { timeout: 30_000 }, async (t) => {
  const { dir, store } = await setUp(t);
  const lockPath = join(dir, '.opencomms', '.state.lock');
  // Arguments no send can take (null): the engine change throws on them, in any process.
  const waiter = await startSender(dir, 'a', 'unused', 'a', null);
  t.after(() => waiter.kill());
  await speakFor(store, 'c');
  const held = await claimLock({ port: NODE_FS, lockPath, host: hostname() });
  const own = send(store, dir, 'c', 'from c');
  await until('this process waiting first in the queue', () => waitingChangeCount(dir) === 1);
  waiter.go();
  await until('the other sender waiting behind it', () => waitingChangeCount(dir) === 2);
  releaseLock(NODE_FS, held);
  const mine = await own;
  assert.equal(mine.ok, true, mine.message);
  await assert.rejects(waiter.result, /printed no result[\s\S]*TypeError/, 'the waiter got its own error');
  assert.deepEqual(contents(store), ['from c']);
  assert.deepEqual(changeFiles(dir), []);
});

test('a waiting change that is refused fails alone: its waiter gets the refusal from the holder, and nothing of it is in the state', { timeout: 30_000 }, async (t) => {
  const { dir, store } = await setUp(t);
  const lockPath = join(dir, '.opencomms', '.state.lock');
  const waiter = await startSender(dir, 'a', 'unused', 'a', { member: 'a', channel: 'shared', content: 'to nobody', to: 'nobody-here', broadcast: false });
  t.after(() => waiter.kill());
  const behind = await startSender(dir, 'b', 'from b');
  t.after(() => behind.kill());
  await speakFor(store, 'c');
  const held = await claimLock({ port: NODE_FS, lockPath, host: hostname() });
  const own = send(store, dir, 'c', 'from c');
  await until('this process waiting first in the queue', () => waitingChangeCount(dir) === 1);
  waiter.go();
  await until('the refused-to-be sender waiting', () => waitingChangeCount(dir) === 2);
  behind.go();
  await until('a good sender behind it', () => waitingChangeCount(dir) === 3);
  const before = generationOf(dir);
  releaseLock(NODE_FS, held);
  const [mine, refused, good] = await Promise.all([own, waiter.result, behind.result]);
  assert.equal(mine.ok, true, mine.message);
  assert.equal(good.ok, true, good.message);
  assert.equal(refused.ok, false);
  assert.equal(typeof refused.data?.reason, 'string');
  assert.deepEqual(contents(store), ['from b', 'from c']);
  // One rewrite when the holder served both; a waiter further back may take a lock its head was slow to
  // take (a loaded machine) and commit its own: never a rewrite for the refused change.
  assert.ok(generationOf(dir) <= before + 2, `rewrites: ${generationOf(dir) - before}`);
});
