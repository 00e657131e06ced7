// Group commit (store/shared-changes.ts): a send waiting in the lock's queue
// is applied by whoever holds the lock, in one commit with its own change,
// and answered in place; a change is never applied twice, and a dead
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
import { claimLock, queueDirOf, releaseLock } from '../../src/store/lock';
import { sleepUntilChanged } from '../../src/store/lock-queue';
import { NODE_FS } from '../../src/store/fs-port';
import { applyOnce, readChangeFile, type Proposal } from '../../src/store/shared-changes';
import { sendApplier } from '../../src/tools/message-tools';
import { until } from '../helpers/wait';
import { seededRandom } from '../helpers/seeded-random';
import { runBurst } from './burst';
import { tempProject } from './helpers';

const SENDER = join(__dirname, '..', '..', '..', 'test', 'store', 'fixtures', 'shared-sender.cjs');
const base = { channel: 'shared', role_prompt: 'p', delivery_mode: 'pull', project_id: 'shared-project' } as const;

async function setUp(t: TestContext): Promise<{ dir: string; store: Store }> {
  const dir = tempProject(t);
  const store = openStore({ projectDir: dir });
  await store.mutate((s, ctx) => {
    const created = createChannel(s, { ...base, worktree: dir, role: 'inbox', session_id: 'inbox', rate_limit: 1_000 }, ctx);
    for (const member of ['a', 'b', 'c']) assert.equal(joinChannel(s, { ...base, worktree: dir, role: member, session_id: member }, ctx).ok, true);
    return created;
  });
  return { dir, store };
}

const send = (store: Store, dir: string, member: string, content: string): Promise<ToolResult> =>
  store.mutateShared({ kind: 'send', member, args: { channel: 'shared', content, to: 'inbox', broadcast: false } }, sendApplier(dir));

const generationOf = (dir: string): number => JSON.parse(readFileSync(join(dir, '.opencomms', 'state.json'), 'utf8').split('\n')[0]!).generation as number;
const contents = (store: Store): string[] => Object.values(store.snapshot().messages).map((e) => e.content).sort();
const changeFiles = (dir: string): string[] => {
  const queue = queueDirOf(join(dir, '.opencomms', '.state.lock'));
  return existsSync(queue) ? readdirSync(queue).filter((name) => name.endsWith('.change')) : [];
};

interface Sender {
  result: Promise<ToolResult>;
  /** Lets the sender send (it has recorded its presence and waits for this). */
  go: () => void;
  kill: () => void;
  pid: number;
}

// A sender process that has recorded itself for its member (or for `speaksFor`), as a server does at its first call.
async function startSender(dir: string, member: string, content: string, speaksFor = member): Promise<Sender> {
  const child = spawn(process.execPath, [SENDER, dir, member, 'inbox', content, speaksFor], { stdio: ['pipe', 'pipe', 'pipe'] });
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
const speakFor = (store: Store, member: string): Promise<ToolResult> => store.mutate((s, ctx) => {
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
  await until('both senders waiting in the queue with their change', () => changeFiles(dir).length === 2);
  // A third sender, in this process, waits behind them: whoever gets the lock first serves the others.
  const own = send(store, dir, 'c', 'from c');
  await until('the third change waiting too', () => changeFiles(dir).length === 3);
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
  await until('the doomed sender waiting with its change', () => changeFiles(dir).length === 1);
  doomed.kill();
  await doomed.result.catch(() => undefined);
  assert.equal(changeFiles(dir).length, 1, 'a killed waiter leaves its change behind');
  releaseLock(NODE_FS, held);
  const result = await send(store, dir, 'b', 'from b');
  assert.equal(result.ok, true, result.message);
  assert.deepEqual(contents(store), ['from b']);
  assert.deepEqual(changeFiles(dir), [], 'the dead waiter\'s change was deleted');
});

test('a holder applies a waiting change only as a member its waiting process speaks for: one naming another member is left to its waiter', { timeout: 30_000 }, async (t) => {
  const { dir, store } = await setUp(t);
  const lockPath = join(dir, '.opencomms', '.state.lock');
  // A live process of this boot that speaks for a, leaving a change that names b.
  const other = await startSender(dir, 'b', 'as b', 'a');
  t.after(() => other.kill());
  const held = await claimLock({ port: NODE_FS, lockPath, host: hostname() });
  const own = send(store, dir, 'c', 'from c');
  await until('this process waiting first in the queue', () => changeFiles(dir).length === 1);
  other.go();
  await until('the other change waiting behind it', () => changeFiles(dir).length === 2);
  const before = generationOf(dir);
  releaseLock(NODE_FS, held);
  const [mine, theirs] = await Promise.all([own, other.result]);
  assert.equal(mine.ok, true, mine.message);
  assert.equal(theirs.ok, true, theirs.message);
  assert.equal(generationOf(dir), before + 2, 'the holder committed its own alone; the waiter committed its change itself');
  assert.deepEqual(contents(store), ['as b', 'from c']);
});

test('a send a holder committed but never answered is not applied again: found by its first message id, in the state or in the history', () => {
  const state = { channels: {}, messages: {} } as unknown as State;
  let found: HistoryRecord | undefined;
  const ctx = {
    now: () => 1_000, newId: () => { throw new Error('unseeded id'); }, nonce: () => 'n', hash32: () => 'h',
    history: { find: (_channel: string, id: string) => (found?.message_id === id ? found : undefined), list: () => [] },
  } as unknown as EngineCtx;
  const proposal: Proposal = { seed: '0123456789abcdef0123456789abcdef', change: { kind: 'send', member: 'a', args: { channel: 'shared' } } };
  let applied = 0;
  const apply = (s: State, _change: unknown, seeded: EngineCtx): ToolResult => {
    applied += 1;
    const id = seeded.newId('ocm_');
    s.channels.chn = { id: 'chn', name: 'shared' } as State['channels'][string];
    s.messages[id] = { message_id: id, channel_id: 'chn', delivery_status: 'pending' } as State['messages'][string];
    return { ok: true, message: 'queued', data: { message_ids: [id] } };
  };
  const first = applyOnce(state, proposal, ctx, apply);
  const again = applyOnce(state, proposal, ctx, apply);
  assert.equal(applied, 1);
  assert.equal(again.ok, true);
  assert.match(again.message, /not sent again/);
  assert.deepEqual(again.data?.message_ids, first.data?.message_ids);
  // Delivered and moved to the history since: still known.
  const id = (first.data?.message_ids as string[])[0]!;
  found = { message_id: id } as HistoryRecord;
  delete state.messages[id];
  assert.match(applyOnce(state, proposal, ctx, apply).message, /not sent again/);
  assert.equal(applied, 1);
});

test('a change file is read only when whole and well formed: half a file, another tool\'s text or a bad seed is no change at all', (t) => {
  const dir = tempProject(t);
  const path = join(dir, 'x.change');
  const cases: [string, string][] = [
    ['cut short', 'opencomms-change 1\n{"seed":"0123456789abcdef0123456789abcdef","change":{"kind":"se'],
    ['not ours', '{"seed":"0123456789abcdef0123456789abcdef"}'],
    ['bad seed', 'opencomms-change 1\n{"seed":"xyz","change":{"kind":"send","member":"a","args":{}}}'],
    ['unknown kind', 'opencomms-change 1\n{"seed":"0123456789abcdef0123456789abcdef","change":{"kind":"drop","member":"a","args":{}}}'],
    ['result without ok', 'opencomms-result 1\n{"message":"x"}'],
  ];
  for (const [what, text] of cases) {
    writeFileSync(path, text);
    assert.equal(readChangeFile(NODE_FS, path), undefined, what);
  }
  writeFileSync(path, 'opencomms-change 1\n{"seed":"0123456789abcdef0123456789abcdef","change":{"kind":"send","member":"a","args":{"channel":"c"}}}');
  assert.equal(readChangeFile(NODE_FS, path)?.kind, 'waiting');
});

test('a shared send whose arguments are malformed (a hand-made change) is refused with invalid_argument, not applied', async (t) => {
  const { dir, store } = await setUp(t);
  const result = await store.mutateShared({ kind: 'send', member: 'a', args: { channel: 'shared', content: 42, broadcast: false } }, sendApplier(dir));
  assert.equal(result.ok, false);
  assert.equal(result.data?.reason, 'invalid_argument');
  assert.deepEqual(contents(store), []);
});

test('a shared send that speaks as a person (no send tool makes one) is refused with invalid_argument, never applied: it cannot lift a loop-guard pause', async (t) => {
  const { dir, store } = await setUp(t);
  await store.mutate((s, ctx) => {
    const said = personSay(s, {
      channel: 'shared', person_id: 'person-user', content: 'hi', role: null, type: null, project_id: base.project_id, worktree: dir,
      terminal: { tty: '/dev/pts/9', session_leader: 'bash (pid 1)' },
    }, ctx);
    s.channels.shared!.paused = true;
    s.channels.shared!.paused_reason = 'agent_streak';
    return said;
  });
  const before = contents(store);
  const result = await store.mutateShared({ kind: 'send', member: 'person-user', args: { channel: 'shared', content: 'go on', to: 'inbox', broadcast: false } }, sendApplier(dir));
  assert.equal(result.ok, false);
  assert.equal(result.data?.reason, 'invalid_argument');
  assert.deepEqual(contents(store), before);
  assert.equal(store.snapshot().channels.shared!.paused, true, 'the pause holds');
});

test('SIGKILLs at random moments of a burst of group commits (a holder may die mid-batch, a waiter while its change waits): every acknowledged send is in the state once, none twice', { timeout: 120_000 }, async (t) => {
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

test('a waiting change that throws as the holder applies it does not fail the holder\'s own change: the holder commits its own alone, and the waiter applies its change itself', { timeout: 30_000 }, async (t) => {
  const { dir, store } = await setUp(t);
  const lockPath = join(dir, '.opencomms', '.state.lock');
  const real = sendApplier(dir);
  // This process's applier breaks on one text; the waiter's own (in its own process) does not.
  const brittle = (s: State, change: Parameters<typeof real>[1], ctx: EngineCtx): ToolResult => {
    if (change.args.content === 'breaks the holder') throw new Error('applier failure');
    return real(s, change, ctx);
  };
  const waiter = await startSender(dir, 'a', 'breaks the holder');
  t.after(() => waiter.kill());
  const held = await claimLock({ port: NODE_FS, lockPath, host: hostname() });
  const own = store.mutateShared({ kind: 'send', member: 'c', args: { channel: 'shared', content: 'from c', to: 'inbox', broadcast: false } }, brittle);
  await until('this process waiting first in the queue', () => changeFiles(dir).length === 1);
  waiter.go();
  await until('the other sender waiting behind it', () => changeFiles(dir).length === 2);
  releaseLock(NODE_FS, held);
  const [mine, theirs] = await Promise.all([own, waiter.result]);
  assert.equal(mine.ok, true, mine.message);
  assert.equal(theirs.ok, true, theirs.message);
  assert.deepEqual(contents(store), ['breaks the holder', 'from c']);
  assert.deepEqual(changeFiles(dir), []);
});
