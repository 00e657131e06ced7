// Store edge cases found in review: a quarantine meeting a v1 migration, a
// history folder removed or newly made, and a lock that was never stamped.
// Each test states the documented behaviour it checks (PROTOCOL.md section 4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { findLeftovers, LEFTOVER_MIN_AGE_MS, leftoverPidOf, removeLeftovers } from '../../src/local/leftovers';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Envelope, State } from '../../src/engine/types';
import { openStore } from '../../src/store';
import { FsPort, NODE_FS } from '../../src/files/fs-port';
import { claimLock, releaseLock } from '../../src/store/file/lock';
import { envelope, faultyFsByPath, OK, tempProject, testStore } from './helpers';
import { statePathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

const HOST = hostname();
const LEGACY_DIR = ['.opencode', 'comms'].join('-');
const V1 = JSON.stringify({ schema_version: 1, channels: {}, messages: {}, queues: {}, delivered_to: {}, errors: [] });

function writeLegacy(projectDir: string, text: string): void {
  mkdirSync(join(projectDir, LEGACY_DIR), { recursive: true });
  writeFileSync(join(projectDir, LEGACY_DIR, 'state.json'), text);
}

function put(state: State, e: Envelope): void {
  state.messages[e.message_id] = e;
  (state.queues[e.recipient_session_id] ??= []).push(e.message_id);
}

// PROTOCOL 4.3: a change that finds a rejected file copies it aside and saves
// an empty state "with an error entry naming the copy". When a v1 file is migrated in the same locked
// load, the migrated state is built from the legacy file alone (the rejected
// state is not passed as a placeholder), so the entry naming the copy is lost:
// the user is never told that their state.json was replaced or where it went.
test('a quarantine followed by a v1 migration still reports the corrupt copy in errors', async (t) => {
  const dir = tempProject(t);
  writeLegacy(dir, V1);
  const store = openStore({ projectDir: dir, now: () => 1_700_000_000_555 });
  mkdirSync(store.stateDir, { recursive: true });
  writeFileSync(statePathOf(store), '{"schema_version": 2, "channels": {');
  await edit(store, () => ({ ok: true, message: '' }));
  assert.equal(readFileSync(join(store.stateDir, 'state.corrupt-1700000000555.json'), 'utf8'), '{"schema_version": 2, "channels": {');
  const messages = store.snapshot().errors.map((e) => e.message);
  assert.ok(messages.some((m) => m.includes('Migrated')), 'the migration ran');
  assert.ok(
    messages.some((m) => m.includes('state.corrupt-1700000000555.json')),
    `no error entry names the preserved copy; errors are: ${JSON.stringify(messages)}`,
  );
});

// docs/internals.md, "Migration from v1": "(and a prior v2 file to state.v2.empty.bak.json)". With no
// state.json at all, readState returns the empty state's text as `baseline`,
// so `hadStateFile` is true and a backup of a file that never existed is written.
test('migrating with no prior state.json writes no state.v2.empty.bak.json', async (t) => {
  const dir = tempProject(t);
  writeLegacy(dir, V1);
  const store = openStore({ projectDir: dir });
  await edit(store, () => ({ ok: true, message: '' }));
  assert.ok(existsSync(join(store.stateDir, 'MIGRATED_FROM_V1')), 'the migration ran');
  assert.equal(existsSync(join(store.stateDir, 'state.v2.empty.bak.json')), false, 'a backup of a v2 file that never existed was written');
});

// HistoryLog caches `hasDir` forever. If `.opencomms/` (or its history/ folder)
// is removed while a server runs, the lock recreates the state folder but the
// history folder is never recreated: every later change that finishes mail
// (a pull, a delivery) fails with state_unwritable until the process restarts.
test('a store keeps working after its history folder was removed under it', async (t) => {
  const store = testStore(tempProject(t));
  await edit(store, (s) => {
    put(s, envelope({ channel_id: 'chn_a', delivery_status: 'delivered' }));
    return OK;
  });
  rmSync(join(store.stateDir, 'history'), { recursive: true, force: true });
  const e = envelope({ channel_id: 'chn_a', delivery_status: 'delivered' });
  const result = await edit(store, (s) => {
    put(s, e);
    return OK;
  });
  assert.deepEqual(result, OK);
  assert.equal(store.history.find('chn_a', e.message_id)?.message_id, e.message_id);
});

// A breaker decides that the lock it is about to remove is the one it judged
// abandoned by comparing bytes when the file holds no stamp. An abandoned EMPTY
// lock (left by an older build killed between its create and its stamp) has
// the same bytes as a peer's brand-new empty lock; only its inode and mtime
// tell them apart. Here a peer replaces the stale lock with its own just as
// this waiter takes the breaker file: the peer's lock must survive.
test('an empty lock that replaced the judged one just before the break is left alone', async (t) => {
  const dir = tempProject(t);
  const lockPath = join(dir, '.state.lock');
  writeFileSync(lockPath, '');
  const old = new Date(Date.now() - 60_000);
  utimesSync(lockPath, old, old);
  let isRaced = false;
  const port: FsPort = {
    ...NODE_FS,
    linkSync(existing, link) {
      if (link === `${lockPath}.break` && !isRaced) {
        isRaced = true;
        // the peer removed the abandoned lock and created its own, not yet stamped
        unlinkSync(lockPath);
        writeFileSync(lockPath, '', { flag: 'wx' });
      }
      NODE_FS.linkSync(existing, link);
    },
  };
  let stolen: Awaited<ReturnType<typeof claimLock>> | undefined;
  try {
    stolen = await claimLock({ port, lockPath, host: HOST, timeoutMs: 60 });
  } catch (err) {
    assert.equal((err as { code?: string }).code, 'lock_timeout');
  }
  if (stolen) releaseLock(NODE_FS, stolen);
  assert.equal(isRaced, true);
  assert.equal(stolen, undefined, 'the peer\'s fresh lock was deleted and a second holder was let in');
});

// PROTOCOL 4.7 / 4.6: history records are "never lost", and every save makes
// its rename durable with a folder fsync. The first append to a channel creates
// history/<id>.jsonl, but only the file is fsynced, never the history folder, and
// then state.json (without those envelopes) is renamed and its folder fsynced.
// After a power loss the new log's directory entry can be gone while the state
// that dropped the envelopes survives: the finished records are lost.
test('a new history log is made durable (its folder fsynced) before state.json drops its envelopes', async (t) => {
  const port = faultyFsByPath([]);
  const store = testStore(tempProject(t), { fs: port });
  await edit(store, (s) => {
    s.errors.push({ at: 1, message: 'state exists' });
    return OK;
  });
  const historyDir = join(store.stateDir, 'history');
  const fdPaths = (port as unknown as { fdPaths: Map<unknown, string> }).fdPaths;
  const events: string[] = [];
  const fsync = port.fsyncSync;
  port.fsyncSync = (fd) => {
    if (fdPaths.get(fd) === historyDir) events.push('fsync history folder');
    fsync(fd);
  };
  const rename = port.renameSync;
  port.renameSync = (from, to) => {
    if (to === statePathOf(store)) events.push('rename state.json');
    rename(from, to);
  };
  await edit(store, (s) => {
    put(s, envelope({ channel_id: 'chn_new', delivery_status: 'delivered' }));
    return OK;
  });
  assert.deepEqual(events.slice(0, 2), ['fsync history folder', 'rename state.json']);
});

test('leftovers are temp and lock-aside names of dead processes, old enough that no other machine can still be writing them', (t) => {
  const dir = tempProject(t);
  mkdirSync(join(dir, 'history'), { recursive: true });
  assert.equal(leftoverPidOf('.state.123.abcdef12.tmp'), 123);
  assert.equal(leftoverPidOf('.state.lock.45.0123abcd.stale'), 45);
  assert.equal(leftoverPidOf('.chn_x.9.00000000.tmp'), 9);
  for (const name of ['state.json', '.state.lock', '.state.lock.next', '.state.x.abcdef12.tmp', '.state.1.ABCDEF12.tmp', 'a.1.abcdef12.tmp']) {
    assert.equal(leftoverPidOf(name), undefined, name);
  }
  const now = Date.now();
  const old = new Date(now - 2 * LEFTOVER_MIN_AGE_MS);
  const make = (path: string, isOld: boolean): string => {
    writeFileSync(path, 'x');
    if (isOld) utimesSync(path, old, old);
    return path;
  };
  const dead = make(join(dir, '.state.111.abcdef12.tmp'), true);
  const deadAside = make(join(dir, '.state.lock.112.abcdef12.stale'), true);
  const deadInHistory = make(join(dir, 'history', '.chn_a.113.abcdef12.tmp'), true);
  const young = make(join(dir, '.state.114.abcdef12.tmp'), false);
  const alive = make(join(dir, '.state.115.abcdef12.tmp'), true);
  const options = { port: NODE_FS, stateDir: dir, isPidAlive: (pid: number) => pid === 115, now };
  assert.deepEqual(findLeftovers(options).sort(), [dead, deadAside, deadInHistory].sort());
  assert.equal(removeLeftovers(options), 3);
  assert.deepEqual([dead, deadAside, deadInHistory, young, alive].map((p) => existsSync(p)), [false, false, false, true, true]);
});
