// Issue 13, items 2, 3 and 9: no stall after a crash, no broken live lock
// across pid namespaces, and a commit fence that stops an overlapping holder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { breakAbandonedLock, claimLock, EMPTY_LOCK_STALE_MS, inspectLock, LOCK_STALE_MS, parseLockOwner, releaseLock } from '../../src/store/file/lock';
import { FsPort, NODE_FS } from '../../src/files/fs-port';
import { processStartTicks, thisProcessPlace } from '../../src/process/place';
import { splitGeneration } from '../../src/store/file/load';
import { leftoverPidOf } from '../../src/local/leftovers';
import { FENCE_ATTEMPTS } from '../../src/store/file/store';
import { OK, tempFilesIn, tempProject, testStore } from './helpers';
import { statePathOf, lockPathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

const HOST = hostname();
const DIST = join(__dirname, '..', '..', '..', 'dist', 'opencomms.js');

function lockIn(dir: string): string {
  return join(dir, '.state.lock');
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid as number;
}

async function liveChild(t: { after(fn: () => void): void }): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up\\n"); setInterval(() => {}, 1e9)']);
  t.after(() => child.kill('SIGKILL'));
  await once(child.stdout!, 'data');
  return child.pid as number;
}

/** Claims within `ms` or fails the test: a stall is what these tests exist to catch. */
async function claimsQuickly(dir: string, ms = 1_000, extra: Partial<Parameters<typeof claimLock>[0]> = {}): Promise<void> {
  const lock = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: ms, ...extra });
  assert.equal(parseLockOwner(readFileSync(lockIn(dir)))?.token, lock.owner.token);
  releaseLock(NODE_FS, lock);
}

test('the lock never exists without its stamp: every step of a claim leaves no lock or a stamped one', async (t) => {
  const dir = tempProject(t);
  const lockPath = lockIn(dir);
  const seen: string[] = [];
  const port = {} as FsPort;
  for (const method of Object.keys(NODE_FS) as (keyof FsPort)[]) {
    const real = NODE_FS[method] as (...args: unknown[]) => unknown;
    (port as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const result = real(...args);
      // what any other process would find at this instant
      if (existsSync(lockPath)) seen.push(readFileSync(lockPath, 'utf8'));
      return result;
    };
  }
  const lock = await claimLock({ port, lockPath, host: HOST });
  releaseLock(port, lock);
  assert.ok(seen.length > 0);
  for (const text of seen) assert.notEqual(parseLockOwner(Buffer.from(text)), undefined, `an observer found ${JSON.stringify(text)}`);
});

test('the documented three-field stamp from a dead local pid is broken at once', async (t) => {
  const dir = tempProject(t);
  writeFileSync(lockIn(dir), JSON.stringify({ pid: await deadPid(), host: HOST, t: Date.now() }));
  await claimsQuickly(dir, 500);
});

test('a three-field stamp whose pid now belongs to a process started after it is broken at once', async (t) => {
  const dir = tempProject(t);
  const pid = await liveChild(t);
  writeFileSync(lockIn(dir), JSON.stringify({ pid, host: HOST, t: Date.now() - 60_000 }));
  await claimsQuickly(dir, 500);
});

test('a stamp whose recorded start differs from its live pid\'s start is broken at once (a reused pid)', async (t) => {
  const dir = tempProject(t);
  const pid = await liveChild(t);
  const start = processStartTicks(pid);
  if (start === undefined) return t.skip('no /proc here: start times are unknown');
  writeFileSync(lockIn(dir), JSON.stringify({ pid, host: HOST, t: Date.now(), token: 'a'.repeat(32), start: start - 1 }));
  await claimsQuickly(dir, 500);
});

test('a stamp naming its own live process\'s start is honoured', async (t) => {
  const dir = tempProject(t);
  const pid = await liveChild(t);
  const start = processStartTicks(pid);
  writeFileSync(lockIn(dir), JSON.stringify({ pid, host: HOST, t: Date.now() - 60_000, token: 'a'.repeat(32), start }));
  await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 60 }), { code: 'lock_timeout' });
});

for (const pid of [0, -1]) {
  test(`a stamp naming pid ${pid} (no single process) is broken at once`, async (t) => {
    const dir = tempProject(t);
    writeFileSync(lockIn(dir), JSON.stringify({ pid, host: HOST, t: Date.now() }));
    await claimsQuickly(dir, 500);
  });
}

test(`an empty lock is broken once it is ${EMPTY_LOCK_STALE_MS} ms old, not ${LOCK_STALE_MS} ms`, async (t) => {
  const dir = tempProject(t);
  writeFileSync(lockIn(dir), '');
  await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 60 }), { code: 'lock_timeout' });
  const old = new Date(Date.now() - EMPTY_LOCK_STALE_MS - 500);
  utimesSync(lockIn(dir), old, old);
  await claimsQuickly(dir, 500);
});

test('a lock stamp names its holder\'s machine and pid namespace', async (t) => {
  const dir = tempProject(t);
  const lock = await claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST });
  t.after(() => releaseLock(NODE_FS, lock));
  const owner = parseLockOwner(readFileSync(lockIn(dir)));
  const place = thisProcessPlace();
  assert.equal(owner?.ns, place.ns);
  assert.equal(owner?.start, place.start);
  if (process.platform === 'linux') {
    assert.match(owner?.ns ?? '', /^[0-9a-f-]{36}\/\d+$/);
    assert.equal(typeof owner?.start, 'number');
  }
});

test('a holder in another pid namespace is judged by age only, never by kill(pid, 0)', async (t) => {
  const dir = tempProject(t);
  const asked: number[] = [];
  const isPidAlive = (pid: number) => {
    asked.push(pid);
    return false;
  };
  const place = { ns: 'boot/4026531836', start: 1, isProcOurs: true };
  // same hostname and pid numbers, other namespace: as two containers sharing a volume see each other
  writeFileSync(lockIn(dir), JSON.stringify({ pid: 7, host: HOST, t: Date.now(), token: 'c'.repeat(32), ns: 'boot/4026532999', start: 5 }));
  await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 60, isPidAlive, place }), { code: 'lock_timeout' });
  assert.deepEqual(asked.filter((pid) => pid === 7), [], 'kill(pid, 0) was asked about a pid of another namespace');
  // the same stamp once it is past LOCK_STALE_MS without a refresh
  writeFileSync(lockIn(dir), JSON.stringify({ pid: 7, host: HOST, t: Date.now() - LOCK_STALE_MS - 1_000, token: 'c'.repeat(32), ns: 'boot/4026532999' }));
  const old = new Date(Date.now() - LOCK_STALE_MS - 1_000);
  utimesSync(lockIn(dir), old, old);
  await claimsQuickly(dir, 500, { isPidAlive, place });
});

test('our own pid in another namespace is not mistaken for a restart of ours', async (t) => {
  const dir = tempProject(t);
  // inside `unshare --pid` both containers' first process is pid 1: equal pids, different namespaces
  writeFileSync(lockIn(dir), JSON.stringify({ pid: process.pid, host: HOST, t: Date.now(), token: 'c'.repeat(32), ns: 'boot/other' }));
  const place = { ns: 'boot/ours', start: undefined, isProcOurs: false };
  await assert.rejects(claimLock({ port: NODE_FS, lockPath: lockIn(dir), host: HOST, timeoutMs: 60, place }), { code: 'lock_timeout' });
});

test('inspectLock and breakAbandonedLock judge by the same rule as a waiter', async (t) => {
  const dir = tempProject(t);
  const options = { port: NODE_FS, lockPath: lockIn(dir), host: HOST };
  assert.equal(inspectLock(options), undefined);
  const pid = await liveChild(t);
  writeFileSync(lockIn(dir), JSON.stringify({ pid, host: HOST, t: Date.now(), token: 'f'.repeat(32), start: processStartTicks(pid) }));
  assert.deepEqual({ ...inspectLock(options), ageMs: 0 }, { owner: parseLockOwner(readFileSync(lockIn(dir))), ageMs: 0, isAbandoned: false, isLocal: true });
  assert.equal(breakAbandonedLock(options), false);
  assert.equal(existsSync(lockIn(dir)), true);
  writeFileSync(lockIn(dir), JSON.stringify({ pid, host: HOST, t: Date.now() - 60_000 }));
  assert.equal(inspectLock(options)?.isAbandoned, true);
  assert.equal(breakAbandonedLock(options), true);
  assert.equal(existsSync(lockIn(dir)), false);
  assert.deepEqual(tempFilesIn(dir), []);
});

test('doctor --fix removes a lock whose pid now belongs to a younger process', async (t) => {
  const dir = tempProject(t);
  const stateDir = join(dir, '.opencomms');
  mkdirSync(stateDir);
  const pid = await liveChild(t);
  writeFileSync(join(stateDir, '.state.lock'), JSON.stringify({ pid, host: HOST, t: Date.now() - 60_000 }));
  const looked = spawnSync(process.execPath, [DIST, 'doctor', '--project', dir, '--json'], { encoding: 'utf8', timeout: 20_000 });
  const lockCheck = (out: string) => (JSON.parse(out) as { checks: { name: string; status: string; message: string }[] }).checks.find((c) => c.name === 'lock');
  assert.equal(lockCheck(looked.stdout)?.status, 'warn', looked.stdout);
  const fixed = spawnSync(process.execPath, [DIST, 'doctor', '--project', dir, '--fix', '--json'], { encoding: 'utf8', timeout: 20_000 });
  assert.match(lockCheck(fixed.stdout)?.message ?? '', /removed/, fixed.stdout);
  assert.equal(existsSync(join(stateDir, '.state.lock')), false);
});

test('a save whose state.json changed since its load is not written; the change runs again on the new state', async (t) => {
  const dir = tempProject(t);
  let isRaced = false;
  let statePath = '';
  const port: FsPort = {
    ...NODE_FS,
    fsyncSync(fd) {
      NODE_FS.fsyncSync(fd);
      if (!isRaced && statePath !== '' && existsSync(statePath)) {
        isRaced = true;
        // another holder commits while this one holds the lock (its lock was broken under it)
        const { generation, body } = splitGeneration(readFileSync(statePath, 'utf8'));
        const theirs = JSON.parse(body) as { errors: { at: number; message: string }[] };
        theirs.errors.push({ at: 0, message: 'theirs' });
        writeFileSync(statePath, `{"generation":${(generation ?? 0) + 1},${JSON.stringify(theirs).slice(1)}`);
      }
    },
  };
  const store = testStore(dir, { fs: port });
  await edit(store, (s) => {
    s.errors.push({ at: 0, message: 'first' });
    return OK;
  });
  statePath = statePathOf(store);
  let runs = 0;
  await edit(store, (s) => {
    runs++;
    s.errors.push({ at: 0, message: 'ours' });
    return OK;
  });
  assert.equal(isRaced, true);
  assert.equal(runs, 2, 'the change ran again on the state the other holder committed');
  assert.deepEqual(store.snapshot().errors.map((e) => e.message), ['first', 'theirs', 'ours']);
  assert.equal(splitGeneration(readFileSync(statePathOf(store), 'utf8')).generation, 3);
  assert.deepEqual(tempFilesIn(store.stateDir), []);
});

test(`a change whose fence fails ${FENCE_ATTEMPTS} times in a row gives up with lock_timeout and saves nothing`, async (t) => {
  const dir = tempProject(t);
  let statePath = '';
  let races = 0;
  const port: FsPort = {
    ...NODE_FS,
    fsyncSync(fd) {
      NODE_FS.fsyncSync(fd);
      if (statePath !== '' && existsSync(statePath)) {
        races++;
        const { generation, body } = splitGeneration(readFileSync(statePath, 'utf8'));
        writeFileSync(statePath, `{"generation":${(generation ?? 0) + 1},${body.slice(1)}`);
      }
    },
  };
  const store = testStore(dir, { fs: port });
  await edit(store, (s) => {
    s.errors.push({ at: 0, message: 'saved' });
    return OK;
  });
  statePath = statePathOf(store);
  await assert.rejects(edit(store, (s) => {
    s.errors.push({ at: 0, message: 'never saved' });
    return OK;
  }), { code: 'lock_timeout' });
  assert.equal(races, FENCE_ATTEMPTS);
  statePath = '';
  assert.deepEqual(store.snapshot().errors.map((e) => e.message), ['saved']);
  assert.equal(existsSync(lockPathOf(store)), false);
  assert.deepEqual(tempFilesIn(store.stateDir), []);
});

// The old break moved the lock aside to check it. When another claimer had
// already broken the dead lock and taken a fresh one, that rename left the
// path free while the fresh holder held it: a third claimer could then create
// the lock too, and two processes held it at once. Here the fresh lock appears
// right after this waiter read the dead one; from then on, no step of this
// waiter may leave the path without the fresh holder's stamp.
test('a waiter acting on a stale judgement never frees the path of a lock taken after that judgement', async (t) => {
  const dir = tempProject(t);
  const lockPath = lockIn(dir);
  writeFileSync(lockPath, JSON.stringify({ pid: 999_999, host: HOST, t: Date.now(), token: 'd'.repeat(32) }));
  const fresh = JSON.stringify({ pid: process.ppid, host: HOST, t: Date.now(), token: 'e'.repeat(32) });
  let isTaken = false;
  const broken: string[] = [];
  const port = {} as FsPort;
  for (const method of Object.keys(NODE_FS) as (keyof FsPort)[]) {
    const real = NODE_FS[method] as (...args: unknown[]) => unknown;
    (port as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const result = real(...args);
      if (isTaken) {
        const now = existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : '(no lock)';
        if (now !== fresh) broken.push(`after ${method}: ${now}`);
      } else if (method === 'statSync' && args[0] === lockPath) {
        // (a waiter reads the lock, then stats it: the judgement is made from these two)
        // another waiter broke the dead lock and took its own, just after our read
        isTaken = true;
        unlinkSync(lockPath);
        writeFileSync(lockPath, fresh, { flag: 'wx' });
      }
      return result;
    };
  }
  const isPidAlive = (pid: number) => pid !== 999_999;
  await assert.rejects(claimLock({ port, lockPath, host: HOST, timeoutMs: 60, isPidAlive }), { code: 'lock_timeout' });
  assert.equal(isTaken, true);
  assert.deepEqual(broken, [], 'the fresh holder\'s lock left its path: a third claimer could have taken it too');
});

test('a dead breaker\'s moved-aside file is a leftover the sweep knows, like a moved-aside lock', () => {
  assert.equal(leftoverPidOf('.state.lock.break.123.0badc0de.stale'), 123);
  assert.equal(leftoverPidOf('.state.lock.123.0badc0de.stale'), 123);
  assert.equal(leftoverPidOf('.state.lock.break'), undefined);
});
