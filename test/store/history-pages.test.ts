// The paging read of the histories (history-pager.ts and each store's history-pages.ts) that `opencomms log`
// goes through: a page never holds more than it was asked for, a read never
// asks the file for more than a page of bytes unless one line is longer, a
// line still being written waits, a compacted log is read again while old
// spots still read, and the Redis streams page the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HISTORY_PAGE_BYTES, type HistoryPager, type PagedRecord } from '../../src/store/history-pager';
import { fileHistoryPager } from '../../src/store/file/history-pages';
import { streamHistoryPager } from '../../src/store/redis/history-pages';
import { NODE_FS, type FsPort } from '../../src/files/fs-port';
import { clientFor, keysOf } from '../../src/store/redis/keys';
import { RECORD_FIELD } from '../../src/store/redis/history-cache';
import type { HistoryRecord } from '../../src/engine/types';
import { envelope, tempProject } from './helpers';
import { configFor, SKIP_WITHOUT_REDIS, startRedis } from './redis/server';

const CHANNEL = 'chn_pages';

function record(i: number, content = `message ${i}`): HistoryRecord {
  return { ...envelope({ channel_id: CHANNEL, content, delivery_status: 'delivered', delivered_at: 1 }), delivered_to: ['bob'] };
}

function line(r: HistoryRecord): string {
  return `${JSON.stringify(r)}\n`;
}

/** Every page of a channel until there is none, with the size of each. */
async function drain(pager: HistoryPager, max: number): Promise<{ all: PagedRecord[]; sizes: number[] }> {
  const all: PagedRecord[] = [];
  const sizes: number[] = [];
  for (let page = await pager.next(CHANNEL, max); page.length > 0; page = await pager.next(CHANNEL, max)) {
    sizes.push(page.length);
    all.push(...page);
  }
  return { all, sizes };
}

/** NODE_FS, remembering the largest single read asked of it. */
function measuredPort(): { port: FsPort; largestRead: () => number } {
  let largest = 0;
  const port: FsPort = {
    ...NODE_FS,
    readSync: (fd, buffer, offset, length, position) => {
      largest = Math.max(largest, length);
      return NODE_FS.readSync(fd, buffer, offset, length, position);
    },
  };
  return { port, largestRead: () => largest };
}

function historyDir(project: string): string {
  const dir = join(project, '.opencomms', 'history');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

test('a file log is handed out a page at a time, each read at most a page of bytes, and its records read back by spot', async (t) => {
  const project = tempProject(t);
  const path = join(historyDir(project), `${CHANNEL}.jsonl`);
  // 3,000 records of 1,000 characters: about 4 MB, fifteen pages of bytes.
  const records = Array.from({ length: 3_000 }, (_, i) => record(i, `message ${i} ${'y'.repeat(1_000)}`));
  writeFileSync(path, records.map(line).join(''), { mode: 0o600 });
  const { port, largestRead } = measuredPort();
  const pager = fileHistoryPager(port, join(project, '.opencomms', 'history'));
  t.after(() => pager.close());
  const { all, sizes } = await drain(pager, 400);
  assert.deepEqual(sizes, [400, 400, 400, 400, 400, 400, 400, 200]);
  assert.deepEqual(all.map((p) => p.record.message_id), records.map((r) => r.message_id));
  assert.ok(largestRead() <= HISTORY_PAGE_BYTES, `largest read ${largestRead()} bytes`);
  const picked = [all[2_999]!, all[0]!, all[1_500]!];
  assert.deepEqual(await pager.fetch(CHANNEL, picked.map((p) => p.spot)), picked.map((p) => p.record));
});

test('a line longer than a page is read whole; a line still being written waits for its newline', async (t) => {
  const project = tempProject(t);
  const path = join(historyDir(project), `${CHANNEL}.jsonl`);
  const long = record(1, 'z'.repeat(HISTORY_PAGE_BYTES * 2));
  const next = record(2);
  const text = line(next);
  writeFileSync(path, line(long) + text.slice(0, 40), { mode: 0o600 });
  const pager = fileHistoryPager(NODE_FS, join(project, '.opencomms', 'history'));
  t.after(() => pager.close());
  assert.deepEqual((await drain(pager, 10)).all.map((p) => p.record), [long]);
  appendFileSync(path, text.slice(40));
  assert.deepEqual((await drain(pager, 10)).all.map((p) => p.record), [next]);
  assert.deepEqual(await pager.next(CHANNEL), []);
});

test('a log replaced by a compaction is read again from its start, and spots of the old one still read', async (t) => {
  const project = tempProject(t);
  const dir = historyDir(project);
  const path = join(dir, `${CHANNEL}.jsonl`);
  const [a, b, c] = [record(1), record(2), record(3)];
  writeFileSync(path, line(a!) + line(b!), { mode: 0o600 });
  const pager = fileHistoryPager(NODE_FS, join(project, '.opencomms', 'history'));
  t.after(() => pager.close());
  const first = (await drain(pager, 10)).all;
  writeFileSync(join(dir, 'compacted.tmp'), line(b!) + line(c!), { mode: 0o600 });
  renameSync(join(dir, 'compacted.tmp'), path);
  assert.deepEqual((await drain(pager, 10)).all.map((p) => p.record), [b, c]);
  assert.deepEqual(await pager.fetch(CHANNEL, [first[0]!.spot]), [a]);
});

test('no log yet, a foreign line and a channel id that is no file name read as nothing', async (t) => {
  const project = tempProject(t);
  const pager = fileHistoryPager(NODE_FS, join(project, '.opencomms', 'history'));
  t.after(() => pager.close());
  assert.deepEqual(await pager.next(CHANNEL), []);
  const good = record(1);
  writeFileSync(join(historyDir(project), `${CHANNEL}.jsonl`), `not json\n${JSON.stringify({ ...good, channel_id: 'chn_other' })}\n${line(good)}`, { mode: 0o600 });
  assert.deepEqual((await drain(pager, 10)).all.map((p) => p.record), [good]);
  assert.deepEqual(await pager.next('../escape'), []);
});

test('a Redis stream is handed out a page at a time, continues with what is added, and reads back by entry id', { skip: SKIP_WITHOUT_REDIS }, async (t) => {
  const server = await startRedis(t);
  const config = configFor(server.port, 'pages');
  const client = clientFor(config);
  t.after(() => client.close());
  const key = keysOf(config.keyPrefix).history(CHANNEL);
  const records = Array.from({ length: 1_100 }, (_, i) => record(i));
  await client.pipeline(records.map((r) => ['XADD', key, '*', RECORD_FIELD, JSON.stringify(r)]));
  const pager = streamHistoryPager(clientFor(config), keysOf(config.keyPrefix).history);
  t.after(() => pager.close());
  const { all, sizes } = await drain(pager, 500);
  assert.deepEqual(sizes, [500, 500, 100]);
  assert.deepEqual(all.map((p) => p.record.message_id), records.map((r) => r.message_id));
  // A whole page of foreign entries is read past, not taken for the end.
  const later = record(9_999);
  await client.pipeline([...Array.from({ length: 600 }, () => ['XADD', key, '*', RECORD_FIELD, 'not json']), ['XADD', key, '*', RECORD_FIELD, JSON.stringify(later)]]);
  assert.deepEqual((await drain(pager, 500)).all.map((p) => p.record), [later]);
  assert.deepEqual(await pager.fetch(CHANNEL, [all[1_099]!.spot, all[3]!.spot, { entry: '1-1' }]), [records[1_099], records[3], undefined]);
});
