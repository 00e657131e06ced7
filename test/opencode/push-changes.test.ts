// The OpenCode plugin's writes are named engine changes (engine/changes/push.ts):
// the plugin's own liveness check decides which pushes are abandoned, even
// though the change itself runs without it; and a change given arguments it
// does not take refuses and saves nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DELIVERY_COOLDOWN_MS, drainQueue, succeed } from '../../src/engine';
import { channelWith, envelopeOf, HOST, memberOf, send, startHarness } from './helpers';
import { edit } from '../helpers/edit';

const idle = (sessionID: string) => ({ event: { type: 'session.idle', properties: { sessionID } } });

test("a push sweeps back only mail whose owner the plugin's own check judges gone", async (t) => {
  // Neither pid runs on this machine: only the plugin's check (a stand-in here) tells them apart.
  const GONE_PID = 999_999_997;
  const KEPT_PID = 999_999_998;
  let channelId = '';
  const h = await startHarness(t, {
    isOwnerAlive: (owner) => owner.pid !== GONE_PID,
    setup: async ({ store, dir }) => { channelId = await channelWith(store, dir, ['ses_A', 'ses_B']); },
  });
  const a = memberOf(h.store, 'ses_A');
  const b = memberOf(h.store, 'ses_B');
  const kept = await send(h.store, a, 'held by a push the plugin judges alive');
  const swept = await send(h.store, b, 'held by a push the plugin judges gone');
  // Put in flight after the start-up sweep, so only the push's own sweep can bring them back.
  await edit(h.store, (state) => {
    drainQueue(state, a, { owner: { pid: KEPT_PID, host: HOST, lease_until: h.clock.t + 60_000 }, now: h.clock.t });
    drainQueue(state, b, { owner: { pid: GONE_PID, host: HOST, lease_until: h.clock.t + 60_000 }, now: h.clock.t });
    return succeed('drained');
  });
  // Past the cooldown that handover started, well within its lease.
  h.clock.advance(DEFAULT_DELIVERY_COOLDOWN_MS + 1);
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.hooks.event(idle('ses_B'));
  await h.plugin.settle();
  assert.deepEqual(h.client.prompts.map((p) => p.id), ['ses_B']);
  assert.match(h.client.prompts[0]!.text, /held by a push the plugin judges gone/);
  const state = h.store.snapshot();
  assert.equal(state.messages[kept]?.delivery_status, 'in_flight');
  assert.equal(state.messages[kept]?.delivery_owner?.pid, KEPT_PID);
  const delivered = envelopeOf(h.store, channelId, swept);
  assert.equal(delivered?.delivery_status, 'delivered');
  assert.equal(delivered?.attempts, 2, 'the abandoned handover counts as an attempt');
});

test('each push change refuses arguments it does not take (invalid_argument) and saves nothing', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  const a = memberOf(h.store, 'ses_A');
  await send(h.store, a, 'waiting');
  const statePath = join(h.store.stateDir, 'state.json');
  const before = readFileSync(statePath, 'utf8');
  const owner = { pid: 1, host: HOST, lease_until: h.clock.t + 1_000 };
  // Each as a process of another version might write it: one argument of the wrong type.
  const bad: Array<[string, unknown]> = [
    ['push_drain', { member: a, pid: '1', host: HOST, lease_ms: 1_000, gone: [] }],
    ['push_drain', { member: a, pid: 1, host: HOST, lease_ms: 1_000, gone: [{ pid: 1 }] }],
    ['push_commit', { member: a, ids: 'all', owner }],
    ['push_give_back', { member: a, ids: [], owner: { pid: 1, host: HOST }, session_id: 'ses_A', detail: 'x' }],
    ['push_sweep', { gone: null }],
    ['push_session_gone', { member: 7 }],
    ['push_link_session', { ref: { kind: 'sid', host: 'opencode' }, host: 'opencode', may_mint: true }],
    ['push_take_wake', {}],
    ['push_note_error', { message: 'x', member: 3 }],
    ['spawn_plan', { member: a, pid: 1, host: HOST, gone: [], binaries: { gemini: null }, platform: 'linux', lease_ms: 1, token: 't' }],
    ['spawn_finish', { member: a, ids: [], owner, token: 't', accepted: 'yes', failure: '' }],
  ];
  const mutate = h.store.mutate as (name: string, args: unknown) => Promise<{ ok: boolean; data?: Record<string, unknown> }>;
  for (const [name, args] of bad) {
    const result = await mutate(name, args);
    assert.equal(result.ok, false, `${name} took ${JSON.stringify(args)}`);
    assert.equal(result.data?.reason, 'invalid_argument', name);
  }
  assert.equal(readFileSync(statePath, 'utf8'), before);
});
