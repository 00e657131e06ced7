// The pushes the OpenCode plugin starts by itself (the 2 s retry, the
// cooldown wake-up, the re-run of a request made during a push) follow the
// same rules as the ones an event starts (PROTOCOL 7.3; docs/internals.md, "The OpenCode plugin").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RETRY_DELAY_MS } from '../../src/opencode';
import { channelWith, memberOf, send, startHarness } from './helpers';

const idle = (sessionID: string) => ({ event: { type: 'session.idle', properties: { sessionID } } });
const busy = (sessionID: string) => ({ event: { type: 'session.status', properties: { sessionID, status: { type: 'busy' } } } });

// A retry that prompted a busy session would queue its mail behind the
// running turn or, if OpenCode refused the busy session, burn one of the five
// attempts every 2 s and dead-letter the mail within about ten seconds. The
// busy check sits in PushDelivery.deliver, which every trigger goes through.
test('a retry that comes due while the session is busy waits for its next idle', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  await send(h.store, memberOf(h.store, 'ses_A'), 'first push fails');
  h.client.failNext = 1;
  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 1);
  assert.deepEqual(h.timers.pending().map((x) => x.ms), [RETRY_DELAY_MS]);

  await h.plugin.hooks.event(busy('ses_A')); // the user started a turn
  h.clock.advance(RETRY_DELAY_MS);
  h.timers.runAll();
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 1, 'the retry prompted a session that is busy (PROTOCOL 7.3: only into a session that is not busy)');

  await h.plugin.hooks.event(idle('ses_A'));
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 2, 'the next idle delivers it');
});

// Nobody awaits a retry or a re-run, so a store fault there (lock_timeout,
// state_unwritable) would be an unhandled rejection: under Node's default
// --unhandled-rejections=throw that ends the host process. It must be caught,
// reach the plugin's log, and leave the next retry scheduled.
test('a retry whose store call fails is handled and logged, not left as an unhandled rejection', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  await send(h.store, memberOf(h.store, 'ses_A'), 'first push fails');
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
  assert.deepEqual(h.timers.pending().map((x) => x.ms), [RETRY_DELAY_MS], 'the next retry is scheduled');

  (h.store as { mutate: unknown }).mutate = realMutate;
  h.clock.advance(RETRY_DELAY_MS);
  h.timers.runAll();
  await h.plugin.settle();
  assert.equal(h.client.prompts.length, 2, 'once the store works again the retry delivers');
});
