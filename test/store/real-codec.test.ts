// The store with the engine's own codec and operations: the path the server takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createChannel, joinChannel, sendMessage, channelHistory as history, emptyState, serializeState, parseState, timerAction, pauseChannel } from '../../src/engine';
import type { State } from '../../src/engine';
import { reparseState } from '../../src/engine/state-codec';
import { splitGeneration } from '../../src/store/file/load';
import { DEFAULT_CODEC } from '../../src/store/default-codec';
import { openStore } from '../../src/store';
import { tempProject } from './helpers';
import { pullDelivered } from '../engine/helpers';
import { statePathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

const PROJECT = { project_id: 'local-project', worktree: '/w' };

async function twoMembers(projectDir: string) {
  const store = openStore({ projectDir });
  const created = await edit(store, (s, ctx) =>
    createChannel(s, { channel: 'demo', role: 'writer', role_prompt: 'writes', session_id: 'alice', delivery_mode: 'pull', ...PROJECT }, ctx));
  assert.equal(created.ok, true, created.message);
  const joined = await edit(store, (s, ctx) =>
    joinChannel(s, { channel: 'demo', role: 'reviewer', role_prompt: 'reviews', session_id: 'bob', delivery_mode: 'pull', ...PROJECT }, ctx));
  assert.equal(joined.ok, true, joined.message);
  return { store, channelId: created.data?.channel_id as string };
}

test('engine send and pull through the store: delivered mail moves to history and stays readable', async (t) => {
  const { store, channelId } = await twoMembers(tempProject(t));
  const sent = await edit(store, (s, ctx) => sendMessage(s, { channel: 'demo', session_id: 'alice', content: 'please review', to: 'bob' }, ctx));
  assert.equal(sent.ok, true, sent.message);
  assert.equal(Object.keys(store.snapshot().messages).length, 1);
  const pulled = await edit(store, (s, ctx) => pullDelivered(s, 'bob', { channel: 'demo' }, ctx));
  assert.equal(pulled.ok, true, pulled.message);
  const s = store.snapshot();
  assert.deepEqual(s.messages, {}, 'finished envelopes left state.json');
  const records = store.history.list(channelId);
  assert.equal(records.length, 1);
  assert.equal(records[0].delivery_status, 'delivered');
  assert.deepEqual(records[0].delivered_to, ['bob']);
  const shown = store.read((st, ctx) => history(st, { channel: 'demo', session_id: 'bob' }, ctx));
  assert.equal(shown.ok, true);
  assert.ok(JSON.stringify(shown.data).includes('please review'));
  const reply = await edit(store, (st, ctx) =>
    sendMessage(st, { channel: 'demo', session_id: 'bob', content: 'done', to: 'alice', reply_to: records[0].message_id }, ctx));
  assert.equal(reply.ok, true, reply.message);
  const replyEnvelope = Object.values(store.snapshot().messages)[0];
  assert.equal(replyEnvelope.hop_count, 1, 'the parent was found in history');
});

test('a refused engine operation leaves the file untouched', async (t) => {
  const { store } = await twoMembers(tempProject(t));
  const before = readFileSync(statePathOf(store));
  const refused = await edit(store, (s, ctx) => sendMessage(s, { channel: 'nope', session_id: 'alice', content: 'x' }, ctx));
  assert.equal(refused.ok, false);
  assert.deepEqual(readFileSync(statePathOf(store)), before);
});

test('a state the engine rejects is quarantined byte-for-byte with the real codec', async (t) => {
  const store = openStore({ projectDir: tempProject(t), now: () => 1234 });
  mkdirSync(store.stateDir, { recursive: true });
  const bad = JSON.stringify({ schema_version: 2, channels: { x: { id: 'chn_1', name: 'y' } }, messages: {}, queues: {}, delivered_to: {}, errors: [] });
  writeFileSync(statePathOf(store), bad);
  await edit(store, (s, ctx) => createChannel(s, { channel: 'fresh', role: 'writer', role_prompt: 'w', session_id: 'alice', ...PROJECT }, ctx));
  assert.equal(readFileSync(join(store.stateDir, 'state.corrupt-1234.json'), 'utf8'), bad);
  const s = store.snapshot();
  assert.ok(s.errors.some((e) => e.message.includes('state.corrupt-1234.json')));
  assert.ok(s.channels.fresh);
});

// A minimal v1 file: the legacy schema with no channels yet.
const V1 = JSON.stringify({ schema_version: 1, channels: {}, messages: {}, queues: {}, delivered_to: {}, errors: [] });
const LEGACY_DIR = ['.opencode', 'comms'].join('-');

function writeLegacy(projectDir: string, text: string): string {
  mkdirSync(join(projectDir, LEGACY_DIR), { recursive: true });
  const path = join(projectDir, LEGACY_DIR, 'state.json');
  writeFileSync(path, text);
  return path;
}

test('a v1 state is migrated once, under the lock, with a backup and a marker; reads never migrate', async (t) => {
  const dir = tempProject(t);
  const legacy = writeLegacy(dir, V1);
  const store = openStore({ projectDir: dir });
  store.snapshot();
  assert.equal(existsSync(store.stateDir), false, 'the read path wrote nothing');
  await edit(store, () => ({ ok: true, message: '' }));
  assert.ok(store.snapshot().errors.some((e) => e.message.includes('Migrated')));
  assert.equal(readFileSync(join(store.stateDir, 'state.v1.bak.json'), 'utf8'), V1);
  assert.equal(readFileSync(legacy, 'utf8'), V1, 'the legacy file is never modified');
  assert.equal(JSON.parse(readFileSync(join(store.stateDir, 'MIGRATED_FROM_V1'), 'utf8')).schema, 1);
  const again = openStore({ projectDir: dir });
  await edit(again, (s) => {
    s.errors.push({ at: 1, message: 'later' });
    return { ok: true, message: '' };
  });
  assert.equal(again.snapshot().errors.filter((e) => e.message.includes('Migrated')).length, 1);
});

test('a placeholder v2 state is backed up and merged by the migration', async (t) => {
  const dir = tempProject(t);
  writeLegacy(dir, V1);
  const store = openStore({ projectDir: dir });
  mkdirSync(store.stateDir, { recursive: true });
  const placeholder = emptyState();
  placeholder.errors.push({ at: 1, message: 'from the placeholder' });
  writeFileSync(statePathOf(store), serializeState(placeholder));
  await edit(store, () => ({ ok: true, message: '' }));
  assert.equal(readFileSync(join(store.stateDir, 'state.v2.empty.bak.json'), 'utf8'), serializeState(placeholder));
  assert.ok(store.snapshot().errors.some((e) => e.message === 'from the placeholder'));
});

test('a real v2 state wins over a v1 file, and the question is settled', async (t) => {
  const dir = tempProject(t);
  await twoMembers(dir);
  writeLegacy(dir, V1);
  const store = openStore({ projectDir: dir });
  await edit(store, () => ({ ok: true, message: '' }));
  assert.ok(store.snapshot().channels.demo);
  const marker = JSON.parse(readFileSync(join(store.stateDir, 'MIGRATED_FROM_V1'), 'utf8'));
  assert.ok(marker.skipped);
});

test('a v1 file the codec rejects is reported and left untouched', async (t) => {
  const dir = tempProject(t);
  const legacy = writeLegacy(dir, '{"schema_version": 7}');
  const store = openStore({ projectDir: dir });
  await edit(store, (s, ctx) => createChannel(s, { channel: 'demo', role: 'writer', role_prompt: 'w', session_id: 'alice', ...PROJECT }, ctx));
  assert.ok(store.snapshot().errors.some((e) => e.message.includes('Legacy state rejected')));
  assert.equal(readFileSync(legacy, 'utf8'), '{"schema_version": 7}');
  assert.ok(JSON.parse(readFileSync(join(store.stateDir, 'MIGRATED_FROM_V1'), 'utf8')).rejected);
});

test('a state the engine writes is exact under validation, so reparse rebuilds exactly what parseState returns', async (t) => {
  const store = openStore({ projectDir: tempProject(t), now: () => 1_700_000_000_000 });
  const ok = (r: { ok: boolean; message: string }) => assert.equal(r.ok, true, r.message);
  const base = { role_prompt: 'p', ...PROJECT };
  ok(await edit(store, (s, ctx) => createChannel(s, { ...base, channel: 'rich', role: 'lead', session_id: 'alice', delivery_mode: 'pull' }, ctx)));
  ok(await edit(store, (s, ctx) => joinChannel(s, { ...base, channel: 'rich', role: 'pushed', session_id: 'bob', delivery_mode: 'spawn_push', host_session_id: 'h1', stale_policy: { mode: 'window', window_ms: 60_000 } } as never, ctx)));
  ok(await edit(store, (s, ctx) => joinChannel(s, { ...base, channel: 'rich', role: 'third', session_id: 'carol', delivery_mode: 'pull' }, ctx)));
  ok(await edit(store, (s, ctx) => sendMessage(s, { channel: 'rich', session_id: 'alice', content: 'to all, ünïcödé ✓', broadcast: true }, ctx)));
  ok(await edit(store, (s, ctx) => sendMessage(s, { channel: 'rich', session_id: 'carol', content: 'just you', to: 'alice' }, ctx)));
  ok(await edit(store, (s, ctx) => pullDelivered(s, 'carol', { channel: 'rich' }, ctx)));
  ok(await edit(store, (s, ctx) => timerAction(s, { channel: 'rich', session_id: 'alice', action: 'start' }, ctx)));
  ok(await edit(store, (s, ctx) => pauseChannel(s, { channel: 'rich', session_id: 'alice' }, ctx)));
  // the store's generation key comes first and is not the engine's: the codec sees the rest
  const { generation, body: text } = splitGeneration(readFileSync(statePathOf(store), 'utf8'));
  assert.equal(generation, 8, 'one generation per committed change');
  const parsed = parseState(text, 0);
  assert.equal(parsed.ok, true);
  if (!parsed.ok) return;
  assert.deepEqual(parsed.notes, []);
  assert.equal(serializeState(parsed.state), text);
  const rebuilt = reparseState(text);
  assert.deepStrictEqual(rebuilt, parsed.state);
  assert.notEqual(rebuilt, reparseState(text), 'each call gives a fresh object');
});

test('a snapshot teaches the memo: the next load of that same text skips validation, and any other text is validated', async (t) => {
  const dir = tempProject(t);
  await twoMembers(dir);
  let parses = 0;
  const codec = { ...DEFAULT_CODEC, parseState: (text: string, now: number) => { parses++; return DEFAULT_CODEC.parseState(text, now); } };
  const store = openStore({ projectDir: dir, codec });
  const seen = store.snapshot();
  assert.equal(parses, 1);
  seen.errors.push({ at: 1, message: 'scribbled on the snapshot' });
  let loaded: State | undefined;
  await edit(store, (s) => {
    loaded = structuredClone(s);
    return { ok: true, message: 'no change' };
  });
  assert.equal(parses, 1, 'the same text was not validated again');
  const full = DEFAULT_CODEC.parseState(readFileSync(statePathOf(store), 'utf8'), 0);
  assert.ok(full.ok);
  assert.deepStrictEqual(loaded, full.state, 'the rebuilt state is the validated one, and shares nothing with the snapshot');
  // Same length, different bytes: validated again.
  const text = readFileSync(statePathOf(store), 'utf8');
  writeFileSync(statePathOf(store), text.replace('"role_prompt":"writes"', '"role_prompt":"wrotes"'));
  await edit(store, (s) => {
    loaded = s;
    return { ok: true, message: 'no change' };
  });
  assert.equal(parses, 2);
  assert.equal(loaded?.channels.demo?.members[0]?.role_prompt, 'wrotes');
  // A text that validation repairs (here a missing created_at) is never taken as exact.
  const raw = JSON.parse(readFileSync(statePathOf(store), 'utf8')) as { channels: Record<string, Record<string, unknown>> };
  delete raw.channels.demo!.created_at;
  writeFileSync(statePathOf(store), JSON.stringify(raw));
  store.snapshot();
  await edit(store, () => ({ ok: true, message: 'repair' }));
  assert.equal(parses, 4, 'the repaired text was validated by the snapshot and again by the mutation');
  assert.ok(store.snapshot().errors.some((e) => e.message.includes('created_at set to its default')));
});
