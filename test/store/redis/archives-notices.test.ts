// The Redis store's saved sessions and commit notices against a real
// redis-server: an archive is written by the very commit that makes the
// change (never by a refused one, once however often a conflict re-runs it),
// every commit publishes a notice any process can subscribe to, and a
// subscription lost with the server comes back by itself.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionArchive } from '../../../src/engine/index';
import { RedisClient } from '../../../src/store/redis/client';
import { createRedisStore, type RedisStore, type RedisStoreOptions } from '../../../src/store/redis/redis-store';
import { randomHex } from '../../../src/process/crypto';
import { OK, REFUSED } from '../helpers';
import { TEST_CODEC } from '../test-codec';
import { configFor, eventually, MINIMAL_PROJECT, SKIP_WITHOUT_REDIS, startRedis, USERS, type RedisServer, type User } from './server';
import { edit } from '../../helpers/edit';

const skip = SKIP_WITHOUT_REDIS;


async function rig(t: TestContext, projectId = `p-${randomHex(4)}`): Promise<{ server: RedisServer; open(o?: Partial<RedisStoreOptions> & { user?: User }): RedisStore; raw: RedisClient }> {
  const server = await startRedis(t);
  const dir = mkdtempSync(join(tmpdir(), 'oc-redis-arch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const raw = new RedisClient({ host: '127.0.0.1', port: server.port, isTls: false, username: USERS.agent.name, password: USERS.agent.password, db: 0, timeoutMs: 2_000 });
  t.after(() => raw.close());
  return {
    server,
    raw,
    open: (options = {}) => {
      const { user, ...rest } = options;
      const store = createRedisStore({ config: configFor(server.port, projectId, user ?? USERS.agent), codec: TEST_CODEC, projectDir: dir, ...rest });
      t.after(() => store.close());
      return store;
    },
  };
}

function archive(channelId: string, name: string, savedAt: number): SessionArchive {
  return {
    schema: 1, channel_id: channelId, name, parent_channel_id: null, description: null, summary: 'done',
    members: [], budgets: {} as SessionArchive['budgets'], created_at: 1, saved_at: savedAt, saved_by: null, saved_by_role: null,
    message_count: 0, final_state_note: null, messages: [],
  };
}


test('an archive written by a change is committed with it and seen by another machine; a deleted one is gone', { skip }, async (t) => {
  const { open } = await rig(t);
  const a = open();
  const b = open();
  await edit(a, (s, _ctx, tx) => {
    tx.putArchive(archive('chn_0000000000000001', 'design', 10));
    tx.putArchive(archive('chn_0000000000000002', 'review', 20));
    s.errors.push({ at: 1, message: 'saved two' });
    return OK;
  });
  assert.deepEqual((await b.archives.list()).map((x) => x.name), ['review', 'design'], 'newest first');
  assert.equal((await b.archives.get('chn_0000000000000001'))?.name, 'design');
  assert.equal(await b.archives.get('chn_missing'), undefined);
  assert.equal(await b.archives.get('../etc'), undefined, 'an invalid id reads as absent');
  await edit(b, (_s, _ctx, tx) => {
    tx.deleteArchive('chn_0000000000000001');
    return OK;
  });
  assert.deepEqual((await a.archives.list()).map((x) => x.name), ['review'], 'archive work alone is a change worth committing');
});

test('a refused change writes no archive, and a broken field in the hash is skipped, not fatal', { skip }, async (t) => {
  const { open, raw } = await rig(t, 'broken-archives');
  const store = open();
  await edit(store, (_s, _ctx, tx) => {
    tx.putArchive(archive('chn_0000000000000003', 'never', 30));
    return REFUSED;
  });
  assert.deepEqual(await store.archives.list(), []);
  await raw.command(['HSET', 'oc:{broken-archives}:archives', 'chn_0000000000000004', '{not json', 'chn_0000000000000005', JSON.stringify(archive('chn_0000000000000006', 'wrong id', 1))]);
  assert.deepEqual(await store.archives.list(), []);
});

test('a change re-run after a conflict writes its archive once, with the state it finally committed', { skip }, async (t) => {
  const { open } = await rig(t);
  const rival = open();
  let isRivalDone = false;
  const store = open({
    beforeCommit: async () => {
      if (isRivalDone) return;
      isRivalDone = true;
      await edit(rival, (s) => {
        s.errors.push({ at: 2, message: 'rival' });
        return OK;
      });
    },
  });
  let runs = 0;
  await edit(store, (s, _ctx, tx) => {
    runs++;
    tx.putArchive(archive('chn_0000000000000007', `attempt ${runs}`, runs));
    s.errors.push({ at: 3, message: 'mine' });
    return OK;
  });
  assert.equal(runs, 2);
  assert.deepEqual((await rival.archives.list()).map((x) => x.name), ['attempt 2']);
  assert.deepEqual(await rival.readLatest((s) => s.errors.map((e) => e.message)), ['rival', 'mine']);
});

test('every commit publishes a notice, and a subscriber in another process hears it; a no-op change publishes none', { skip }, async (t) => {
  const { open } = await rig(t);
  const writer = open();
  const listener = open();
  const heard: string[] = [];
  let subscribed = 0;
  const watch = listener.watchCommits({ onCommit: (version) => heard.push(version), onSubscribed: () => subscribed++, log: () => undefined });
  t.after(() => watch.close());
  await eventually('the subscription', () => subscribed === 1);
  await edit(writer, (s) => {
    s.errors.push({ at: 1, message: 'one' });
    return OK;
  });
  const first = writer.loadedVersion()!;
  await edit(writer, () => OK); // nothing changed: nothing committed, nothing published
  await edit(writer, (s) => {
    s.errors.push({ at: 2, message: 'two' });
    return OK;
  });
  const second = writer.loadedVersion()!;
  // Notices arrive in commit order, so one for the no-op would stand between these two.
  await eventually('the second commit\'s notice', () => heard.includes(second));
  assert.deepEqual(heard, [first, second]);
});

test('a subscription lost with the server comes back after a restart and says so, so the listener looks again', { skip }, async (t) => {
  const { open, server } = await rig(t);
  const writer = open();
  const listener = open();
  let subscribed = 0;
  let commits = 0;
  const lines: string[] = [];
  const watch = listener.watchCommits({ onCommit: () => commits++, onSubscribed: () => subscribed++, log: (line) => lines.push(line) });
  t.after(() => watch.close());
  await eventually('the first subscription', () => subscribed === 1);
  await server.stop();
  await eventually('the loss to be logged', () => lines.length > 0);
  assert.match(lines[0]!, /lost the commit notices of redis:\/\/agent@127\.0\.0\.1:\d+\/0 \(store_unreachable\)/);
  await server.start();
  await eventually('the subscription to come back', () => subscribed >= 2, 10_000);
  await edit(writer, (s) => {
    s.errors.push({ at: 1, message: 'after restart' });
    return OK;
  });
  await eventually('a notice after the restart', () => commits === 1);
});

test('archives, notices and subscriptions work with exactly the ACL PROTOCOL.md asks operators to grant', { skip }, async (t) => {
  const { open } = await rig(t, MINIMAL_PROJECT);
  const store = open({ user: USERS.minimal });
  let subscribed = 0;
  let commits = 0;
  const watch = store.watchCommits({ onCommit: () => commits++, onSubscribed: () => subscribed++, log: () => undefined });
  t.after(() => watch.close());
  await eventually('the subscription', () => subscribed === 1);
  await edit(store, (_s, _ctx, tx) => {
    tx.putArchive(archive('chn_0000000000000008', 'acl', 1));
    return OK;
  });
  assert.deepEqual((await store.archives.list()).map((x) => x.name), ['acl']);
  await eventually('the notice', () => commits === 1);
});
