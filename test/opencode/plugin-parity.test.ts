// The OpenCode plugin keeps the documented rules of the MCP tools and of
// PROTOCOL 7.3: push members never age out, a deleted session is never
// prompted, create/join/status answer like the MCP tools, README lists the
// tools it offers, and a start-up store fault does not stop it loading.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as engine from '../../src/engine';
import { openStore, type Store } from '../../src/store';
import { StoreFault } from '../../src/files/faults';
import { startOpenComms, type HostToolDefinition } from '../../src/opencode';
import { buildTools as buildMcpTools } from '../../src/tools/catalog';
import { ToolServices } from '../../src/tools/services';
import { catalogTools } from '../helpers/docs-tables';
import {
  channelWith, Clock, envelopeOf, FAKE_SCHEMA, FakeClient, FakeSchedule, FakeWatcher, HOST, memberOf, PROJECT_ID, send, startHarness,
  tempProject, type Harness,
} from './helpers';
import { edit } from '../helpers/edit';

const busy = (sessionID: string) => ({ event: { type: 'session.status', properties: { sessionID, status: { type: 'busy' } } } });
const idle = (sessionID: string) => ({ event: { type: 'session.idle', properties: { sessionID } } });
const deleted = (id: string) => ({ event: { type: 'session.deleted', properties: { info: { id } } } });

async function call(h: Harness, name: string, args: Record<string, unknown>, sessionID: string): Promise<engine.ToolResult> {
  const tool: HostToolDefinition | undefined = h.plugin.hooks.tool?.[name];
  assert.ok(tool, `tool ${name} is offered`);
  return JSON.parse(await tool.execute(args, { sessionID })) as engine.ToolResult;
}

// docs/internals.md ("The OpenCode plugin") / README: "a busy session gets its mail at its next session.idle"; PROTOCOL 4.2 and 5.3:
// `stale` arises only for spawn-push members (stale_policy window); push members are not listed.
// memberOptionsFor sets stale_policy none; makeMember's default for push would be the 5-minute window,
// and an OpenCode turn longer than 5 minutes (or OpenCode closed for 5 minutes) would turn the mail `stale`.
test('mail for an OpenCode session that stays busy for more than 5 minutes is pushed at its next idle, not dropped as stale', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  const channelId = h.store.snapshot().channels.review!.id;
  await h.plugin.hooks.event(busy('ses_A'));
  const id = await send(h.store, memberOf(h.store, 'ses_A'), 'please re-run the benchmark');
  h.clock.advance(6 * 60_000); // a long agent turn
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  assert.equal(envelopeOf(h.store, channelId, id)?.delivery_status, 'delivered', 'the waiting mail was aged out instead of delivered');
  assert.equal(h.client.prompts.length, 1);
  assert.match(h.client.prompts[0]!.text, /please re-run the benchmark/);
});

// docs/internals.md ("The OpenCode plugin"), owner-side rule: an instance pushes only to sessions it hosts; session.deleted takes the
// session out of localSessions and marks it stale. A retry scheduled before the deletion must not
// prompt the deleted session (each failure there would burn one of the five attempts).
test('a retry scheduled before session.deleted does not prompt the deleted session', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  await send(h.store, memberOf(h.store, 'ses_A'), 'first try fails');
  h.client.failNext = 1;
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 1);
  assert.equal(h.timers.pending().length, 1, 'a retry is scheduled');
  await h.plugin.hooks.event(deleted('ses_A'));
  await h.plugin.settle();
  assert.equal(h.plugin.localSessions.has('ses_A'), false);
  h.clock.advance(2_000); // the retry's delay: past the push cooldown
  h.timers.runAll();
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 1, 'the deleted session was prompted again by the retry');
});

// The MCP join of a resumed session returns data.archive_context (test/e2e/tools-reference-bugs, 11.2 #11);
// docs/internals.md ("The OpenCode plugin"): the plugin's tools use the MCP tools' names, arguments and results, so an OpenCode
// joiner of a resumed channel gets the same context (shared code: src/tools/archive-context.ts).
test('opencomms_join of a resumed channel from OpenCode carries the archived context, like the MCP join', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_old']); } });
  const services = new ToolServices({ projectDir: h.dir, host: 'claude-code', env: { OPENCOMMS_MEMBER_ID: 'alice', OPENCOMMS_NO_SPAWN: '1' }, log: () => undefined });
  const mcp = new Map(buildMcpTools(services).map((d) => [d.name, d]));
  const saved = await mcp.get('opencomms_save_session')!.handler({ channel: 'review', summary: 'We fixed the parser bug.' });
  assert.equal(saved.ok, true, saved.message);
  const resumed = await mcp.get('opencomms_resume_session')!.handler({ channel: 'review' });
  assert.equal(resumed.ok, true, resumed.message);
  const joined = await call(h, 'opencomms_join', { channel: String(resumed.data!.name), role: 'reviewer', role_prompt: 'Review.' }, 'ses_new');
  assert.equal(joined.ok, true, joined.message);
  assert.equal(typeof joined.data?.archive_context, 'string', 'no archive_context in the OpenCode join result');
  assert.match(String(joined.data?.archive_context), /We fixed the parser bug\./);
});

// INTERFACE 5: opencomms_create takes max_members, rate_limit, max_hops, budget_runtime_ms, budget_messages.
// Undeclared, real zod would strip them silently (the channel would get the defaults), and execute's own
// guard would refuse them when they do arrive.
test('opencomms_create from OpenCode accepts the MCP create\'s channel settings (max_members, rate_limit, max_hops, budgets)', async (t) => {
  const h = await startHarness(t);
  const args = Object.keys(h.plugin.hooks.tool!.opencomms_create!.args);
  for (const name of ['max_members', 'rate_limit', 'max_hops', 'budget_runtime_ms', 'budget_messages']) {
    assert.ok(args.includes(name), `opencomms_create offers no ${name}`);
  }
  const out = await call(h, 'opencomms_create', { channel: 'small', role: 'lead', role_prompt: 'Lead.', max_members: 3, rate_limit: 5 }, 'ses_root');
  assert.equal(out.ok, true, out.message);
  assert.equal(h.store.snapshot().channels.small!.max_members, 3);
});

// PROTOCOL 6.1: status "needs a pin and shows only the caller's own channels" and is not in the roster
// re-check list; docs/internals.md ("The OpenCode plugin"): plugin tools act "after the same roster check as a pinned server". The MCP status
// of a member in no channel is ok (an empty list), and so is the plugin's.
test('opencomms_status from a session in no channel answers like the MCP status (ok, no channels), not not_member', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, []); } });
  const services = new ToolServices({ projectDir: h.dir, host: 'mcp', env: { OPENCOMMS_MEMBER_ID: 'bob', OPENCOMMS_NO_SPAWN: '1' }, log: () => undefined });
  const viaMcp = await buildMcpTools(services).find((d) => d.name === 'opencomms_status')!.handler({});
  assert.equal(viaMcp.ok, true, 'premise: the MCP status of a pinned non-member is ok');
  const viaPlugin = await call(h, 'opencomms_status', {}, 'ses_fresh');
  assert.equal(viaPlugin.ok, true, `plugin status refused: ${viaPlugin.message}`);
});

// docs/push.md "The OpenCode plugin" says the plugin offers every tool of the MCP server (one session
// has one set of tools), and every tool it names there is one the plugin offers.
test('the tools docs/push.md says the OpenCode plugin offers are the ones it offers', async (t) => {
  const h = await startHarness(t);
  const offered = Object.keys(h.plugin.hooks.tool ?? {});
  const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'push.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### The OpenCode plugin'), doc.indexOf('## Keep idle agents awake'));
  assert.match(section, /offers every tool of the MCP server/, 'docs/push.md says the plugin offers every tool');
  assert.deepEqual(offered, catalogTools().map((tool) => tool.name));
  for (const name of section.match(/opencomms_[a-z_]+/g) ?? []) assert.ok(offered.includes(name), `docs/push.md names ${name}, which the plugin does not offer`);
});

// A fault in the optional start-up sweep (lock_timeout when another process holds the lock for 5 s,
// state_unwritable on a read-only .opencomms) rejects startOpenComms, so the plugin (and with it its
// pushes, its tools and, per OpenCode's loader, possibly the instance) fails to load. Every push sweeps
// again anyway (push-delivery.ts), so the start-up sweep is safe to skip on a fault.
test('a store fault in the start-up sweep does not stop the plugin from starting', async (t) => {
  const dir = tempProject(t);
  const clock = new Clock();
  const real = openStore({ projectDir: dir, now: clock.now });
  await channelWith(real, dir, ['ses_A']);
  const id = await send(real, memberOf(real, 'ses_A'), 'left in flight by a crashed process');
  await edit(real, (state) => {
    const e = state.messages[id]!;
    e.delivery_status = 'in_flight';
    e.delivery_owner = { pid: 999_999, host: HOST, lease_until: 0 };
    return { ok: true, message: 'seeded' };
  });
  let faults = 1;
  const store: Store = {
    ...real,
    mutate: ((...args: unknown[]) => (faults-- > 0
      ? Promise.reject(new StoreFault('lock_timeout', 'timed out after 5000 ms waiting for the lock'))
      : (real.mutate as (...passed: unknown[]) => Promise<unknown>)(...args))) as Store['mutate'],
  };
  const logs: string[] = [];
  const started = startOpenComms({ client: new FakeClient(), project: { id: PROJECT_ID }, directory: dir, worktree: dir }, {
    store, watch: () => new FakeWatcher(), loadSchema: async () => FAKE_SCHEMA, schedule: new FakeSchedule().schedule,
    pid: process.pid, host: HOST, isOwnerAlive: () => false, log: (line) => logs.push(line),
  });
  const plugin = await started.catch((err: unknown) => assert.fail(`startOpenComms rejected: ${err instanceof Error ? err.message : String(err)}`));
  t.after(() => plugin.hooks.dispose());
  assert.ok(plugin.hooks.tool?.opencomms_send);
});

test('opencomms_create from OpenCode refuses a channel setting outside the MCP create\'s bounds, and writes nothing', async (t) => {
  const h = await startHarness(t);
  const out = await call(h, 'opencomms_create', { channel: 'tiny', role: 'lead', role_prompt: 'Lead.', max_members: 1 }, 'ses_root');
  assert.equal(out.ok, false);
  assert.equal(out.data?.reason, 'invalid_argument');
  assert.equal(out.data?.argument, 'max_members');
  assert.equal(h.store.snapshot().channels.tiny, undefined);
});
