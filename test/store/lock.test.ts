import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { claimLock, LOCK_REFRESH_MS, parseLockOwner, queueDirOf, refreshLock, releaseLock } from '../../src/store/file/lock';
import { takeTicket, ticketAhead } from '../../src/store/file/lock-queue';
import { until } from '../helpers/wait';
import { isPidAlive } from '../../src/process/liveness';
import { FsPort, NODE_FS } from '../../src/files/fs-port';
import { processStartTicks } from '../../src/process/place';
import { faultyFsByPath, tempFilesIn, tempProject } from './helpers';

const HOST = hostname();

function lockIn(dir: string): string {
  return join(dir, '.state.lock');
}

function stamp(path: string, owner: { pid: number; host: string; t: number; token?: string; ns?: string; start?: number }): string {
  const text = JSON.stringify(owner);
  writeFileSync(path, text);
  return text;
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid as number;
}

async function liveChild(t: { after(fn: () => void): void }): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up\\n"); setInterval(() => {}, 1e9)']);
  t.after(() => child.kill('SIGKILL'));
  await once(child.stdout!, 'data');
  return child;
}

test('claims and releases the lock, stamping pid, host, t and token', async (t) => {
  const dir = tempProject(t);
  const lock = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  const owner = parseLockOwner(readFileSync(lockIn(dir)));
  assert.deepEqual(owner, lock.owner);
  assert.equal(owner?.pid, process.pid);
  assert.match(owner?.token ?? '', /^[0-9a-f]{32}$/);
  releaseLock(NODE_FS, lock);
  assert.equal(existsSync(lockIn(dir)), false);
});

test('creates a missing state directory before locking', async (t) => {
  const dir = join(tempProject(t), 'deep', '.opencomms');
  const lock = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  releaseLock(NODE_FS, lock);
});

test('release leaves alone a lock that holds someone else\'s token', async (t) => {
  const dir = tempProject(t);
  const lock = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  const foreign = stamp(lockIn(dir), { pid: process.pid, host: HOST, t: Date.now(), token: 'f'.repeat(32) });
  releaseLock(NODE_FS, lock);
  assert.equal(readFileSync(lockIn(dir), 'utf8'), foreign);
});

function isStagedStamp(dir: string, p: unknown): boolean {
  return typeof p === 'string' && p.startsWith(join(dir, '.state.lock.')) && p.endsWith('.tmp');
}

for (const code of ['EACCES', 'EROFS', 'EMFILE', 'ENOSPC']) {
  test(`an ${code} on creating the lock's stamp fails at once with state_unwritable naming the lock`, async (t) => {
    const dir = tempProject(t);
    const port = faultyFsByPath([{ method: 'openSync', code, when: (p) => isStagedStamp(dir, p) }]);
    await assert.rejects(claimLock({ port, lockPath: lockIn(dir), host: HOST }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'state_unwritable');
      assert.ok(err.message.includes(lockIn(dir)));
      return true;
    });
    assert.equal(port.calls.filter((c) => c.method === 'openSync').length, 1);
  });
}

for (const code of ['EACCES', 'EROFS', 'EMLINK']) {
  test(`an ${code} on linking the lock into place fails with state_unwritable and leaves no file`, async (t) => {
    const dir = tempProject(t);
    const port = faultyFsByPath([{ method: 'linkSync', code }]);
    await assert.rejects(claimLock({ port, lockPath: lockIn(dir), host: HOST }), { code: 'state_unwritable' });
    assert.equal(existsSync(lockIn(dir)), false);
    assert.deepEqual(tempFilesIn(dir), []);
  });
}

test('where hard links are unsupported the lock is created directly, stamped, and released', async (t) => {
  const dir = tempProject(t);
  const port = faultyFsByPath([{ method: 'linkSync', code: 'EPERM' }]);
  const lock = await claimLock({ port, lockPath: lockIn(dir), host: HOST });
  assert.equal(parseLockOwner(readFileSync(lockIn(dir)))?.token, lock.owner.token);
  assert.deepEqual(tempFilesIn(dir), []);
  releaseLock(port, lock);
  assert.equal(existsSync(lockIn(dir)), false);
});

test('a failed stamp write never leaves a lock and reports state_unwritable', async (t) => {
  const dir = tempProject(t);
  const port = faultyFsByPath([{ method: 'writeSync', code: 'ENOSPC', when: (p) => isStagedStamp(dir, p) }]);
  await assert.rejects(claimLock({ port, lockPath: lockIn(dir), host: HOST }), { code: 'state_unwritable' });
  assert.equal(existsSync(lockIn(dir)), false);
  assert.deepEqual(tempFilesIn(dir), []);
});

test('times out with lock_timeout naming the lock file and the holder pid', async (t) => {
  const dir = tempProject(t);
  const held = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  t.after(() => releaseLock(NODE_FS, held));
  await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 60 }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'lock_timeout');
    assert.ok(err.message.includes(lockIn(dir)));
    assert.ok(err.message.includes(`pid ${process.pid}`));
    return true;
  });
});

test('waiting for the lock never blocks the event loop', async (t) => {
  const dir = tempProject(t);
  const held = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 100 }), { code: 'lock_timeout' });
  } finally {
    clearInterval(timer);
    releaseLock(NODE_FS, held);
  }
  assert.ok(ticks >= 5, `only ${ticks} timer ticks ran during the wait`);
});

test('a lock left by a dead pid on this host is broken within 100 ms', async (t) => {
  const dir = tempProject(t);
  const pid = await deadPid();
  stamp(lockIn(dir), { pid, host: HOST, t: Date.now(), token: 'a'.repeat(32) });
  const started = Date.now();
  const lock = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  assert.ok(Date.now() - started < 100, `took ${Date.now() - started} ms`);
  assert.equal(lock.owner.pid, process.pid);
  releaseLock(NODE_FS, lock);
  assert.deepEqual(tempFilesIn(dir), []);
});

test('breaking a dead holder\'s lock removes that holder\'s temp files only', async (t) => {
  const dir = tempProject(t);
  const pid = await deadPid();
  mkdirSync(join(dir, 'history'));
  const orphans = [join(dir, `.state.${pid}.0badc0de.tmp`), join(dir, 'history', `.chn_x.${pid}.12345678.tmp`)];
  const other = join(dir, `.state.${process.pid}.0badc0de.tmp`);
  for (const p of [...orphans, other]) writeFileSync(p, 'partial');
  stamp(lockIn(dir), { pid, host: HOST, t: Date.now(), token: 'a'.repeat(32) });
  releaseLock(NODE_FS, await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST }));
  for (const p of orphans) assert.equal(existsSync(p), false, p);
  assert.equal(existsSync(other), true);
});

test('a lock held by a live process is never stolen, however old its stamp', async (t) => {
  const dir = tempProject(t);
  const child = await liveChild(t);
  // the stamp names the child's own start, as a real holder's does, so its age alone is what is tested
  const start = processStartTicks(child.pid as number);
  const text = stamp(lockIn(dir), { pid: child.pid as number, host: HOST, t: Date.now() - 3_600_000, token: 'b'.repeat(32), start });
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(lockIn(dir), old, old);
  await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 150 }), { code: 'lock_timeout' });
  assert.equal(readFileSync(lockIn(dir), 'utf8'), text);
  child.kill('SIGKILL');
  await once(child, 'exit');
  releaseLock(NODE_FS, await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 1000 }));
});

test('a lock from another host is broken only once its stamp is older than 15 s', async (t) => {
  const dir = tempProject(t);
  const text = stamp(lockIn(dir), { pid: 1, host: 'elsewhere', t: Date.now(), token: 'c'.repeat(32) });
  await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 50 }), { code: 'lock_timeout' });
  assert.equal(readFileSync(lockIn(dir), 'utf8'), text);
  stamp(lockIn(dir), { pid: 1, host: 'elsewhere', t: Date.now() - 16_000, token: 'c'.repeat(32) });
  const old = new Date(Date.now() - 16_000);
  utimesSync(lockIn(dir), old, old);
  releaseLock(NODE_FS, await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 50 }));
});

test('an unreadable stamp is judged by mtime alone', async (t) => {
  const dir = tempProject(t);
  writeFileSync(lockIn(dir), '');
  await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 40 }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'lock_timeout');
    assert.ok(err.message.includes('unknown holder'));
    return true;
  });
  const old = new Date(Date.now() - 20_000);
  utimesSync(lockIn(dir), old, old);
  releaseLock(NODE_FS, await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 50 }));
});

test('a lock stamped with our own pid but a token this process does not hold is broken at once (a restart reused the pid)', async (t) => {
  const dir = tempProject(t);
  const lockPath = lockIn(dir);
  stamp(lockPath, { pid: process.pid, host: HOST, t: Date.now(), token: 'c'.repeat(32) });
  const lock = await claimLock({ port: NODE_FS, lockPath, host: HOST, timeoutMs: 1_000 });
  assert.notEqual(lock.owner.token, 'c'.repeat(32));
  releaseLock(NODE_FS, lock);
});

test('a lock this process holds is never broken by another claimer in the same process', async (t) => {
  const dir = tempProject(t);
  const lockPath = lockIn(dir);
  const held = await claimLock({ port: NODE_FS, lockPath, host: HOST });
  await assert.rejects(claimLock({ port: NODE_FS, lockPath, host: HOST, timeoutMs: 60 }), { code: 'lock_timeout' });
  assert.equal(parseLockOwner(readFileSync(lockPath))?.token, held.owner.token);
  releaseLock(NODE_FS, held);
  const next = await claimLock({ port: NODE_FS, lockPath, host: HOST, timeoutMs: 1_000 });
  releaseLock(NODE_FS, next);
});

// Two waiters judged the same dead lock; the other one broke it and claimed a
// fresh lock before this one took the breaker. The breaker checks again under
// the breaker file and must leave the fresh lock alone.
test('a breaker removes only the very lock it judged: a fresh lock that replaced it stays', async (t) => {
  const dir = tempProject(t);
  const lockPath = lockIn(dir);
  stamp(lockPath, { pid: 999_999, host: HOST, t: Date.now(), token: 'd'.repeat(32) });
  const fresh = JSON.stringify({ pid: process.ppid, host: HOST, t: Date.now(), token: 'e'.repeat(32) });
  let isRaced = false;
  const port: FsPort = {
    ...NODE_FS,
    linkSync(existing, link) {
      if (link === `${lockPath}.break` && !isRaced) {
        isRaced = true;
        unlinkSync(lockPath);
        writeFileSync(lockPath, fresh, { flag: 'wx' });
      }
      NODE_FS.linkSync(existing, link);
    },
  };
  const isAlive = (pid: number) => pid !== 999_999;
  await assert.rejects(claimLock({ port, lockPath, host: HOST, timeoutMs: 60, isPidAlive: isAlive }), { code: 'lock_timeout' });
  assert.equal(isRaced, true);
  assert.equal(readFileSync(lockPath, 'utf8'), fresh);
  assert.equal(existsSync(`${lockPath}.break`), false, 'the breaker file is given back');
  assert.deepEqual(tempFilesIn(dir), []);
});

test('only one breaker at a time: a live breaker file makes other waiters leave the dead lock alone', async (t) => {
  const dir = tempProject(t);
  const lockPath = lockIn(dir);
  const dead = JSON.stringify({ pid: 999_999, host: HOST, t: Date.now(), token: 'd'.repeat(32) });
  writeFileSync(lockPath, dead);
  stamp(`${lockPath}.break`, { pid: process.ppid, host: HOST, t: Date.now(), token: 'b'.repeat(32) });
  const isAlive = (pid: number) => pid !== 999_999;
  await assert.rejects(claimLock({ port: NODE_FS, lockPath, host: HOST, timeoutMs: 60, isPidAlive: isAlive }), { code: 'lock_timeout' });
  assert.equal(readFileSync(lockPath, 'utf8'), dead);
});

test('a breaker file left by a dead breaker is cleared, and the dead lock is then broken', async (t) => {
  const dir = tempProject(t);
  const lockPath = lockIn(dir);
  stamp(lockPath, { pid: 999_999, host: HOST, t: Date.now(), token: 'd'.repeat(32) });
  stamp(`${lockPath}.break`, { pid: 999_998, host: HOST, t: Date.now(), token: 'b'.repeat(32) });
  const isAlive = (pid: number) => pid < 999_000;
  const lock = await claimLock({ port: NODE_FS, lockPath, host: HOST, timeoutMs: 1_000, isPidAlive: isAlive });
  assert.equal(parseLockOwner(readFileSync(lockPath))?.token, lock.owner.token);
  releaseLock(NODE_FS, lock);
  assert.equal(existsSync(`${lockPath}.break`), false);
  assert.deepEqual(tempFilesIn(dir), []);
});

test('a long holder re-stamps t so other hosts never judge it stale', async (t) => {
  const dir = tempProject(t);
  const lock = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  const first = lock.owner.t;
  refreshLock(NODE_FS, lock, first + 1);
  assert.equal(parseLockOwner(readFileSync(lockIn(dir)))?.t, first, 'no re-stamp before LOCK_REFRESH_MS');
  refreshLock(NODE_FS, lock, first + LOCK_REFRESH_MS + 1);
  const owner = parseLockOwner(readFileSync(lockIn(dir)));
  assert.equal(owner?.t, first + LOCK_REFRESH_MS + 1);
  assert.equal(owner?.token, lock.owner.token);
  releaseLock(NODE_FS, lock);
  refreshLock(NODE_FS, lock, first + 10 * LOCK_REFRESH_MS);
  assert.equal(existsSync(lockIn(dir)), false);
});

test('isPidAlive tells live from dead processes', async () => {
  assert.equal(isPidAlive(process.pid), true);
  assert.equal(isPidAlive(await deadPid()), false);
});

test('parseLockOwner rejects partial or foreign stamps', () => {
  assert.equal(parseLockOwner(Buffer.from('123@456')), undefined);
  assert.equal(parseLockOwner(Buffer.from('null')), undefined);
  assert.equal(parseLockOwner(Buffer.from('{"pid":"1","host":"h","t":1,"token":"x"}')), undefined);
});

function ticketsIn(dir: string): string[] {
  try {
    return readdirSync(queueDirOf(lockIn(dir))).sort();
  } catch {
    return [];
  }
}

function ticket(dir: string, owner: { pid: number; host: string; t: number; token?: string }): string {
  const queue = queueDirOf(lockIn(dir));
  mkdirSync(queue, { recursive: true, mode: 0o700 });
  const path = join(queue, `${String(owner.t).padStart(15, '0')}.${owner.pid}.0000abcd`);
  stamp(path, owner);
  return path;
}

test('a waiter learns the live ticket just ahead of it and how many are listed ahead (the pace of its poll); a dead one met on the way is deleted', async (t) => {
  const dir = tempProject(t);
  const options = { port: NODE_FS, lockPath: lockIn(dir), host: HOST };
  const first = takeTicket(options, Date.now())!;
  const second = takeTicket(options, Date.now())!;
  const third = takeTicket(options, Date.now())!;
  const fourth = takeTicket(options, Date.now())!;
  t.after(() => [first, second, third, fourth].forEach((tk) => releaseLock(NODE_FS, tk.handle)));
  const queue = queueDirOf(lockIn(dir));
  assert.equal(ticketAhead(options, first, Date.now()), undefined, 'the first in line has nobody ahead');
  assert.deepEqual(ticketAhead(options, fourth, Date.now()), { path: join(queue, third.name), count: 3 });
  // The third ticket's holder died: its file now names a pid that is gone.
  releaseLock(NODE_FS, third.handle);
  const dead = await deadPid();
  stamp(join(queue, third.name), { pid: dead, host: HOST, t: Date.now(), token: '7'.repeat(32) });
  assert.deepEqual(ticketAhead(options, fourth, Date.now()), { path: join(queue, second.name), count: 2 });
  assert.ok(!existsSync(join(queue, third.name)), 'the dead ticket was deleted by the waiter that met it');
});

test('a claimer queues behind a live waiter\'s ticket and leaves the free lock to it until that ticket goes', async (t) => {
  const dir = tempProject(t);
  const ahead = ticket(dir, { pid: (await liveChild(t)).pid as number, host: HOST, t: Date.now() - 1_000, token: '7'.repeat(32) });
  const claiming = claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 2_000 });
  await until('the claimer\'s own ticket', () => ticketsIn(dir).length === 2, { everyMs: 1 });
  assert.equal(existsSync(lockIn(dir)), false, 'the free lock was left for the waiter ahead');
  unlinkSync(ahead);
  releaseLock(NODE_FS, await claiming);
  assert.deepEqual(ticketsIn(dir), []);
});

test('a dead waiter\'s ticket, or one from an earlier process with our pid, never holds up the queue', async (t) => {
  const dir = tempProject(t);
  ticket(dir, { pid: await deadPid(), host: HOST, t: Date.now() - 2_000, token: '6'.repeat(32) });
  ticket(dir, { pid: process.pid, host: HOST, t: Date.now() - 1_000, token: '5'.repeat(32) });
  releaseLock(NODE_FS, await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 60 }));
  assert.deepEqual(ticketsIn(dir), [], 'the dead tickets were deleted');
});

test('the first waiter in the queue is woken by the release, and a holder claiming again queues behind it', async (t) => {
  const dir = tempProject(t);
  const held = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  const order: string[] = [];
  const first = claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 2_000 }).then((lock) => (order.push('waiter'), lock));
  await until('the waiter\'s ticket', () => ticketsIn(dir).length === 1, { everyMs: 1 });
  releaseLock(NODE_FS, held);
  const again = claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 2_000 }).then((lock) => (order.push('holder again'), lock));
  releaseLock(NODE_FS, await first);
  releaseLock(NODE_FS, await again);
  assert.deepEqual(order, ['waiter', 'holder again']);
  assert.deepEqual(ticketsIn(dir), []);
});

test('a head of the queue that froze (alive, never claiming) is overtaken once the lock has stayed free for two polls, not at the first', async (t) => {
  const dir = tempProject(t);
  const held = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  // A second process queues as the head behind our hold, then is frozen (SIGSTOP): its ticket stays alive.
  const lockModule = join(__dirname, '..', '..', 'src', 'store', 'file', 'lock.js');
  const portModule = join(__dirname, '..', '..', 'src', 'files', 'fs-port.js');
  const head = spawn(process.execPath, ['-e', `
    const { claimLock } = require(${JSON.stringify(lockModule)});
    const { NODE_FS } = require(${JSON.stringify(portModule)});
    claimLock({ port: NODE_FS, lockPath: ${JSON.stringify(lockIn(dir))}, host: ${JSON.stringify(HOST)} }).then(() => process.stdout.write('got\\n'));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => {
    head.kill('SIGCONT');
    head.kill('SIGKILL');
  });
  await until('the head\'s ticket', () => ticketsIn(dir).length === 1);
  head.kill('SIGSTOP');
  releaseLock(NODE_FS, held);
  const started = Date.now();
  const lock = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 5_000 });
  const waited = Date.now() - started;
  // Each poll behind a live ticket waits 200-250 ms: two of them before the lock is tried.
  assert.ok(waited >= 400, `took the lock after ${waited} ms: two polls of the frozen head's ticket first`);
  assert.equal(ticketsIn(dir).length, 1, 'the frozen head keeps its place; only the lock was taken');
  releaseLock(NODE_FS, lock);
});

test('a holder stuck past the timeout ends the wait in lock_timeout saying who holds it and that it looks stuck', async (t) => {
  const dir = tempProject(t);
  const child = await liveChild(t);
  stamp(lockIn(dir), { pid: child.pid as number, host: HOST, t: Date.now(), token: '4'.repeat(32) });
  await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 80 }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'lock_timeout');
    assert.match(err.message, new RegExp(`pid ${child.pid} on ${HOST}.*stuck`));
    return true;
  });
  assert.deepEqual(ticketsIn(dir), [], 'the waiter left the queue');
});
