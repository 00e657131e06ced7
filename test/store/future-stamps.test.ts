// Hostile checkouts: a repository can commit `.opencomms/.state.lock` and the
// lock's queue (tickets and their `.change` files) with any stamp in them. A
// time from the future is never believed (engine isBelievableTime): the lock
// then ages by its file's mtime, a ticket is dead at once, and a change is
// applied only for a live waiter of this very boot, never as a person.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createChannel, joinChannel } from '../../src/engine';
import type { ToolResult } from '../../src/engine/types';
import { openStore, type Store } from '../../src/store';
import { LOCK_STALE_MS, queueDirOf } from '../../src/store/file/lock';
import { isAbandoned, isServableTicket, isTicketAbandoned, stampAgeMs } from '../../src/store/file/lock-stamp';
import { NODE_FS } from '../../src/files/fs-port';
import { tempProject } from './helpers';
import { edit } from '../helpers/edit';

const FAR_AHEAD_MS = 10 * 365 * 86_400_000;
const base = { channel: 'shared', role_prompt: 'p', delivery_mode: 'pull', project_id: 'future-project' } as const;

async function setUp(t: TestContext): Promise<{ dir: string; store: Store; lockPath: string }> {
  const dir = tempProject(t);
  const store = openStore({ projectDir: dir });
  await edit(store, (s, ctx) => {
    const created = createChannel(s, { ...base, worktree: dir, role: 'inbox', session_id: 'inbox', rate_limit: 1_000 }, ctx);
    for (const member of ['a', 'b']) assert.equal(joinChannel(s, { ...base, worktree: dir, role: member, session_id: member }, ctx).ok, true);
    return created;
  });
  return { dir, store, lockPath: join(dir, '.opencomms', '.state.lock') };
}

const send = (store: Store, dir: string, member: string, content: string): Promise<ToolResult> =>
  store.mutate('send', { member, channel: 'shared', content, to: 'inbox', broadcast: false }, { member });

const contents = (store: Store): string[] => Object.values(store.snapshot().messages).map((e) => `${e.sender_session_id}: ${e.content}`).sort();

// A file as a checkout leaves it: written now, or with its mtime moved back to when the checkout was made.
function commit(path: string, text: string, checkedOutMsAgo = 0): void {
  writeFileSync(path, text);
  const when = new Date(Date.now() - checkedOutMsAgo);
  utimesSync(path, when, when);
}

function plantTicket(lockPath: string, stamp: Record<string, unknown>, change: { member: string; content: string }): string {
  const queue = queueDirOf(lockPath);
  mkdirSync(queue, { recursive: true, mode: 0o700 });
  // The smallest name sorts first: the planted ticket stands at the head of every queue.
  const ticket = join(queue, `000000000000001.${String(stamp.pid)}.0000abcd`);
  commit(ticket, JSON.stringify(stamp));
  const proposal = {
    seed: 'e'.repeat(32),
    change: { kind: 'send', member: change.member, args: { channel: 'shared', content: change.content, to: 'inbox', broadcast: false } },
  };
  commit(`${ticket}.change`, `opencomms-change 1\n${JSON.stringify(proposal)}`);
  return ticket;
}

test('a committed .state.lock stamped far in the future ages by its file: once the checkout is older than the stale time, a send goes through at once', { timeout: 30_000 }, async (t) => {
  const { dir, store, lockPath } = await setUp(t);
  const stamp = { pid: 4242, host: 'build-box', t: Date.now() + FAR_AHEAD_MS, token: 'f'.repeat(32) };
  commit(lockPath, JSON.stringify(stamp), LOCK_STALE_MS + 5_000);
  const started = Date.now();
  const result = await send(store, dir, 'a', 'hello');
  assert.equal(result.ok, true, result.message);
  assert.ok(Date.now() - started < 2_000, `the send waited ${Date.now() - started} ms behind a lock nobody holds`);
  assert.deepEqual(contents(store), ['a: hello']);
});

test('doctor --fix removes a committed lock stamped far in the future once its file is older than the stale time', async (t) => {
  const { store, lockPath } = await setUp(t);
  commit(lockPath, JSON.stringify({ pid: 4242, host: 'build-box', t: Date.now() + FAR_AHEAD_MS, token: 'f'.repeat(32) }), LOCK_STALE_MS + 5_000);
  const report = await store.check({ fix: true });
  const lock = report.checks.find((c) => c.name === 'lock');
  assert.equal(lock?.fixed, true, lock?.message);
  assert.equal(existsSync(lockPath), false);
});

test('a lock stamp from the future is judged by the file\'s mtime, and by nothing when that is from the future too', () => {
  const options = { port: NODE_FS, lockPath: '/nonexistent/.state.lock', host: 'this-box' };
  const at = 1_800_000_000_000;
  const owner = { pid: 4242, host: 'build-box', t: at + FAR_AHEAD_MS, token: 'f'.repeat(32) };
  assert.equal(isAbandoned(options, owner, { mtimeMs: at - 1_000, size: 80 }, at), false, 'a fresh checkout holds for the stale time');
  assert.equal(stampAgeMs(owner, { mtimeMs: at - 1_000 }, at), 1_000);
  assert.equal(isAbandoned(options, owner, { mtimeMs: at - LOCK_STALE_MS - 1, size: 80 }, at), true);
  assert.equal(isAbandoned(options, owner, { mtimeMs: at + FAR_AHEAD_MS, size: 80 }, at), true, 'a file with no believable time is abandoned');
  // Within the slack, a peer whose clock runs a little ahead is believed as before.
  assert.equal(isAbandoned(options, { ...owner, t: at + 5_000 }, { mtimeMs: at - LOCK_STALE_MS - 1, size: 80 }, at), false);
});

test('a committed queue ticket stamped in the future is dead at once and its change is never applied, as another member or as a person', { timeout: 30_000 }, async (t) => {
  const { dir, store, lockPath } = await setUp(t);
  const far = Date.now() + FAR_AHEAD_MS;
  const asMember = plantTicket(lockPath, { pid: 4242, host: 'build-box', t: far, token: 'f'.repeat(32) }, { member: 'b', content: 'planted as b' });
  assert.equal((await send(store, dir, 'a', 'real')).ok, true);
  assert.deepEqual(contents(store), ['a: real']);
  // Deleted by the first waiter that met it, so it holds no waiter back (a live head costs each burst two polls).
  assert.equal(existsSync(asMember), false, 'the dead ticket was deleted');
  assert.equal(existsSync(`${asMember}.change`), false, 'and its change with it');
  const asPerson = plantTicket(lockPath, { pid: 4243, host: 'build-box', t: far, token: 'e'.repeat(32) }, { member: 'person-user', content: 'planted as a person' });
  assert.equal((await send(store, dir, 'a', 'again')).ok, true);
  assert.deepEqual(contents(store), ['a: again', 'a: real']);
  assert.equal(existsSync(asPerson), false);
});

test('a ticket naming a live process that is not a waiter of this boot (no namespace of ours) keeps its place, but its change is never applied', { timeout: 30_000 }, async (t) => {
  const { dir, store, lockPath } = await setUp(t);
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up\\n"); setInterval(() => {}, 1e9)']);
  t.after(() => child.kill('SIGKILL'));
  await once(child.stdout!, 'data');
  // Our host name and a live pid, as a stamp of the three-field kind: a repository can write that, not our boot id.
  const planted = plantTicket(lockPath, { pid: child.pid, host: hostname(), t: Date.now(), token: 'd'.repeat(32) }, { member: 'b', content: 'planted as b' });
  assert.equal((await send(store, dir, 'a', 'real')).ok, true);
  assert.deepEqual(contents(store), ['a: real']);
  assert.equal(existsSync(`${planted}.change`), true, 'left where it was, unapplied');
});

test('a ticket is served only while its stamp is fresh, not from the future, and names a live process of this boot and namespace', async (t) => {
  const dir = tempProject(t);
  const lockPath = join(dir, '.state.lock');
  const place = { ns: 'boot-1/4026531836', start: 100, isProcOurs: true };
  const options = { port: NODE_FS, lockPath, host: 'this-box', place, isPidAlive: () => true, processStart: () => 100 };
  const at = 1_800_000_000_000;
  const file = { mtimeMs: at, size: 80 };
  const waiter = { pid: 77, host: 'this-box', t: at - 1_000, token: 'a'.repeat(32), ns: place.ns, start: 100 };
  assert.equal(isServableTicket(options, waiter, file, at), true);
  assert.equal(isServableTicket(options, { ...waiter, t: at + FAR_AHEAD_MS }, file, at), false, 'from the future');
  assert.equal(isTicketAbandoned(options, { ...waiter, t: at + FAR_AHEAD_MS }, file, at), true, 'and dead');
  assert.equal(isServableTicket(options, { ...waiter, t: at - LOCK_STALE_MS - 1 }, file, at), false, 'not re-stamped for the stale time');
  assert.equal(isServableTicket(options, { ...waiter, ns: undefined }, file, at), false, 'no namespace of ours');
  assert.equal(isServableTicket(options, { ...waiter, ns: 'boot-2/4026531836' }, file, at), false, 'another boot');
  assert.equal(isServableTicket(options, { ...waiter, host: 'build-box' }, file, at), false, 'another host');
  assert.equal(isServableTicket(options, { ...waiter, start: 99 }, file, at), false, 'a reused pid');
  assert.equal(isServableTicket({ ...options, isPidAlive: () => false }, waiter, file, at), false, 'a dead waiter');
  assert.deepEqual(readdirSync(dir), []);
});
