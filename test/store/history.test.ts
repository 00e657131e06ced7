import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, renameSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Envelope, State } from '../../src/engine/types';
import { HistoryLog } from '../../src/store/file/history';
import { isValidChannelId } from '../../src/store/limits';
import { NODE_FS } from '../../src/files/fs-port';
import { envelope, faultyFsByPath, OK, tempFilesIn, tempProject, testStore } from './helpers';
import { TEST_CODEC } from './test-codec';
import { statePathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');
}

function put(state: State, e: Envelope, deliveredTo: string[] = []): void {
  state.messages[e.message_id] = e;
  if (deliveredTo.length) state.delivered_to[e.message_id] = deliveredTo;
  (state.queues[e.recipient_session_id] ??= []).push(e.message_id);
}

test('finished envelopes move to history/<channel>.jsonl and leave messages, delivered_to and queues', async (t) => {
  const store = testStore(tempProject(t));
  const pending = envelope({ channel_id: 'chn_a' });
  const delivered = envelope({ channel_id: 'chn_a', delivery_status: 'delivered', delivered_at: 5, delivery_method: 'pull' });
  const failed = envelope({ channel_id: 'chn_b', delivery_status: 'failed' });
  await edit(store, (s) => {
    put(s, pending);
    put(s, delivered, ['bob']);
    put(s, failed);
    return OK;
  });
  const s = store.snapshot();
  assert.deepEqual(Object.keys(s.messages), [pending.message_id]);
  assert.deepEqual(s.delivered_to, {});
  assert.deepEqual(s.queues, { bob: [pending.message_id] });
  assert.equal(lines(join(store.stateDir, 'history', 'chn_a.jsonl')).length, 1);
  assert.deepEqual(store.history.find('chn_a', delivered.message_id), { ...delivered, delivered_to: ['bob'] });
  assert.deepEqual(store.history.list('chn_b'), [{ ...failed, delivered_to: [] }]);
  assert.equal(store.history.find('chn_a', failed.message_id), undefined, 'lookups are per channel');
  assert.deepEqual(store.history.list('chn_none'), []);
});

test('finished envelopes already on disk are moved by the next ok mutation', async (t) => {
  const store = testStore(tempProject(t));
  const state = TEST_CODEC.emptyState();
  put(state, envelope({ channel_id: 'chn_a', delivery_status: 'stale' }));
  mkdirSync(store.stateDir, { recursive: true });
  writeFileSync(statePathOf(store), JSON.stringify(state));
  await edit(store, () => OK);
  assert.deepEqual(store.snapshot().messages, {});
  assert.equal(store.history.list('chn_a').length, 1);
});

test('an envelope with a malformed channel id stays in state and builds no path', async (t) => {
  const store = testStore(tempProject(t));
  const odd = envelope({ channel_id: '../escape', delivery_status: 'delivered' });
  await edit(store, (s) => {
    put(s, odd);
    return OK;
  });
  assert.deepEqual(Object.keys(store.snapshot().messages), [odd.message_id]);
  assert.equal(existsSync(join(store.stateDir, 'history')), false);
  assert.equal(store.history.find('../escape', odd.message_id), undefined);
  assert.deepEqual(store.history.list('../escape'), []);
  assert.equal(isValidChannelId('chn_' + 'x'.repeat(65)), false);
  assert.equal(isValidChannelId('chn_ok-1_A'), true);
  assert.throws(() => (store.history as HistoryLog).pathOf('chn_/x'));
});

test('a crash between the history append and the state save only repeats a record, and readers dedupe', async (t) => {
  const port = faultyFsByPath([]);
  const store = testStore(tempProject(t), { fs: port });
  const e = envelope({ channel_id: 'chn_a' });
  await edit(store, (s) => {
    put(s, e);
    return OK;
  });
  const deliver = (s: State) => {
    Object.assign(s.messages[e.message_id], { delivery_status: 'delivered', delivered_at: 10 });
    s.delivered_to[e.message_id] = ['bob'];
    return OK;
  };
  port.fail({ method: 'renameSync', code: 'EIO', when: (p) => typeof p === 'string' && p.includes('.state.'), times: 1 });
  await assert.rejects(edit(store, deliver), { code: 'state_unwritable' });
  const log = join(store.stateDir, 'history', 'chn_a.jsonl');
  assert.equal(lines(log).length, 1, 'the record was appended before the save failed');
  assert.equal(store.snapshot().messages[e.message_id].delivery_status, 'pending', 'the old state survived');
  await edit(store, deliver);
  assert.equal(lines(log).length, 2, 'the retry repeated the record');
  assert.equal(store.history.list('chn_a').length, 1);
  const fresh = testStore(store.projectDir);
  assert.deepEqual(fresh.history.list('chn_a').map((r) => r.message_id), [e.message_id]);
  assert.deepEqual(store.snapshot().messages, {});
});

test('a failed history append keeps the envelope in state and the state file untouched', async (t) => {
  const port = faultyFsByPath([]);
  const store = testStore(tempProject(t), { fs: port });
  const e = envelope({ channel_id: 'chn_a' });
  await edit(store, (s) => {
    put(s, e);
    return OK;
  });
  const before = readFileSync(statePathOf(store));
  port.fail({ method: 'writeSync', code: 'ENOSPC', when: (p) => typeof p === 'string' && p.endsWith('.jsonl') });
  await assert.rejects(
    edit(store, (s) => {
      s.messages[e.message_id].delivery_status = 'rejected';
      return OK;
    }),
    { code: 'state_unwritable' },
  );
  assert.deepEqual(readFileSync(statePathOf(store)), before);
});

/** A mutation putting `n` delivered 500-character envelopes of chn_a in state, for the save to move to history. */
const batch = (n: number) => (s: State) => {
  for (let i = 0; i < n; i++) put(s, envelope({ channel_id: 'chn_a', delivery_status: 'delivered', content: 'x'.repeat(500) }));
  return OK;
};

/** Counts the bytes `port` reads while `run` runs. */
async function bytesReadBy(port: ReturnType<typeof faultyFsByPath>, run: () => Promise<unknown>): Promise<number> {
  let total = 0;
  const original = port.readSync;
  port.readSync = (fd, buf, off, len, pos) => {
    const n = original(fd, buf, off, len, pos);
    total += n;
    return n;
  };
  try {
    await run();
  } finally {
    port.readSync = original;
  }
  return total;
}

test('a long-lived reader reads only the appended tail when the log grows', async (t) => {
  const dir = tempProject(t);
  const port = faultyFsByPath([]);
  const reader = testStore(dir, { fs: port });
  const writer = testStore(dir);
  await edit(writer, batch(50));
  assert.equal(reader.history.list('chn_a').length, 50);
  const unchanged = await bytesReadBy(port, async () => assert.equal(reader.history.list('chn_a').length, 50));
  assert.ok(unchanged < 1_000, 'an unchanged log costs a stat and a prefix check');
  await edit(writer, batch(1));
  const tailCost = await bytesReadBy(port, async () => assert.equal(reader.history.list('chn_a').length, 51));
  assert.ok(tailCost < 2 * 1_000, `read ${tailCost} bytes for one new record`);
});

test('a log is compacted to the newest records once it grows past the threshold', async (t) => {
  const dir = tempProject(t);
  const store = testStore(dir, { historyKeep: 5, historyCompactLines: 8 });
  const reader = testStore(dir);
  const all: Envelope[] = [];
  for (let round = 0; round < 3; round++) {
    await edit(store, (s) => {
      for (let i = 0; i < 3; i++) {
        const e = envelope({ channel_id: 'chn_a', delivery_status: 'delivered' });
        all.push(e);
        put(s, e);
      }
      return OK;
    });
    assert.equal(reader.history.list('chn_a').length, Math.min(all.length, all.length > 8 ? 5 : all.length));
  }
  const log = join(store.stateDir, 'history', 'chn_a.jsonl');
  assert.equal(lines(log).length, 5);
  assert.deepEqual(reader.history.list('chn_a').map((r) => r.message_id), all.slice(-5).map((e) => e.message_id));
  assert.deepEqual(tempFilesIn(join(store.stateDir, 'history')), []);
  const cold = testStore(dir, { historyKeep: 5, historyCompactLines: 8 });
  await edit(cold, (s) => {
    put(s, envelope({ channel_id: 'chn_a', delivery_status: 'delivered' }));
    return OK;
  });
  assert.equal(lines(log).length, 6, 'a process without a cache counts lines and leaves a short log alone');
});


test('moving records reads only what the log grew by since this process last counted it, not the whole log', async (t) => {
  const dir = tempProject(t);
  const port = faultyFsByPath([]);
  const mover = testStore(dir, { fs: port });
  const other = testStore(dir);
  await edit(other, batch(60));
  const log = join(mover.stateDir, 'history', 'chn_a.jsonl');
  const size = readFileSync(log).length;
  const cold = await bytesReadBy(port, () => edit(mover, batch(1)));
  assert.ok(cold >= size, `a process new to the log counts it once (read ${cold} of ${size} bytes)`);
  const warm = await bytesReadBy(port, () => edit(mover, batch(1)));
  assert.ok(warm < 1_000, `the next move reads ${warm} bytes, not the ${size}-byte log`);
  await edit(other, batch(2));
  const grown = await bytesReadBy(port, () => edit(mover, batch(1)));
  assert.ok(grown < 4_000, `after another writer appended two records, read ${grown} bytes`);
  assert.equal(lines(log).length, 65);
});

test('the cached line count notices a log rewritten in place or replaced, so compaction still happens exactly when due', async (t) => {
  const dir = tempProject(t);
  const store = testStore(dir, { historyKeep: 5, historyCompactLines: 8 });
  const one = (s: State) => {
    put(s, envelope({ channel_id: 'chn_a', delivery_status: 'delivered' }));
    return OK;
  };
  for (let i = 0; i < 6; i++) await edit(store, one);
  const log = join(store.stateDir, 'history', 'chn_a.jsonl');
  const ino = statSync(log).ino;
  // Rewritten in place (same inode, shorter, different first bytes): 6 cached lines become 1.
  writeFileSync(log, lines(log).slice(-1).join('\n').replace('{', '{ ') + '\n');
  assert.equal(statSync(log).ino, ino);
  for (let i = 0; i < 3; i++) await edit(store, one);
  assert.equal(lines(log).length, 4, 'no compaction: the log holds 4 lines, not the 9 a stale count would claim');
  assert.equal(statSync(log).ino, ino);
  // Replaced by a longer file (new inode): 4 cached lines become 8, and the next append passes the threshold.
  const text = readFileSync(log, 'utf8');
  writeFileSync(`${log}.new`, text + text);
  renameSync(`${log}.new`, log);
  await edit(store, one);
  assert.equal(lines(log).length, 5, 'compacted to the newest 5 records once the log held 9 lines');
  // A log grown by another writer is counted from where this process left it.
  const other = testStore(dir, { historyKeep: 5, historyCompactLines: 8 });
  for (let i = 0; i < 3; i++) await edit(other, one);
  assert.equal(lines(log).length, 8);
  await edit(store, one);
  assert.equal(lines(log).length, 5, 'the 9th line triggers the compaction in the process that saw only 6 of them');
});

test('a fragment left by a killed writer is skipped and never glued to the next record', async (t) => {
  const store = testStore(tempProject(t));
  const first = envelope({ channel_id: 'chn_a', delivery_status: 'delivered' });
  await edit(store, (s) => {
    put(s, first);
    return OK;
  });
  const log = join(store.stateDir, 'history', 'chn_a.jsonl');
  appendFileSync(log, '{"message_id":"ocm_torn","timest');
  const reader = testStore(store.projectDir);
  assert.equal(reader.history.list('chn_a').length, 1, 'a line without its newline is not read yet');
  const second = envelope({ channel_id: 'chn_a', delivery_status: 'delivered' });
  await edit(store, (s) => {
    put(s, second);
    return OK;
  });
  assert.equal(lines(log).length, 3);
  assert.deepEqual(reader.history.list('chn_a').map((r) => r.message_id), [first.message_id, second.message_id]);
});

test('records are listed oldest first by timestamp and blank or foreign lines are skipped', (t) => {
  const dir = tempProject(t);
  mkdirSync(join(dir, 'h'));
  const late = { ...envelope({ channel_id: 'chn_a', timestamp: 20 }), delivered_to: ['x'] };
  const early = { ...envelope({ channel_id: 'chn_a', timestamp: 10 }) };
  writeFileSync(join(dir, 'h', 'chn_a.jsonl'), [JSON.stringify(late), '', '[1]', '{"message_id":1}', JSON.stringify(early), ''].join('\n'));
  const log = new HistoryLog({ port: NODE_FS, historyDir: join(dir, 'h') });
  assert.deepEqual(log.list('chn_a').map((r) => r.timestamp), [10, 20]);
  assert.deepEqual(log.find('chn_a', early.message_id)?.delivered_to, []);
});

test('dropHistory removes a channel log and forgets its cache', async (t) => {
  const store = testStore(tempProject(t));
  await edit(store, (s) => {
    put(s, envelope({ channel_id: 'chn_a', delivery_status: 'delivered' }));
    return OK;
  });
  assert.equal(store.history.list('chn_a').length, 1);
  await store.dropHistory('chn_a');
  assert.deepEqual(store.history.list('chn_a'), []);
  assert.equal(existsSync(join(store.stateDir, 'history', 'chn_a.jsonl')), false);
  await store.dropHistory('chn_a');
  await store.dropHistory('../nope');
  const port = faultyFsByPath([{ method: 'unlinkSync', code: 'EACCES', when: (p) => typeof p === 'string' && p.endsWith('.jsonl') }]);
  await assert.rejects(testStore(store.projectDir, { fs: port }).dropHistory('chn_b'), { code: 'state_unwritable' });
});

test('a history file that cannot be opened or read is a state_unwritable fault naming it, not an empty log', (t) => {
  const dir = tempProject(t);
  writeFileSync(join(dir, 'chn_b.jsonl'), '');
  for (const fault of [
    { method: 'openSync' as const, code: 'EACCES', when: (p: unknown) => typeof p === 'string' && p.endsWith('.jsonl') },
    { method: 'fstatSync' as const, code: 'EIO', when: (p: unknown) => typeof p === 'string' && p.endsWith('.jsonl') },
  ]) {
    const log = new HistoryLog({ port: faultyFsByPath([fault]), historyDir: dir });
    assert.throws(() => log.list('chn_b'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'state_unwritable');
      assert.match(err.message, new RegExp(`cannot read the history log .*chn_b\\.jsonl \\(${fault.code}\\)`));
      return true;
    });
    assert.throws(() => log.find('chn_b', 'ocm_x'), { code: 'state_unwritable' });
  }
  // absent is still simply empty
  assert.deepEqual(new HistoryLog({ port: NODE_FS, historyDir: dir }).list('chn_absent'), []);
});
