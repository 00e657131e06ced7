// A Redis commit is all or nothing, against a real redis-server: a project
// key of the wrong type (a hand edit, another tool, a bad restore) makes the
// commit refuse before it writes anything, with store_key_wrong_type naming
// the key and its type; every key of the project then reads back byte for
// byte as before, and once the key is removed the same change commits once.
// The last test drives the shipped server: the tool's refusal is true, and
// the agent's retry after the repair delivers once.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Envelope, SessionArchive, State } from '../../../src/engine/index';
import { parseFrames } from '../../../src/engine';
import { StoreFault } from '../../../src/files/faults';
import { RedisClient } from '../../../src/store/redis/client';
import { keyPrefixOf } from '../../../src/store/redis/config';
import { createRedisStore, type RedisStore, type RedisStoreOptions } from '../../../src/store/redis/redis-store';
import { keysOf, type RedisKeys } from '../../../src/store/redis/keys';
import type { StoreTx } from '../../../src/store/contract';
import type { EngineCtx } from '../../../src/engine/types';
import { randomHex } from '../../../src/process/crypto';
import { envelope, OK } from '../helpers';
import { TEST_CODEC } from '../test-codec';
import { startServer, tempProject, type Json, type ServerProcess } from '../../helpers/server';
import { callRaw, create, join as joinChannel, memberEnv, ok } from '../../e2e/tools-support';
import { configFor, MINIMAL_PROJECT, SKIP_WITHOUT_REDIS, startRedis, USERS, type RedisServer } from './server';
import { until as eventually } from '../../helpers/wait';
import { edit } from '../../helpers/edit';

const skip = SKIP_WITHOUT_REDIS;
if (skip) test('Redis commit tests need redis-server', { skip }, () => undefined);

const CHANNEL = 'chn_00000000000000c1';
/** The store's clock, fixed: the quarantine key of a rejected state is named after it. */
const NOW = 1_700_000_123_456;

const text = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v));

function archive(channelId: string, name: string): SessionArchive {
  return {
    schema: 1, channel_id: channelId, name, parent_channel_id: null, description: null, summary: 'done',
    members: [], budgets: {} as SessionArchive['budgets'], created_at: 1, saved_at: 2, saved_by: null, saved_by_role: null,
    message_count: 0, final_state_note: null, messages: [],
  };
}

function put(state: State, e: Envelope): void {
  state.messages[e.message_id] = e;
  (state.queues[e.recipient_session_id] ??= []).push(e.message_id);
}

type Change = (state: State, ctx: EngineCtx, tx: StoreTx) => typeof OK;

/**
 * A change that touches every key a commit can write: the state (an error
 * line), the archives (one saved session), the channel's history stream (a
 * finished envelope moves there), the version and the commit list.
 */
function everyKeyChange(label: string, finished: Envelope, readsHistory = false): Change {
  return (s, ctx, tx) => {
    if (readsHistory) ctx.history.list(CHANNEL);
    tx.putArchive(archive(`chn_${label.padStart(16, '0')}`, label));
    put(s, finished);
    s.errors.push({ at: 1, message: label });
    return OK;
  };
}

/** Every key of the project, with its type and its DUMP bytes: the same snapshot means nothing changed. */
async function snapshot(raw: RedisClient, keys: RedisKeys): Promise<Record<string, string>> {
  const names = ((await raw.command(['KEYS', keys.pattern])) as Buffer[]).map(text).sort();
  const seen: Record<string, string> = {};
  for (const name of names) seen[name] = `${text(await raw.command(['TYPE', name]))} ${(await raw.command(['DUMP', name]) as Buffer).toString('base64')}`;
  return seen;
}

interface Plant {
  what: string;
  /** The key that gets a value of the wrong type. */
  key(keys: RedisKeys): string;
  /** Writes that value (the key was deleted first). */
  plant(raw: RedisClient, key: string): Promise<unknown>;
  /** The type TYPE reports for it, which the refusal must name. */
  type: string;
  /** Sets the state aside as rejected first, so the commit writes the quarantine copy. */
  rejectsState?: boolean;
  readsHistory?: boolean;
}

const PLANTS: Plant[] = [
  { what: 'the version, holding a hash', key: (k) => k.version, plant: (raw, key) => raw.command(['HSET', key, 'v', '1']), type: 'hash' },
  { what: 'the state, holding a hash', key: (k) => k.state, plant: (raw, key) => raw.command(['HSET', key, 'channels', '{}']), type: 'hash' },
  { what: 'the commit list, holding a hash', key: (k) => k.commits, plant: (raw, key) => raw.command(['HSET', key, 't', '1']), type: 'hash' },
  { what: 'the archives, holding a string', key: (k) => k.archives, plant: (raw, key) => raw.command(['SET', key, 'not a hash']), type: 'string' },
  { what: 'the history stream, holding a list', key: (k) => k.history(CHANNEL), plant: (raw, key) => raw.command(['RPUSH', key, 'not a stream']), type: 'list' },
  {
    what: 'the history stream, holding a list, read by the change', key: (k) => k.history(CHANNEL),
    plant: (raw, key) => raw.command(['RPUSH', key, 'not a stream']), type: 'list', readsHistory: true,
  },
  {
    what: 'the quarantine copy of a rejected state, holding a list', key: (k) => k.corrupt(NOW),
    plant: (raw, key) => raw.command(['RPUSH', key, 'not a string']), type: 'list', rejectsState: true,
  },
];

async function rig(t: TestContext, server: RedisServer, projectId: string): Promise<{ raw: RedisClient; open(o?: Partial<RedisStoreOptions>): RedisStore }> {
  const dir = mkdtempSync(join(tmpdir(), 'oc-redis-commit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const raw = new RedisClient({ host: '127.0.0.1', port: server.port, isTls: false, username: USERS.agent.name, password: USERS.agent.password, db: 0, timeoutMs: 2_000 });
  t.after(() => raw.close());
  return {
    raw,
    open: (options = {}) => {
      const store = createRedisStore({ config: configFor(server.port, projectId), codec: TEST_CODEC, projectDir: dir, now: () => NOW, ...options });
      t.after(() => store.close());
      return store;
    },
  };
}

test('a refused Redis commit changes nothing, whichever key has the wrong type, and the same change commits once after the repair', { skip }, async (t) => {
  const server = await startRedis(t);
  for (const plant of PLANTS) {
    await t.test(plant.what, async (t) => {
      const projectId = `wt-${randomHex(4)}`;
      const keys = keysOf(keyPrefixOf(projectId));
      const { raw, open } = await rig(t, server, projectId);
      // Every key exists with its right type first: a state, a version, a commit, an archive, a stream.
      await edit(open(), everyKeyChange('seed', envelope({ channel_id: CHANNEL, delivery_status: 'delivered' })));
      if (plant.rejectsState) await raw.command(['SET', keys.state, '{"not": "a state"']);
      const key = plant.key(keys);
      await raw.command(['DEL', key]);
      await plant.plant(raw, key);
      const before = await snapshot(raw, keys);

      const finished = envelope({ channel_id: CHANNEL, delivery_status: 'delivered' });
      const change = everyKeyChange('change', finished, plant.readsHistory);
      const store = open();
      const err: unknown = await edit(store, change).then(() => undefined, (e: unknown) => e);
      assert.deepEqual(await snapshot(raw, keys), before, 'every key of the project reads back byte for byte');
      assert.ok(err instanceof StoreFault, `refused with a store fault, not ${String(err)}`);
      assert.equal(err.code, 'store_key_wrong_type', err.message);
      assert.ok(err.message.includes(key), `the refusal names ${key}: ${err.message}`);
      assert.match(err.message, new RegExp(`\\b${plant.type}\\b`), 'the refusal names the type found');
      assert.match(err.message, /DEL /, 'the refusal says how to repair it');

      await raw.command(['DEL', key]);
      await edit(store, change);
      const fresh = open();
      const seen = await fresh.readLatest((s, ctx) => ({
        changes: s.errors.filter((e) => e.message === 'change').length,
        moved: ctx.history.list(CHANNEL).filter((r) => r.message_id === finished.message_id).length,
      }));
      assert.deepEqual(seen, { changes: 1, moved: 1 }, 'the retry committed once');
      assert.equal((await fresh.archives.get('chn_0000000000change'))?.name, 'change');
      const tokens = (await raw.command(['LRANGE', keys.commits, 0, -1])) as Buffer[];
      assert.equal(tokens.length, plant.key(keys) === keys.commits ? 1 : 2, 'one commit token per commit');
      if (plant.rejectsState) assert.equal(text(await raw.command(['GET', key])), '{"not": "a state"', 'the rejected state was set aside after the repair');
    });
  }
});

// ---- through the shipped server ----------------------------------------------

/** The content of each message a pull returned. */
function contentsOf(result: Json): string[] {
  return (result.data?.messages ?? []).map((m: Json) => {
    const parsed = parseFrames(m.framed);
    assert.ok(parsed.ok, `unparseable frame: ${m.framed}`);
    return parsed.frames[0]!.content;
  });
}

test('a tool that meets a Redis key of the wrong type answers an error, changes nothing, and the retry after the repair delivers once', { skip, timeout: 60_000 }, async (t) => {
  const redis = await startRedis(t);
  const projectId = `wt-e2e-${randomHex(4)}`;
  const keys = keysOf(keyPrefixOf(projectId));
  const raw = new RedisClient({ host: '127.0.0.1', port: redis.port, isTls: false, username: USERS.agent.name, password: USERS.agent.password, db: 0, timeoutMs: 2_000 });
  t.after(() => raw.close());
  const env = {
    OPENCOMMS_STORE: `redis://${USERS.agent.name}@127.0.0.1:${redis.port}/0`,
    OPENCOMMS_STORE_PASSWORD: USERS.agent.password,
    OPENCOMMS_STORE_PASSWORD_FILE: undefined,
    OPENCOMMS_STORE_CA: undefined,
  };
  const member = async (id: string): Promise<ServerProcess> => {
    const folder = tempProject(t);
    const server = startServer(t, { project: folder, args: ['--project', folder, '--host', 'mcp'], env: { ...memberEnv(id), ...env, OPENCOMMS_PROJECT_ID: projectId } });
    await server.initialize();
    return server;
  };
  const writer = await member('sess_writer');
  const reviewer = await member('sess_reviewer');
  await create(writer, 'design', 'writer');
  await joinChannel(reviewer, 'design', 'reviewer');

  // send: the commit list is a hash. The tool says it failed, so nothing may be queued.
  await raw.command(['DEL', keys.commits]);
  await raw.command(['HSET', keys.commits, 'x', '1']);
  const before = await snapshot(raw, keys);
  const refusedSend = await callRaw(writer, 'opencomms_send', { channel: 'design', content: 'exactly once' });
  assert.equal(refusedSend.isError, true, 'the send is answered as an error');
  assert.deepEqual(await snapshot(raw, keys), before, 'the refused send changed nothing');
  assert.equal(refusedSend.structuredContent.data.reason, 'store_key_wrong_type', refusedSend.structuredContent.message);
  assert.ok(String(refusedSend.structuredContent.message).includes(keys.commits), refusedSend.structuredContent.message);
  await raw.command(['DEL', keys.commits]);
  await ok(writer, 'opencomms_send', { channel: 'design', content: 'exactly once' });
  assert.deepEqual(contentsOf(await ok(reviewer, 'opencomms_pull', {})), ['exactly once'], 'the retry delivered once');
  // The pull commits "delivered" once its reply is written, in a change of its own: the snapshot
  // below must come after that change (it moves the message to its history stream), not race it.
  await eventually('the pulled message in its history stream', async () => {
    const state = JSON.parse(String(await raw.command(['GET', keys.state]))) as State;
    return Object.keys(state.messages).length === 0;
  });

  // save_session: the archives key is a string. The channel and its mail must stay.
  await ok(writer, 'opencomms_send', { channel: 'design', content: 'still undelivered' });
  await raw.command(['SET', keys.archives, 'not a hash']);
  const beforeSave = await snapshot(raw, keys);
  const refusedSave = await callRaw(writer, 'opencomms_save_session', { channel: 'design', summary: 'done' });
  assert.equal(refusedSave.isError, true, 'the save is answered as an error');
  assert.deepEqual(await snapshot(raw, keys), beforeSave, 'the refused save changed nothing');
  assert.equal(refusedSave.structuredContent.data.reason, 'store_key_wrong_type', refusedSave.structuredContent.message);
  assert.deepEqual((await ok(reviewer, 'opencomms_status', {})).data.channels.map((c: Json) => c.name), ['design']);
  await raw.command(['DEL', keys.archives]);
  const saved = await ok(writer, 'opencomms_save_session', { channel: 'design', summary: 'done' });
  const listed = await ok(reviewer, 'opencomms_archive', {});
  assert.deepEqual(listed.data.archives.map((a: Json) => a.archive_id ?? a.channel_id), [saved.data.archive_id], 'one archive');
});

test('the checks before a commit need no command beyond the ACL PROTOCOL.md asks operators to grant', { skip }, async (t) => {
  const server = await startRedis(t);
  const keys = keysOf(keyPrefixOf(MINIMAL_PROJECT));
  const { raw, open } = await rig(t, server, MINIMAL_PROJECT);
  const store = open({ config: configFor(server.port, MINIMAL_PROJECT, USERS.minimal) });
  await raw.command(['SET', keys.archives, 'not a hash']);
  const before = await snapshot(raw, keys);
  const finished = envelope({ channel_id: CHANNEL, delivery_status: 'delivered' });
  await assert.rejects(edit(store, everyKeyChange('minimal', finished)), (err: unknown) => {
    assert.ok(err instanceof StoreFault);
    assert.equal(err.code, 'store_key_wrong_type', err.message);
    assert.ok(err.message.includes(`${keys.archives} holding a string where OpenComms keeps a hash`), err.message);
    return true;
  });
  assert.deepEqual(await snapshot(raw, keys), before);
  await raw.command(['DEL', keys.archives]);
  await edit(store, everyKeyChange('minimal', finished));
  assert.equal((await store.archives.get('chn_000000000minimal'))?.name, 'minimal');
});
