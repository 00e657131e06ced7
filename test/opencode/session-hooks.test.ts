// The session lifecycle, the create/join tools and the role reminder, with
// a fake OpenCode client whose session.get answers are set per session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROLE_SECTION_HEADER, type HostToolDefinition } from '../../src/opencode';
import { channelWith, memberOf, PROJECT_ID, startHarness } from './helpers';

function memberships(state: ReturnType<import('../../src/store').Store['snapshot']>, id: string) {
  return Object.values(state.channels).flatMap((c) => c.members.filter((m) => m.session_id === id));
}

function toolOf(tools: Record<string, HostToolDefinition> | undefined, name: string): HostToolDefinition {
  const found = tools?.[name];
  assert.ok(found, `tool ${name} is offered`);
  return found;
}

test('session.deleted marks the session\'s member away and its next session.idle clears it', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  const a = memberOf(h.store, 'ses_A');
  await h.plugin.hooks.event({ event: { type: 'session.deleted', properties: { info: { id: 'ses_A' } } } });
  await h.plugin.settle();
  assert.deepEqual(memberships(h.store.snapshot(), a).map((m) => m.stale), [true]);
  assert.equal(h.plugin.localSessions.has('ses_A'), false);
  await h.plugin.hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_A' } } });
  await h.plugin.settle();
  assert.deepEqual(memberships(h.store.snapshot(), a).map((m) => [m.stale, m.stale_at]), [[false, null]]);
});

// Was: the member id is the session id. Now the session is linked to a member minted for it
// (issue 14: a host session id is never a routing key), and the membership is bound to the session.
test('opencomms_create from a root session registers its own member as a pushed OpenCode member of this project', async (t) => {
  const h = await startHarness(t);
  const out = JSON.parse(await toolOf(h.plugin.hooks.tool, 'opencomms_create').execute(
    { channel: 'Design', role: 'architect', role_prompt: 'Own the design.' }, { sessionID: 'ses_root' }));
  assert.equal(out.ok, true);
  const channel = h.store.snapshot().channels.design!;
  assert.equal(channel.project_id, PROJECT_ID);
  assert.equal(channel.worktree, h.dir);
  const [member] = memberships(h.store.snapshot(), memberOf(h.store, 'ses_root'));
  assert.equal(member?.host, 'opencode');
  assert.equal(member?.surface, 'cli');
  assert.equal(member?.delivery_mode, 'push');
  assert.equal(member?.host_session_id, 'ses_root');
  assert.equal(h.plugin.localSessions.has('ses_root'), true);
});

test('create and join are refused for a child (subagent) session', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, []); } });
  h.client.sessions.set('ses_child', { parentID: 'ses_root' });
  for (const [name, channel] of [['opencomms_create', 'fresh'], ['opencomms_join', 'review']] as const) {
    const out = JSON.parse(await toolOf(h.plugin.hooks.tool, name).execute(
      { channel, role: 'helper', role_prompt: 'Help.' }, { sessionID: 'ses_child' }));
    assert.equal(out.ok, false, name);
    assert.equal(out.data.reason, 'child_session', name);
  }
  assert.equal(h.store.snapshot().channels.fresh, undefined);
  assert.deepEqual(h.store.snapshot().channels.review!.members.map((m) => m.session_id), ['alice']);
});

test('a failed session lookup refuses the join and records an error (fails closed)', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, []); } });
  h.client.sessions.set('ses_x', 'throw');
  h.client.sessions.set('ses_y', 'sdk_error');
  for (const id of ['ses_x', 'ses_y']) {
    const out = JSON.parse(await toolOf(h.plugin.hooks.tool, 'opencomms_join').execute(
      { channel: 'review', role: 'helper', role_prompt: 'Help.' }, { sessionID: id }));
    assert.equal(out.ok, false);
    assert.equal(out.data.reason, 'session_lookup_failed');
    // Recorded for the session's own member, so its status shows why the join did not happen.
    assert.equal(h.store.snapshot().errors.filter((e) => e.member_id === memberOf(h.store, id)).length, 1);
  }
  assert.deepEqual(h.store.snapshot().channels.review!.members.map((m) => m.session_id), ['alice']);
});

test('the system prompt of a member session gets one role section per channel', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => {
    await channelWith(store, dir, ['ses_A'], 'review');
    await channelWith(store, dir, ['ses_A'], 'docs');
  } });
  const output = { system: ['base prompt'] };
  await h.plugin.hooks['experimental.chat.system.transform']({ sessionID: 'ses_A' }, output);
  assert.equal(output.system[0], 'base prompt');
  assert.deepEqual(output.system.slice(1).sort(), ['docs', 'review'].map((name) =>
    `${ROLE_SECTION_HEADER}\nYou are the reviewer on OpenComms channel "${name}".\nReview every diff carefully.`));
  assert.equal(h.plugin.localSessions.has('ses_A'), true);

  const other = { system: [] as string[] };
  await h.plugin.hooks['experimental.chat.system.transform']({ sessionID: 'ses_none' }, other);
  assert.deepEqual(other.system, []);
});
