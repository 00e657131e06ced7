// Which member a hook speaks for: binding at SessionStart (one pin binds,
// several never guess), OPENCOMMS_MEMBER_ID rebinding, and staleness at
// SessionEnd cleared by the next prompt.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writePin } from '../../src/local/pins';
import { processHostTag } from '../../src/process/place';
import { channelWith, claudeEvent, codexEvent, hook, send, stateOf, tempProject, textOf } from './support';
import { edit } from '../helpers/edit';

function memberships(state: ReturnType<typeof stateOf>, id: string) {
  return Object.values(state.channels).flatMap((c) => c.members.filter((m) => m.session_id === id));
}

test('SessionStart binds the single unbound pin of this host, and the session then gets its mail', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author' }]);
  writePin(project, { member_id: 'alice-1', host: 'claude-code' });
  writePin(project, { member_id: 'bob-1', host: 'mcp' });
  await send(store, 'review', 'bob-1', 'alice-1', ['welcome']);
  const start = await hook(project, claudeEvent('SessionStart', 'new-session', { source: 'startup' }));
  assert.match(textOf(start.answer), /welcome/);
  assert.deepEqual(memberships(stateOf(store), 'alice-1').map((m) => m.host_session_id), ['new-session']);
  await send(store, 'review', 'bob-1', 'alice-1', ['second']);
  assert.match(textOf((await hook(project, claudeEvent('UserPromptSubmit', 'new-session'))).answer), /second/);
});

test('SessionStart with no mail still binds, writing the binding only', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author' }]);
  writePin(project, { member_id: 'alice-1', host: 'claude-code' });
  assert.deepEqual((await hook(project, claudeEvent('SessionStart', 's-1'))).answer, {});
  assert.equal(memberships(stateOf(store), 'alice-1')[0]!.host_session_id, 's-1');
});

test('two candidate pins: a systemMessage lists them and says how to choose; nothing is bound', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'alice-1', role: 'author' }, { id: 'alice-2', role: 'tester' }]);
  writePin(project, { member_id: 'alice-1', host: 'claude-code' });
  writePin(project, { member_id: 'alice-2', host: 'claude-code' });
  await send(store, 'review', 'alice-2', 'alice-1', ['not for a guess']);
  const run = await hook(project, claudeEvent('SessionStart', 's-x'));
  assert.deepEqual(Object.keys(run.answer), ['systemMessage']);
  assert.match(run.answer.systemMessage, /alice-1/);
  assert.match(run.answer.systemMessage, /alice-2/);
  assert.match(run.answer.systemMessage, /OPENCOMMS_MEMBER_ID/);
  for (const m of stateOf(store).channels.review!.members) assert.equal(m.host_session_id, null);
  assert.equal(stateOf(store).queues['alice-1']!.length, 1);
});

test('a pin whose member is bound to a live session is not taken; one whose session ended (stale) is', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: 'bob-1', role: 'reviewer', host: 'mcp' },
    { id: 'alice-1', role: 'author', hostSessionId: 'old-session' },
  ]);
  writePin(project, { member_id: 'alice-1', host: 'claude-code' });
  assert.deepEqual((await hook(project, claudeEvent('SessionStart', 'intruder'))).answer, {});
  assert.equal(memberships(stateOf(store), 'alice-1')[0]!.host_session_id, 'old-session');
  await hook(project, claudeEvent('SessionEnd', 'old-session', { reason: 'clear' }));
  assert.equal(memberships(stateOf(store), 'alice-1')[0]!.stale, true);
  await hook(project, claudeEvent('SessionStart', 'after-clear', { source: 'clear' }));
  const member = memberships(stateOf(store), 'alice-1')[0]!;
  assert.equal(member.host_session_id, 'after-clear');
  assert.equal(member.stale, false);
});

test('pins of another host are not candidates', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'gem-1', role: 'author', host: 'gemini-cli' }]);
  writePin(project, { member_id: 'gem-1', host: 'gemini-cli' });
  assert.deepEqual((await hook(project, claudeEvent('SessionStart', 'claude-s'))).answer, {});
  assert.equal(memberships(stateOf(store), 'gem-1')[0]!.host_session_id, null);
});

test('binding happens only at SessionStart: an unknown session at a prompt gets {}', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author' }]);
  writePin(project, { member_id: 'alice-1', host: 'claude-code' });
  await send(store, 'review', 'bob-1', 'alice-1', ['later']);
  assert.deepEqual((await hook(project, claudeEvent('UserPromptSubmit', 'unknown'))).answer, {});
  assert.equal(memberships(stateOf(store), 'alice-1')[0]!.host_session_id, null);
});

test('OPENCOMMS_MEMBER_ID: SessionStart rebinds that member to the new session and delivers its mail', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: 'bob-1', role: 'reviewer', host: 'mcp' },
    { id: 'alice-1', role: 'author', host: 'codex', hostSessionId: 'old' },
  ]);
  await send(store, 'review', 'bob-1', 'alice-1', ['env mail']);
  const env = { OPENCOMMS_MEMBER_ID: 'alice-1' };
  const start = await hook(project, codexEvent('SessionStart', 'fresh', { turn_id: undefined }), env);
  assert.match(textOf(start.answer), /env mail/);
  assert.equal(memberships(stateOf(store), 'alice-1')[0]!.host_session_id, 'fresh');
  // With the env id set, later events need no binding at all.
  await send(store, 'review', 'bob-1', 'alice-1', ['more']);
  assert.match(textOf((await hook(project, claudeEvent('PostToolUse', 'whatever'), env)).answer), /more/);
});

test('an invalid OPENCOMMS_MEMBER_ID answers {}, warns, and records the error', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author', hostSessionId: 's' }]);
  await send(store, 'review', 'bob-1', 'alice-1', ['kept']);
  const run = await hook(project, claudeEvent('UserPromptSubmit', 's'), { OPENCOMMS_MEMBER_ID: '<your member id>' });
  assert.deepEqual(run.answer, {});
  assert.equal(run.warnings.length, 1);
  const errors = stateOf(store).errors.map((e) => e.message);
  assert.ok(errors.some((m) => /OPENCOMMS_MEMBER_ID/.test(m)), JSON.stringify(errors));
  assert.equal(stateOf(store).queues['alice-1']!.length, 1);
});

test('a hook for an OPENCOMMS_MEMBER_ID that is in no roster answers {} and records why, once, where status and doctor show it', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author' }]);
  for (let i = 0; i < 3; i += 1) {
    const run = await hook(project, claudeEvent('UserPromptSubmit', 's'), { OPENCOMMS_MEMBER_ID: 'sess_nobody' });
    assert.deepEqual(run.answer, {});
    assert.match(run.warnings.join('\n'), /OPENCOMMS_MEMBER_ID=sess_nobody is in no channel/);
  }
  const recorded = stateOf(store).errors.filter((e) => e.member_id === 'sess_nobody');
  assert.equal(recorded.length, 1, 'recorded once, not on every prompt');
  assert.match(recorded[0]!.message, /run `opencomms install <host>` again/);
});

test('SessionEnd marks the member stale; the next prompt clears it even with no mail', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author', hostSessionId: 's' }]);
  await channelWith(project, 'other', [{ id: 'carol-1', role: 'designer', host: 'mcp' }, { id: 'alice-1', role: 'author', hostSessionId: 's' }]);
  assert.deepEqual((await hook(project, claudeEvent('SessionEnd', 's', { reason: 'exit' }))).answer, {});
  assert.deepEqual(memberships(stateOf(store), 'alice-1').map((m) => m.stale), [true, true]);
  assert.deepEqual((await hook(project, claudeEvent('UserPromptSubmit', 's'))).answer, {});
  assert.deepEqual(memberships(stateOf(store), 'alice-1').map((m) => m.stale), [false, false]);
});

test('SessionEnd leaves a spawn-push member live: its ended session is what spawn-resume reaches, so peers can still send to it', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: 'bob-1', role: 'reviewer', host: 'mcp' },
    { id: 'alice-1', role: 'author', hostSessionId: 's', deliveryMode: 'spawn_push' },
  ]);
  assert.deepEqual((await hook(project, claudeEvent('SessionEnd', 's', { reason: 'other' }))).answer, {});
  assert.deepEqual(memberships(stateOf(store), 'alice-1').map((m) => m.stale), [false]);
  await send(store, 'review', 'bob-1', 'alice-1', ['still reachable']);
  assert.equal(stateOf(store).queues['alice-1']!.length, 1);
});

test('without OPENCOMMS_HOST or a Codex marker, a session bound on codex still resolves', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'cx-1', role: 'author', host: 'codex', hostSessionId: 'cx-s' }]);
  await send(store, 'review', 'bob-1', 'cx-1', ['codex session start']);
  // Codex's SessionStart carries no turn_id: it looks like Claude Code's.
  assert.match(textOf((await hook(project, claudeEvent('SessionStart', 'cx-s', { source: 'resume' }))).answer), /codex session start/);
});

test('a binding that came from a host_session_id argument never decides whom a hook speaks for', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: 'bob-1', role: 'reviewer', host: 'mcp' },
    { id: 'writer-1', role: 'writer', hostSessionId: 'victim-session', hostSessionSource: 'argument' },
  ]);
  await send(store, 'review', 'bob-1', 'writer-1', ['for the writer only']);
  for (const name of ['SessionStart', 'UserPromptSubmit', 'Stop']) {
    assert.deepEqual((await hook(project, claudeEvent(name, 'victim-session'))).answer, {}, name);
  }
  assert.equal(stateOf(store).queues['writer-1']!.length, 1, 'the mail still waits for the writer');
  assert.equal(stateOf(store).session_links, undefined, 'the victim session was linked to nobody');
});

test('SessionStart does not bind a pin that a live process speaks as through OPENCOMMS_MEMBER_ID', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author' }]);
  writePin(project, { member_id: 'alice-1', host: 'claude-code' });
  await edit(store, (state) => {
    state.speaker_leases = { 'alice-1': { pid: process.pid, host: processHostTag(), token: 'this-test', until: Date.now() + 60_000 } };
    return { ok: true, message: 'speaker recorded' };
  });
  await send(store, 'review', 'bob-1', 'alice-1', ['not for a newcomer']);
  assert.deepEqual((await hook(project, claudeEvent('SessionStart', 'newcomer'))).answer, {});
  assert.equal(memberships(stateOf(store), 'alice-1')[0]!.host_session_id, null);
  assert.equal(stateOf(store).queues['alice-1']!.length, 1);
});
