import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { State } from '../../src/engine/types';
import { ERRORS_KEEP } from '../../src/store/file/load';
import { envelope, faultyFsByPath, OK, REFUSED, tempFilesIn, tempProject, testStore } from './helpers';
import { TEST_CODEC } from './test-codec';
import { statePathOf, lockPathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

function corruptCopies(stateDir: string): string[] {
  return readdirSync(stateDir).filter((n) => /^state\.corrupt-\d+(-\d+)?\.json$/.test(n)).sort();
}

test('an absent state reads as empty and a no-op mutate creates no file', async (t) => {
  const store = testStore(tempProject(t));
  assert.deepEqual(store.snapshot(), TEST_CODEC.emptyState());
  const result = await edit(store, () => OK);
  assert.deepEqual(result, OK);
  assert.equal(existsSync(statePathOf(store)), false);
  assert.equal(existsSync(lockPathOf(store)), false);
});

test('an ok mutation that changes the state is saved; a refused one is not', async (t) => {
  const store = testStore(tempProject(t));
  await edit(store, (s) => {
    s.errors.push({ at: 1, message: 'kept' });
    return OK;
  });
  assert.deepEqual(store.snapshot().errors, [{ at: 1, message: 'kept' }]);
  const refused = await edit(store, (s) => {
    s.errors.push({ at: 2, message: 'dropped' });
    return REFUSED;
  });
  assert.equal(refused.ok, false);
  assert.deepEqual(store.snapshot().errors, [{ at: 1, message: 'kept' }]);
  assert.equal(existsSync(lockPathOf(store)), false);
  assert.deepEqual(tempFilesIn(store.stateDir), []);
});

test('an ok mutation that changes nothing does not rewrite the file', async (t) => {
  const store = testStore(tempProject(t));
  await edit(store, (s) => {
    s.errors.push({ at: 1, message: 'x' });
    return OK;
  });
  const before = statSync(statePathOf(store));
  await edit(store, () => OK);
  const after = statSync(statePathOf(store));
  assert.equal(after.ino, before.ino);
  assert.equal(after.mtimeMs, before.mtimeMs);
});

test('a throwing mutation saves nothing and releases the lock', async (t) => {
  const store = testStore(tempProject(t));
  await assert.rejects(
    edit(store, (s) => {
      s.errors.push({ at: 1, message: 'x' });
      throw new Error('engine bug');
    }),
    /engine bug/,
  );
  assert.equal(existsSync(statePathOf(store)), false);
  assert.equal(existsSync(lockPathOf(store)), false);
  assert.deepEqual(await edit(store, () => OK), OK);
});

test('concurrent mutations in one process are all applied, in call order', async (t) => {
  const store = testStore(tempProject(t));
  await Promise.all(
    Array.from({ length: 25 }, (_, i) =>
      edit(store, (s) => {
        s.errors.push({ at: i, message: `m${i}` });
        return OK;
      }),
    ),
  );
  assert.deepEqual(store.snapshot().errors.map((e) => e.at), Array.from({ length: 25 }, (_, i) => i));
});

test('read runs on a lock-free snapshot and never saves', async (t) => {
  const store = testStore(tempProject(t));
  await edit(store, (s) => {
    s.errors.push({ at: 1, message: 'x' });
    return OK;
  });
  const count = store.read((s, ctx) => {
    s.errors.push({ at: ctx.now(), message: 'ignored' });
    return s.errors.length;
  });
  assert.equal(count, 2);
  assert.equal(store.snapshot().errors.length, 1);
});

test('the engine context gives ids, nonces, hashes and the injected clock', (t) => {
  const store = testStore(tempProject(t), { now: () => 42 });
  store.read((_s, ctx) => {
    assert.equal(ctx.now(), 42);
    assert.match(ctx.newId('ocm_'), /^ocm_[0-9a-f]{32}$/);
    assert.match(ctx.newId('chn_'), /^chn_[0-9a-f]{32}$/);
    assert.notEqual(ctx.newId('cor_'), ctx.newId('cor_'));
    assert.match(ctx.nonce(), /^[0-9a-f]{16}$/);
    assert.equal(ctx.hash32('héllo'), createHash('sha256').update('héllo').digest('hex').slice(0, 32));
    assert.equal(ctx.history, store.history);
  });
});

const BAD_FILES: [string, string][] = [
  ['corrupt JSON', '{"schema_version": 2, "channels": {'],
  ['a wrong schema_version', JSON.stringify({ schema_version: 3, channels: {}, messages: {}, queues: {}, delivered_to: {}, errors: [] })],
  ['a hand-edited invalid state', JSON.stringify({ schema_version: 2, channels: [], messages: {}, queues: {}, delivered_to: {}, errors: [] })],
  ['bytes that are not UTF-8', '\u0000\u00ff\ufffe'],
];

for (const [what, text] of BAD_FILES) {
  test(`${what} is preserved byte-for-byte as state.corrupt-*.json and reported`, async (t) => {
    const store = testStore(tempProject(t), { now: () => 1_700_000_000_123 });
    mkdirSync(store.stateDir, { recursive: true });
    const bytes = Buffer.from(text, 'latin1');
    writeFileSync(statePathOf(store), bytes);
    const seen = store.snapshot();
    assert.match(seen.errors[0].message, /state file rejected/);
    assert.deepEqual(corruptCopies(store.stateDir), [], 'the read path only reports');
    assert.deepEqual(readFileSync(statePathOf(store)), bytes, 'the read path never writes');
    await edit(store, (s) => {
      s.errors.push({ at: 5, message: 'after' });
      return OK;
    });
    assert.deepEqual(corruptCopies(store.stateDir), ['state.corrupt-1700000000123.json']);
    assert.deepEqual(readFileSync(join(store.stateDir, 'state.corrupt-1700000000123.json')), bytes);
    const errors = store.snapshot().errors;
    assert.match(errors[0].message, /state file rejected .*state\.corrupt-1700000000123\.json/);
    assert.equal(errors[1].message, 'after');
  });
}

test('a refused mutation after a quarantine still replaces the bad file, once', async (t) => {
  const store = testStore(tempProject(t));
  mkdirSync(store.stateDir, { recursive: true });
  writeFileSync(statePathOf(store), 'garbage');
  await edit(store, () => REFUSED);
  await edit(store, () => REFUSED);
  assert.equal(corruptCopies(store.stateDir).length, 1);
  assert.match(store.snapshot().errors[0].message, /state file rejected/);
});

test('two quarantines in the same millisecond never overwrite each other', async (t) => {
  const store = testStore(tempProject(t), { now: () => 7 });
  mkdirSync(store.stateDir, { recursive: true });
  writeFileSync(statePathOf(store), 'first');
  await edit(store, () => OK);
  writeFileSync(statePathOf(store), 'second');
  await edit(store, () => OK);
  assert.deepEqual(corruptCopies(store.stateDir), ['state.corrupt-7-1.json', 'state.corrupt-7.json']);
  assert.equal(readFileSync(join(store.stateDir, 'state.corrupt-7.json'), 'utf8'), 'first');
  assert.equal(readFileSync(join(store.stateDir, 'state.corrupt-7-1.json'), 'utf8'), 'second');
});

test('when the quarantine copy cannot be written, nothing is written over the bad file', async (t) => {
  const dir = tempProject(t);
  const port = faultyFsByPath([{ method: 'writeSync', code: 'ENOSPC', when: (p) => typeof p === 'string' && p.includes('corrupt') }]);
  const store = testStore(dir, { fs: port });
  mkdirSync(store.stateDir, { recursive: true });
  writeFileSync(statePathOf(store), 'precious garbage');
  let hasRun = false;
  await assert.rejects(
    edit(store, () => {
      hasRun = true;
      return OK;
    }),
    { code: 'state_unwritable' },
  );
  assert.equal(hasRun, false);
  assert.equal(readFileSync(statePathOf(store), 'utf8'), 'precious garbage');
  assert.equal(existsSync(lockPathOf(store)), false);
});

test('a codec that throws on hostile input is treated as a rejection', async (t) => {
  const codec = { ...TEST_CODEC, parseState: () => { throw new Error('boom'); } };
  const store = testStore(tempProject(t), { codec });
  mkdirSync(store.stateDir, { recursive: true });
  writeFileSync(statePathOf(store), '{}');
  assert.match(store.snapshot().errors[0].message, /parser failed: boom/);
});

test('parse notes from the codec are recorded in errors', async (t) => {
  const codec = {
    ...TEST_CODEC,
    parseState: (text: string, now: number) => {
      const r = TEST_CODEC.parseState(text, now);
      return r.ok ? { ...r, notes: ['backfilled max_hops'] } : r;
    },
  };
  const store = testStore(tempProject(t), { codec, now: () => 9 });
  mkdirSync(store.stateDir, { recursive: true });
  writeFileSync(statePathOf(store), JSON.stringify(TEST_CODEC.emptyState()));
  await edit(store, () => OK);
  assert.deepEqual(store.snapshot().errors.slice(0, 1), [{ at: 9, message: 'backfilled max_hops' }]);
});

test('store-added errors keep only the newest entries', async (t) => {
  const codec = {
    ...TEST_CODEC,
    parseState: (text: string, now: number) => {
      const r = TEST_CODEC.parseState(text, now);
      return r.ok ? { ...r, notes: ['newest'] } : r;
    },
  };
  const store = testStore(tempProject(t), { codec });
  const full: State = TEST_CODEC.emptyState();
  full.errors = Array.from({ length: ERRORS_KEEP }, (_, i) => ({ at: i, message: `e${i}` }));
  mkdirSync(store.stateDir, { recursive: true });
  writeFileSync(statePathOf(store), JSON.stringify(full));
  await edit(store, () => OK);
  const errors = (JSON.parse(readFileSync(statePathOf(store), 'utf8')) as State).errors;
  assert.equal(errors.length, ERRORS_KEEP);
  assert.equal(errors[0].message, 'e1');
  assert.equal(errors[ERRORS_KEEP - 1].message, 'newest');
});

/** Whether `err` is the store's state_unwritable fault caused by the errno `code`. */
function isUnwritableBecause(err: Error, code: string): boolean {
  const fault = err as Error & { code?: string; cause?: { code?: string } };
  assert.equal(fault.code, 'state_unwritable');
  assert.equal(fault.cause?.code, code);
  return true;
}

for (const [method, code] of [['writeSync', 'ENOSPC'], ['fsyncSync', 'EIO'], ['renameSync', 'EACCES']] as const) {
  test(`a ${code} on the state ${method} rejects with state_unwritable and keeps the previous state`, async (t) => {
    const dir = tempProject(t);
    const port = faultyFsByPath([]);
    const store = testStore(dir, { fs: port });
    await edit(store, (s) => {
      s.errors.push({ at: 1, message: 'v1' });
      return OK;
    });
    const before = readFileSync(statePathOf(store));
    // the state's temp file, not the lock's staged stamp (.state.lock.<pid>.<hex>.tmp)
    port.fail({ method, code, when: (p) => typeof p === 'string' && /\.state\.\d+\.[0-9a-f]{8}\.tmp$/.test(p) });
    await assert.rejects(
      edit(store, (s) => {
        s.errors.push({ at: 2, message: 'v2' });
        return OK;
      }),
      (err: Error) => isUnwritableBecause(err, code) && err.message.includes(statePathOf(store)),
    );
    assert.deepEqual(readFileSync(statePathOf(store)), before);
    assert.deepEqual(tempFilesIn(store.stateDir), []);
    assert.equal(existsSync(lockPathOf(store)), false);
  });
}

test('a save releases the lock before its directory fsync, yet reports success only after that fsync', async (t) => {
  const dir = tempProject(t);
  const port = faultyFsByPath([]);
  const store = testStore(dir, { fs: port });
  const fdPaths = (port as unknown as { fdPaths: Map<unknown, string> }).fdPaths;
  const seen: string[] = [];
  const fsync = port.fsyncSync;
  port.fsyncSync = (fd) => {
    if (fdPaths.get(fd) === store.stateDir) seen.push(existsSync(lockPathOf(store)) ? 'dir fsync, lock held' : 'dir fsync, lock free');
    fsync(fd);
  };
  const saving = edit(store, (s) => {
    s.errors.push({ at: 1, message: 'v1' });
    return OK;
  });
  await saving;
  seen.push('resolved');
  assert.deepEqual(seen, ['dir fsync, lock free', 'resolved']);
  port.fail({ method: 'fsyncSync', code: 'EIO', when: (p) => p === store.stateDir, times: 1 });
  await assert.rejects(
    edit(store, (s) => {
      s.errors.push({ at: 2, message: 'v2' });
      return OK;
    }),
    (err: Error) => isUnwritableBecause(err, 'EIO'),
  );
  assert.equal(existsSync(lockPathOf(store)), false);
  // The rename itself had happened: the failure is that it may not survive a crash.
  assert.deepEqual(store.snapshot().errors.map((e) => e.message), ['v1', 'v2']);
});

test('an unreadable state file is a state_unwritable fault, not an empty state', async (t) => {
  const dir = tempProject(t);
  // The folder must exist: with no .opencomms folder at all there is no file to open.
  await edit(testStore(dir), () => OK);
  const port = faultyFsByPath([{ method: 'openSync', code: 'EACCES', when: (p) => typeof p === 'string' && p.endsWith('state.json') }]);
  const store = testStore(dir, { fs: port });
  assert.throws(() => store.snapshot(), { code: 'state_unwritable' });
  await assert.rejects(edit(store, () => OK), { code: 'state_unwritable' });
});
