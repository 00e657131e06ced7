// One OpenCode session, one member, one set of tools (issue 14, item 5):
// each session speaks as the member its session id is linked to, never as
// the session id itself; a project used with the old plugin, whose members
// were named after their sessions, keeps them; and the plugin offers the MCP
// server's tools, no fewer and no other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as engine from '../../src/engine';
import { sessionRefOf, zodArgs, type HostToolDefinition, type SchemaKit } from '../../src/opencode';
import { buildTools as buildMcpTools } from '../../src/tools/catalog';
import { ToolServices } from '../../src/tools/services';
import { startOpenComms } from '../../src/opencode';
import { channelWith, envelopeOf, FAKE_SCHEMA, FakeClient, FakeWatcher, memberOf, PROJECT_ID, send, startHarness, type Harness } from './helpers';

const idle = (sessionID: string) => ({ event: { type: 'session.idle', properties: { sessionID } } });
const deleted = (id: string) => ({ event: { type: 'session.deleted', properties: { info: { id } } } });

async function call(h: Harness, name: string, args: Record<string, unknown>, sessionID: string): Promise<engine.ToolResult> {
  const tool: HostToolDefinition | undefined = h.plugin.hooks.tool?.[name];
  assert.ok(tool, `tool ${name} is offered`);
  return JSON.parse(await tool.execute(args, { sessionID })) as engine.ToolResult;
}

function mcpTools(dir: string): ReturnType<typeof buildMcpTools> {
  return buildMcpTools(new ToolServices({ projectDir: dir, host: 'test', env: { OPENCOMMS_NO_SPAWN: '1' }, log: () => undefined }));
}

// A schema builder that writes down every refinement, so two argument lists built with it compare as data.
type Described = { kind: string; steps: unknown[] };
function describing(kind: string, steps: unknown[] = []): any {
  const next = (step: unknown) => describing(kind, [...steps, step]);
  return {
    kind, steps,
    describe: (text: string) => next(['describe', text]), optional: () => next(['optional']),
    min: (n: number) => next(['min', n]), max: (n: number) => next(['max', n]), int: () => next(['int']),
  };
}
const DESCRIBING: SchemaKit = {
  string: () => describing('string'), number: () => describing('number'), boolean: () => describing('boolean'),
  enum: (values) => describing(`enum:${values.join('|')}`),
  array: (item) => describing(`array:${(item as unknown as Described).kind}`),
};
const plain = (args: Record<string, unknown>): Record<string, Described> =>
  Object.fromEntries(Object.entries(args).map(([k, v]) => [k, { kind: (v as Described).kind, steps: (v as Described).steps }]));

test('the plugin offers the same tools as the MCP server, in its order, with the same arguments', async (t) => {
  const h = await startHarness(t);
  const mcp = mcpTools(h.dir);
  assert.equal(mcp.length, 20, 'premise: the MCP server lists 20 tools');
  assert.deepEqual(Object.keys(h.plugin.hooks.tool ?? {}), mcp.map((d) => d.name));
  const plugin = await startOpenComms({ client: new FakeClient(), project: { id: PROJECT_ID }, directory: h.dir, worktree: h.dir }, {
    store: h.store, watch: () => new FakeWatcher(), loadSchema: async () => DESCRIBING, log: () => undefined,
  });
  t.after(() => plugin.hooks.dispose());
  for (const descriptor of mcp) {
    const ours = plugin.hooks.tool![descriptor.name]!;
    assert.deepEqual(plain(ours.args), plain(zodArgs(descriptor.inputSchema, DESCRIBING)), descriptor.name);
    assert.equal(ours.description, descriptor.description, descriptor.name);
  }
});

test('a session speaks as a member whose id is not its OpenCode session id', async (t) => {
  const h = await startHarness(t);
  const created = await call(h, 'opencomms_create', { channel: 'design', role: 'architect', role_prompt: 'Own the design.' }, 'ses_root');
  assert.equal(created.ok, true, created.message);
  const status = await call(h, 'opencomms_status', {}, 'ses_root');
  const me = String(status.data?.member_id);
  assert.notEqual(me, 'ses_root');
  assert.equal(me, memberOf(h.store, 'ses_root'), 'the member is the one the session is linked to');
  const state = h.store.snapshot();
  assert.deepEqual(state.channels.design!.members.map((m) => m.session_id), [me]);
  assert.equal(state.channels.design!.members[0]!.host_session_id, 'ses_root');
  assert.equal(state.session_links?.['sid@opencode:ses_root']?.host, 'opencode');
  // No member anywhere carries the session id as its id, and the id is kept across calls.
  assert.equal(JSON.stringify(state.channels).includes('"session_id":"ses_root"'), false);
  assert.equal((await call(h, 'opencomms_status', {}, 'ses_root')).data?.member_id, me);
});

test('two OpenCode sessions in one project are two members, each with its own mail', async (t) => {
  const h = await startHarness(t);
  assert.equal((await call(h, 'opencomms_create', { channel: 'pair', role: 'writer', role_prompt: 'Write.' }, 'ses_W')).ok, true);
  assert.equal((await call(h, 'opencomms_join', { channel: 'pair', role: 'reviewer', role_prompt: 'Review.' }, 'ses_R')).ok, true);
  const [writer, reviewer] = [memberOf(h.store, 'ses_W'), memberOf(h.store, 'ses_R')];
  assert.notEqual(writer, reviewer);
  await h.plugin.hooks.event({ event: { type: 'session.status', properties: { sessionID: 'ses_R', status: { type: 'busy' } } } });
  const sent = await call(h, 'opencomms_send', { channel: 'pair', content: 'draft ready', to: 'reviewer' }, 'ses_W');
  assert.deepEqual(sent.data?.recipients, [reviewer]);
  // The writer's session sees none of the reviewer's mail, and its idle prompts nobody.
  assert.equal((await call(h, 'opencomms_inbox', { channel: 'pair' }, 'ses_W')).data?.pending, 0);
  assert.equal((await call(h, 'opencomms_inbox', { channel: 'pair' }, 'ses_R')).data?.pending, 1);
  await h.plugin.hooks.event(idle('ses_W'));
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 0);
  // The reviewer's idle pushes it into the reviewer's session only.
  await h.plugin.hooks.event(idle('ses_R'));
  await h.plugin.settle();
  assert.deepEqual(h.client.prompts.map((p) => p.id), ['ses_R']);
  assert.match(h.client.prompts[0]!.text, /draft ready/);
  const channelId = h.store.snapshot().channels.pair!.id;
  const id = (sent.data?.message_ids as string[])[0]!;
  assert.equal(envelopeOf(h.store, channelId, id)?.recipient_session_id, reviewer);
  assert.equal(envelopeOf(h.store, channelId, id)?.delivery_status, 'delivered');
});

test('a project used with the old plugin keeps its session-named member and its mail', async (t) => {
  let channelId = '';
  const h = await startHarness(t, { setup: async ({ store, dir }) => { channelId = await channelWith(store, dir, ['ses_old'], 'review', { oldPlugin: true }); } });
  const waiting = await send(h.store, 'ses_old', 'left for you before the upgrade');
  // Its first idle adopts the old member (no new one is minted) and pushes the mail waiting for it.
  await h.plugin.hooks.event(idle('ses_old'));
  await h.plugin.settle();
  assert.equal(memberOf(h.store, 'ses_old'), 'ses_old');
  assert.deepEqual(h.client.prompts.map((p) => p.id), ['ses_old']);
  assert.equal(envelopeOf(h.store, channelId, waiting)?.delivery_status, 'delivered');
  // Its tools speak as that member too.
  const status = await call(h, 'opencomms_status', {}, 'ses_old');
  assert.equal(status.data?.member_id, 'ses_old');
  const sent = await call(h, 'opencomms_send', { channel: 'review', content: 'still here' }, 'ses_old');
  assert.equal(sent.ok, true, sent.message);
  assert.deepEqual(h.store.snapshot().channels.review!.members.map((m) => m.session_id), ['alice', 'ses_old']);
});

test('an old plugin\'s member is adopted at its session\'s first tool call, and its role reminder works before that', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_old'], 'review', { oldPlugin: true }); } });
  const output = { system: [] as string[] };
  await h.plugin.hooks['experimental.chat.system.transform']({ sessionID: 'ses_old' }, output);
  assert.equal(output.system.length, 1);
  const inbox = await call(h, 'opencomms_inbox', { channel: 'review' }, 'ses_old');
  assert.equal(inbox.ok, true, inbox.message);
  assert.equal(memberOf(h.store, 'ses_old'), 'ses_old');
});

test('a new session never takes an old plugin\'s member named after another session', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_old'], 'review', { oldPlugin: true }); } });
  const status = await call(h, 'opencomms_status', {}, 'ses_new');
  assert.notEqual(status.data?.member_id, 'ses_old');
  assert.deepEqual(status.data?.channels, []);
});

test('a session gets its member back after OpenCode restarts', async (t) => {
  const h = await startHarness(t);
  assert.equal((await call(h, 'opencomms_create', { channel: 'long', role: 'lead', role_prompt: 'Lead.' }, 'ses_S')).ok, true);
  const before = memberOf(h.store, 'ses_S');
  await h.plugin.hooks.dispose();
  const again = await startOpenComms({ client: h.client, project: { id: PROJECT_ID }, directory: h.dir, worktree: h.dir }, {
    store: h.store, watch: () => new FakeWatcher(), loadSchema: async () => FAKE_SCHEMA, log: () => undefined,
  });
  t.after(() => again.hooks.dispose());
  const status = JSON.parse(await again.hooks.tool!.opencomms_status!.execute({}, { sessionID: 'ses_S' })) as engine.ToolResult;
  assert.equal(status.data?.member_id, before);
});

test('a deleted session\'s member is away: mail to it is accepted and waits, and reaches the session when it is idle again', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A', 'ses_B']); } });
  const b = memberOf(h.store, 'ses_B');
  await h.plugin.hooks.event(idle('ses_B'));
  await h.plugin.hooks.event(deleted('ses_B'));
  await h.plugin.settle();
  const sent = await call(h, 'opencomms_send', { channel: 'review', content: 'for when you are back', to: b }, 'ses_A');
  assert.equal(sent.ok, true, sent.message);
  assert.deepEqual((sent.data?.away as Array<{ member: string }>).map((x) => x.member), [b]);
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 0, 'a deleted session is not prompted');
  await h.plugin.hooks.event(idle('ses_B'));
  await h.plugin.settle();
  assert.deepEqual(h.client.prompts.map((p) => p.id), ['ses_B']);
  assert.equal(h.store.snapshot().channels.review!.members.find((m) => m.session_id === b)!.stale, false);
});

test('an idle session that never used OpenComms gets no member', async (t) => {
  const h = await startHarness(t);
  await h.plugin.hooks.event(idle('ses_quiet'));
  await h.plugin.settle();
  assert.equal(engine.findLinkedMember(h.store.snapshot(), [sessionRefOf('ses_quiet')]), undefined);
});

test('a tool argument does not choose the session a member is pushed into: another session is refused, its own is taken from OpenCode', async (t) => {
  const h = await startHarness(t);
  const refused = await call(h, 'opencomms_create', { channel: 'c', role: 'lead', role_prompt: 'Lead.', host_session_id: 'ses_other' }, 'ses_me');
  assert.equal(refused.ok, false);
  assert.equal(refused.data?.reason, 'host_session_mismatch');
  assert.equal(h.store.snapshot().channels.c, undefined, 'nothing was created');
  const out = await call(h, 'opencomms_create', { channel: 'c', role: 'lead', role_prompt: 'Lead.' }, 'ses_me');
  assert.equal(out.ok, true, out.message);
  const member = h.store.snapshot().channels.c!.members[0]!;
  assert.equal(member.session_id, memberOf(h.store, 'ses_me'));
  assert.equal(member.host_session_id, 'ses_me');
  assert.equal(member.delivery_mode, 'push');
});
