// Who a server process speaks as: OPENCOMMS_MEMBER_ID, else the member of
// its host session (an older install's pin adopted by the first session);
// never a tool argument. Every protected call re-checks the live roster.
// Adopting pins, where the session and the process are the subject, runs
// on real server processes, as does the first bad OPENCOMMS_MEMBER_ID; the
// other tables run the same servers in this process (localMember), and the
// pin and doctor commands run in this process (runCliInProcess).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { tempProject } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import type { InProcessServer } from '../helpers/server-in-process';
import { create, editState, join, localChannelOf, localMember, member, ok, refused, type Speaker } from './tools-support';

async function pin(project: string, host: string, id?: string): Promise<string> {
  const run = await runCliInProcess(['pin', '--project', project, '--host', host, ...(id ? ['--id', id] : [])], {
    env: { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined },
  });
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.trim();
}

async function startUpLine(server: Pick<InProcessServer, 'waitFor' | 'stderr'>): Promise<string> {
  return server.waitFor('the start-up line', () => server.stderr.split('\n').find((l) => l.includes('serving project')));
}

async function assertUnpinnedEverywhere(server: Speaker): Promise<void> {
  const args = { channel: 'c', role: 'writer', role_prompt: 'write' };
  for (const [name, call] of [
    ['opencomms_create', args],
    ['opencomms_join', args],
    ['opencomms_send', { channel: 'c', content: 'hello' }],
  ] as const) {
    const refusal = await refused(server, name, call, 'unpinned');
    assert.match(refusal.message, /opencomms pin/, name);
  }
}

const BAD_IDS: [string, string][] = [
  ['the installer placeholder', '<set by: opencomms install-member>'],
  ['an id with a space', 'has space'],
  ['a 65-character id', `a${'b'.repeat(64)}`],
  ['an id starting with a dash', '-sess'],
];

for (const [what, id] of BAD_IDS) {
  test(`${what} in OPENCOMMS_MEMBER_ID is refused as unpinned on create, join and send, and the start-up line says so`, async (t) => {
    const server = await (id === BAD_IDS[0]![1] ? member : localMember)(t, tempProject(t), id);
    await assertUnpinnedEverywhere(server);
    const line = await startUpLine(server);
    assert.match(line, /NO identity/);
    assert.match(line, /opencomms pin/);
  });
}

test('a 64-character OPENCOMMS_MEMBER_ID, padded with spaces, is a valid identity after trimming', async (t) => {
  const id = `a${'b'.repeat(63)}`;
  const server = await localMember(t, tempProject(t), `  ${id} `);
  const created = await create(server, 'c', 'writer');
  assert.equal(created.data.session_id, id);
});

test('without OPENCOMMS_MEMBER_ID the single pin of an older install is adopted by the first session of its host', async (t) => {
  const project = tempProject(t);
  const id = await pin(project, 'claude-code');
  assert.match(id, /^sess_[0-9a-f]{24}$/);
  const server = await member(t, project, undefined, 'claude-code', 'claude-session-1');
  const created = await create(server, 'c', 'writer');
  assert.equal(created.data.session_id, id);
  const status = await ok(server, 'opencomms_status', {});
  assert.equal(status.data.member_id, id);
});

test('two unclaimed pins of one host are never guessed between: each new session gets a member of its own, and doctor lists both and how to retire them', async (t) => {
  const project = tempProject(t);
  const first = await pin(project, 'claude-code');
  const second = await pin(project, 'claude-code');
  const ids: string[] = [];
  for (const session of ['one', 'two']) {
    const server = await member(t, project, undefined, 'claude-code', `claude-session-${session}`);
    ids.push((await ok(server, 'opencomms_status', {})).data.member_id);
  }
  for (const id of ids) assert.match(id, /^sess_[0-9a-f]{32}$/);
  assert.equal(new Set([...ids, first, second]).size, 4, 'no session took either pin');
  const doctor = await runCliInProcess(['doctor', '--project', project, '--json'], { env: { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined } });
  const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'pins claude-code');
  assert.ok(check, doctor.stdout);
  assert.equal(check.status, 'warn');
  for (const id of [first, second]) assert.match(check.message, new RegExp(`\\.opencomms/pins/${id}\\.json`));
});

test('the one unclaimed pin of a host is adopted even when another host has pins of its own', async (t) => {
  const project = tempProject(t);
  const mine = await pin(project, 'claude-code');
  await pin(project, 'codex');
  await pin(project, 'codex');
  const server = await member(t, project, undefined, 'claude-code', 'claude-session-1');
  assert.equal((await ok(server, 'opencomms_status', {})).data.member_id, mine);
});

test('a pin a live OPENCOMMS_MEMBER_ID server speaks as is not adopted by a new session; once that server is gone, it is', async (t) => {
  const project = tempProject(t);
  const id = await pin(project, 'claude-code');
  const holder = await member(t, project, id, 'claude-code');
  await ok(holder, 'opencomms_status', {});
  const newcomer = await member(t, project, undefined, 'claude-code', 'claude-session-new');
  const newId = (await ok(newcomer, 'opencomms_status', {})).data.member_id;
  assert.notEqual(newId, id, 'two processes would speak as one member');
  await holder.close();
  const later = await member(t, project, undefined, 'claude-code', 'claude-session-later');
  assert.equal((await ok(later, 'opencomms_status', {})).data.member_id, id);
});

test('a pin of another host is never adopted', async (t) => {
  const project = tempProject(t);
  await pin(project, 'codex', 'sess_codex_member');
  const server = await member(t, project, undefined, 'claude-code', 'claude-session-1');
  const created = await create(server, 'c', 'writer');
  assert.notEqual(created.data.session_id, 'sess_codex_member');
  assert.match(created.data.session_id, /^sess_[0-9a-f]{32}$/);
});

test('a pin file whose member_id differs from its file name is never adopted', async (t) => {
  const project = tempProject(t);
  const pins = joinPath(project, '.opencomms', 'pins');
  mkdirSync(pins, { recursive: true });
  writeFileSync(joinPath(pins, 'sess_file_name.json'), JSON.stringify({ member_id: 'sess_inside', host: 'mcp', saved_at: 1 }));
  const server = await member(t, project, undefined, 'mcp');
  const created = await create(server, 'c', 'writer');
  assert.equal(['sess_inside', 'sess_file_name'].includes(created.data.session_id), false);
});

test('create and join need only a valid pin, while the other tools need membership', async (t) => {
  const project = tempProject(t);
  const fresh = await localMember(t, project, 'sess_fresh');
  await refused(fresh, 'opencomms_send', { channel: 'c', content: 'hi' }, 'channel_not_found');
  await refused(fresh, 'opencomms_pull', {}, 'not_member');
  await refused(fresh, 'opencomms_inbox', { channel: 'c' }, 'channel_not_found');
  await create(fresh, 'c', 'writer');
  await refused(fresh, 'opencomms_send', { channel: 'c', content: 'hi' }, 'no_recipient');
  const other = await localMember(t, project, 'sess_other');
  await refused(other, 'opencomms_history', { channel: 'c' }, 'not_member');
  await join(other, 'c', 'reviewer');
  await ok(other, 'opencomms_history', { channel: 'c' });
});

test('a member who disconnected is denied at once on its next call', async (t) => {
  const [writer, reviewer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer', 'tester']);
  await ok(reviewer!, 'opencomms_disconnect', { channel: 'c' });
  await refused(reviewer!, 'opencomms_send', { channel: 'c', content: 'back again', to: 'writer' }, 'not_member');
  await refused(reviewer!, 'opencomms_history', { channel: 'c' }, 'not_member');
  await refused(reviewer!, 'opencomms_pull', {}, 'not_member');
  await refused(writer!, 'opencomms_send', { channel: 'c', content: 'to the one who left', to: 'reviewer' }, 'unknown_recipient');
});

test('a kicked member is denied at once on every protected tool', async (t) => {
  const [writer, reviewer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer', 'tester']);
  await ok(writer!, 'opencomms_kick', { channel: 'c', target_role: 'reviewer' });
  for (const [name, args] of [
    ['opencomms_inbox', { channel: 'c' }],
    ['opencomms_history', { channel: 'c' }],
    ['opencomms_pause', { channel: 'c' }],
    ['opencomms_update_role', { channel: 'c', role_prompt: 'new me' }],
    ['opencomms_timer', { channel: 'c', action: 'status' }],
    ['opencomms_save_session', { channel: 'c' }],
  ] as const) {
    await refused(reviewer!, name, args, 'not_member');
  }
});

test('a member who is away (its session ended) is still a member: its own calls are answered', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await localChannelOf(t, project, 'c', ['writer', 'reviewer']);
  await ok(reviewer!, 'opencomms_inbox', { channel: 'c' });
  editState(project, (state) => {
    const entry = state.channels.c.members.find((m: { session_id: string }) => m.session_id === 'sess_reviewer');
    entry.stale = true;
    entry.stale_at = Date.now();
  });
  await ok(reviewer!, 'opencomms_inbox', { channel: 'c' });
  await ok(reviewer!, 'opencomms_send', { channel: 'c', content: 'back again' });
  await ok(writer!, 'opencomms_inbox', { channel: 'c' });
});

for (const forged of ['sender_session_id', 'session_id', 'from']) {
  test(`send refuses a ${forged} argument as unknown: no argument chooses the sender`, async (t) => {
    const [, reviewer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
    const refusal = await refused(reviewer!, 'opencomms_send', { channel: 'c', content: 'as the writer', [forged]: 'sess_writer' }, 'invalid_argument');
    assert.equal(refusal.data.argument, forged);
  });
}

test('create and kick refuse a session_id argument as unknown', async (t) => {
  const project = tempProject(t);
  const server = await localMember(t, project, 'sess_writer');
  const refusal = await refused(server, 'opencomms_create', {
    channel: 'c', role: 'writer', role_prompt: 'write', session_id: 'sess_someone_else',
  }, 'invalid_argument');
  assert.equal(refusal.data.argument, 'session_id');
  await create(server, 'c', 'writer');
  const kick = await refused(server, 'opencomms_kick', { channel: 'c', target_role: 'x', session_id: 'sess_other' }, 'invalid_argument');
  assert.equal(kick.data.argument, 'session_id');
});

test('the envelope sender is always the pinned member, as the receiver and history see it', async (t) => {
  const [writer, reviewer] = await localChannelOf(t, tempProject(t), 'c', ['writer', 'reviewer']);
  const sent = await ok(reviewer!, 'opencomms_send', { channel: 'c', content: 'signed by my pin' });
  const pulled = await ok(writer!, 'opencomms_pull', {});
  assert.match(pulled.data.messages[0].framed, /^\[OpenComms message from reviewer \(sess_reviewer\)/);
  const history = await ok(writer!, 'opencomms_history', { channel: 'c' });
  const entry = history.data.messages.find((m: { message_id: string }) => m.message_id === sent.data.message_ids[0]);
  assert.equal(entry.sender_session_id, 'sess_reviewer');
  assert.equal(entry.sender_role, 'reviewer');
});

test('an away member may still delete the live channel it is listed in', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await localChannelOf(t, project, 'c', ['writer', 'reviewer']);
  editState(project, (state) => {
    for (const entry of state.channels.c.members) if (entry.session_id === 'sess_reviewer') entry.stale = true;
  });
  await ok(reviewer!, 'opencomms_delete_session', { channel: 'c', confirm: true });
  await refused(writer!, 'opencomms_history', { channel: 'c' }, 'channel_not_found');
});
