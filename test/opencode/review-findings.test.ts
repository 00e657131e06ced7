// Review E: failing tests for defects found in the OpenCode push path.
// Each test states the behaviour PROTOCOL 7.5 promises; on the reviewed code
// it fails for the reason given in its comment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RETRY_DELAY_MS } from '../../src/opencode';
import { channelWith, send, startHarness } from './helpers';

const idle = (sessionID: string) => ({ event: { type: 'session.idle', properties: { sessionID } } });
const busy = (sessionID: string) => ({ event: { type: 'session.status', properties: { sessionID, status: { type: 'busy' } } } });

// plugin.ts keeps the busy set and applies it only in pushToLocal (state
// changes and sends). The retry timer of push-delivery.ts (wakeLater) calls
// delivery.deliver() directly, so a retry that comes due while the session
// runs a turn prompts it anyway: the mail is queued behind the running turn,
// or, if OpenCode refuses a busy session, each refusal burns one of the five
// attempts every 2 s and the mail is dead-lettered within about ten seconds.
test('a retry that comes due while the session is busy waits for its next idle', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  await send(h.store, 'ses_A', 'first push fails');
  h.client.failNext = 1;
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 1);
  assert.deepEqual(h.timers.pending().map((x) => x.ms), [RETRY_DELAY_MS]);

  await h.plugin.hooks.event(busy('ses_A')); // the user started a turn
  h.clock.advance(RETRY_DELAY_MS);
  h.timers.runAll();
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 1, 'the retry prompted a session that is busy (PROTOCOL 7.5: not while that session is busy)');

  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 2, 'the next idle delivers it');
});

// push-delivery.ts starts the retry (wakeLater) and the queued re-run (the
// `wanted` set, in deliver's finally) with `void this.deliver(...)`. Neither
// is tracked by the plugin's guarded `work`, so when the store throws there
// (lock_timeout, state_unwritable) the rejection is unhandled: under Node's
// default --unhandled-rejections=throw that ends the host process, and in any
// case the failure never reaches the plugin's log and no further retry is set.
test('a retry whose store call fails is handled and logged, not left as an unhandled rejection', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  await send(h.store, 'ses_A', 'first push fails');
  h.client.failNext = 1;
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  assert.equal(h.timers.pending().length, 1);

  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason); };
  process.on('unhandledRejection', onUnhandled);
  t.after(() => process.off('unhandledRejection', onUnhandled));
  const realMutate = h.store.mutate;
  (h.store as { mutate: unknown }).mutate = async () => { throw new Error('lock_timeout: the state lock stayed busy'); };
  t.after(() => { (h.store as { mutate: unknown }).mutate = realMutate; });

  h.clock.advance(RETRY_DELAY_MS);
  h.timers.runAll();
  // No settle() here: its allSettled would itself handle the rejection, which nothing does in OpenCode.
  for (let i = 0; i < 5; i += 1) await new Promise((r) => setImmediate(r));
  assert.deepEqual(unhandled.map(String), [], 'the failed retry surfaced as an unhandled promise rejection');
  assert.ok(h.logs.some((l) => /lock_timeout/.test(l)), `the failure should be logged; logs: ${JSON.stringify(h.logs)}`);
});
