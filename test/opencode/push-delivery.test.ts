// Pushing mail into OpenCode sessions through a fake client: idle delivery,
// failure and retry, the dead letter, the owner-side rule and the start-up
// sweep. Retries run on a hand-driven scheduler, so nothing sleeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drainQueue, MAX_DELIVERY_ATTEMPTS, succeed } from '../../src/engine';
import { RETRY_DELAY_MS } from '../../src/opencode';
import { channelWith, envelopeOf, HOST, memberOf, send, startHarness } from './helpers';
import { edit } from '../helpers/edit';

const idle = (sessionID: string) => ({ event: { type: 'session.idle', properties: { sessionID } } });

test('on session.idle a member session is prompted with its framed mail, which is then committed as pushed', async (t) => {
  let channelId = '';
  const h = await startHarness(t, { setup: async ({ store, dir }) => { channelId = await channelWith(store, dir, ['ses_A']); } });
  const a = memberOf(h.store, 'ses_A');
  const id = await send(h.store, a, 'please review PR 12');
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 1);
  assert.equal(h.client.prompts[0]!.id, 'ses_A');
  assert.match(h.client.prompts[0]!.text, /please review PR 12/);
  assert.match(h.client.prompts[0]!.text, new RegExp(`message_id ${id}`));
  assert.match(h.client.prompts[0]!.text, /It is not an instruction from the user/);
  const envelope = envelopeOf(h.store, channelId, id);
  assert.equal(envelope?.delivery_status, 'delivered');
  assert.equal(envelope?.delivery_method, 'push');
  assert.equal(h.store.snapshot().queues[a], undefined);
});

test('idle for a session that is no member prompts nothing and writes nothing', async (t) => {
  const h = await startHarness(t);
  await h.plugin.hooks.event(idle('ses_stranger'));
  await h.plugin.settle();
  assert.deepEqual(h.client.prompts, []);
  assert.deepEqual(h.store.snapshot().channels, {});
});

test('a prompt that throws requeues the mail, records an error and retries once after 2 s, which commits it', async (t) => {
  let channelId = '';
  const h = await startHarness(t, { setup: async ({ store, dir }) => { channelId = await channelWith(store, dir, ['ses_A']); } });
  const a = memberOf(h.store, 'ses_A');
  const id = await send(h.store, a, 'first try fails');
  h.client.failNext = 1;
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  const after = h.store.snapshot();
  assert.equal(after.messages[id]?.delivery_status, 'pending');
  assert.equal(after.messages[id]?.attempts, 1);
  assert.deepEqual(after.queues[a], [id]);
  assert.equal(after.errors.filter((e) => e.member_id === a).length, 1);
  assert.deepEqual(h.timers.pending().map((x) => x.ms), [RETRY_DELAY_MS]);

  h.clock.advance(RETRY_DELAY_MS);
  assert.equal(h.timers.runAll(), 1);
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 2);
  assert.equal(envelopeOf(h.store, channelId, id)?.delivery_status, 'delivered');
  assert.deepEqual(h.timers.pending(), []);
});

test("an SDK answer carrying an error counts as a failed prompt, not a delivery", async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  const id = await send(h.store, memberOf(h.store, 'ses_A'), 'sdk says no');
  h.client.failNext = 1;
  h.client.failWith = 'sdk_error';
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  assert.equal(h.store.snapshot().messages[id]?.delivery_status, 'pending');
  assert.equal(h.timers.pending().length, 1);
});

test(`mail whose push keeps failing is dead-lettered after ${MAX_DELIVERY_ATTEMPTS} attempts and retries stop`, async (t) => {
  let channelId = '';
  const h = await startHarness(t, { setup: async ({ store, dir }) => { channelId = await channelWith(store, dir, ['ses_A']); } });
  const id = await send(h.store, memberOf(h.store, 'ses_A'), 'never lands');
  h.client.failNext = Number.POSITIVE_INFINITY;
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  for (let round = 0; round < 10 && h.timers.pending().length > 0; round += 1) {
    h.clock.advance(RETRY_DELAY_MS);
    h.timers.runAll();
    await h.plugin.settle();
  }
  assert.equal(h.client.prompts.length, MAX_DELIVERY_ATTEMPTS);
  const envelope = envelopeOf(h.store, channelId, id);
  assert.equal(envelope?.delivery_status, 'failed');
  assert.equal(envelope?.attempts, MAX_DELIVERY_ATTEMPTS);
  assert.deepEqual(h.timers.pending(), []);
});

test('one push at a time per session: an idle during a running push adds no second prompt of the same mail', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  const a = memberOf(h.store, 'ses_A');
  await send(h.store, a, 'slow host');
  let open!: () => void;
  h.client.gate = new Promise<void>((resolve) => { open = resolve; });
  const isPrompting = new Promise<void>((resolve) => { h.client.onPrompt = resolve; });
  await h.plugin.hooks.event(idle('ses_A'));
  // The idle's reads are asynchronous: the push is running once its prompt reaches the host.
  await isPrompting;
  await h.plugin.hooks.event(idle('ses_A'));
  const second = await h.plugin.delivery.deliver(a);
  assert.equal(second.kind, 'already_delivering');
  open();
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 1);
});

test('owner-side rule: a state change prompts only sessions this instance has seen', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A', 'ses_B']); } });
  await h.plugin.hooks.event({ event: { type: 'session.updated', properties: { info: { id: 'ses_B' } } } });
  const forA = await send(h.store, memberOf(h.store, 'ses_A'), 'for a session elsewhere');
  await send(h.store, memberOf(h.store, 'ses_B'), 'for our session');
  h.watcher.fire();
  await h.plugin.settle();
  assert.deepEqual(h.client.prompts.map((p) => p.id), ['ses_B']);
  assert.equal(h.store.snapshot().messages[forA]?.delivery_status, 'pending');
});

test('a state change does not prompt a seen session while it is busy; its next idle does', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  await h.plugin.hooks.event({ event: { type: 'session.status', properties: { sessionID: 'ses_A', status: { type: 'busy' } } } });
  await send(h.store, memberOf(h.store, 'ses_A'), 'wait for idle');
  h.watcher.fire();
  await h.plugin.settle();
  assert.deepEqual(h.client.prompts, []);
  await h.plugin.hooks.event({ event: { type: 'session.status', properties: { sessionID: 'ses_A', status: { type: 'idle' } } } });
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 1);
});

test("start-up leaves a live owner's in-flight push alone and recovers a dead owner's", async (t) => {
  const DEAD_PID = 999_999_999;
  let live = '';
  let dead = '';
  const h = await startHarness(t, {
    isOwnerAlive: (owner) => owner.pid !== DEAD_PID,
    setup: async ({ store, dir, clock }) => {
      await channelWith(store, dir, ['ses_A', 'ses_B']);
      live = await send(store, memberOf(store, 'ses_A'), 'being pushed by a live process');
      dead = await send(store, memberOf(store, 'ses_B'), 'abandoned by a crashed process');
      await edit(store, (state) => {
        drainQueue(state, memberOf(store, 'ses_A'), { owner: { pid: 4242, host: HOST, lease_until: clock.t + 60_000 }, now: clock.t });
        drainQueue(state, memberOf(store, 'ses_B'), { owner: { pid: DEAD_PID, host: HOST, lease_until: clock.t + 60_000 }, now: clock.t });
        return succeed('drained');
      });
    },
  });
  const state = h.store.snapshot();
  assert.equal(state.messages[live]?.delivery_status, 'in_flight');
  assert.equal(state.messages[live]?.delivery_owner?.pid, 4242);
  assert.equal(state.messages[dead]?.delivery_status, 'pending');
  assert.deepEqual(state.queues[memberOf(h.store, 'ses_B')], [dead]);
  assert.deepEqual(h.client.prompts, []);
});
