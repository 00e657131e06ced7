// Edges where a push path could stop for good without any error: a spawn
// batch measured on other mail than the drain takes, a state directory
// replaced under the watcher, and a lease looked at on the very millisecond
// it ends (PROTOCOL 7.3, 5.3; docs/internals.md, "The state watcher").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchStateDir } from '../../src/local/state-dir-watch';
import { replaceFile } from '../../src/files/replace-file';
import { NODE_FS } from '../../src/files/fs-port';
import { envelope, setup } from './spawn-support';
import { until } from '../helpers/wait';
import { edit } from '../helpers/edit';

// The drain turns aged-out mail stale and skips it. If the size check counted
// that mail, the drain took a later envelope nobody measured, the batch no
// longer fitted, and discarding the whole change threw the stale mark away
// too, so every later attempt (any process) did the same: spawn delivery to
// the member was wedged. The plan now ages mail out before it measures.
test('an aged-out message ahead of large fresh mail does not wedge spawn delivery for good', async (t) => {
  const s = await setup(t);
  const old = await s.send('old and small');
  s.clock.t += 300_001; // the old message is now past bob's 5-minute window
  const fresh = await s.send('m'.repeat(50_000));
  const big = await s.send('b'.repeat(90_000));
  const driver = s.driver();
  for (let i = 0; i < 3; i += 1) {
    driver.trigger(['bob']);
    await driver.whenIdle();
    s.clock.t += 2_000;
    s.timers.fireAll();
    await driver.whenIdle();
  }
  // A second process (no in-memory "settled" memo) fares no better.
  const other = s.driver({ pid: 1002 });
  other.trigger(['bob']);
  await other.whenIdle();
  assert.notEqual(envelope(s.state(), old)?.delivery_status, 'pending', 'the aged-out message should have been marked stale');
  assert.ok(s.spawn.calls.length >= 1, `the fresh 50 KB message fits alone and should have been resumed into the session; spawns: ${s.spawn.calls.length}`);
  assert.equal(s.finished(fresh)?.delivery_status, 'delivered');
  void big;
});

// If .opencomms is removed and created again before the event naming it is
// handled (one tick of a busy server), the directory exists again, but the
// watch still follows the deleted inode: every later save would be missed and
// the doorbell and spawn driver of that process would go deaf. An event naming
// the directory itself re-establishes the watch on whatever is there now.
test('a state directory removed and created again before the event is handled is still watched', async (t) => {
  const project = mkdtempSync(join(tmpdir(), 'opencomms-watch-'));
  t.after(() => rmSync(project, { recursive: true, force: true }));
  const stateDir = join(project, '.opencomms');
  mkdirSync(stateDir);
  const watcher = watchStateDir(stateDir, { pollMs: 60_000 });
  t.after(() => watcher.close());
  let calls = 0;
  watcher.onChange(() => { calls += 1; });
  replaceFile(NODE_FS, join(stateDir, 'state.json'), '{"v":1}');
  await waitFor(() => calls >= 1, 'first save');
  // Removed and re-created within one tick, as a reset script or `rm -rf .opencomms && opencomms pin` may do while the server is busy.
  const atRemoval = calls;
  rmSync(stateDir, { recursive: true });
  mkdirSync(stateDir);
  // Re-making the watch on the new directory wakes listeners once (state.json may have changed).
  await waitFor(() => calls > atRemoval, 'the wake-up when the watch moves to the re-created directory');
  const before = calls;
  replaceFile(NODE_FS, join(stateDir, 'state.json'), '{"v":2}');
  await waitFor(() => calls > before, 'a save into the re-created directory');
});

// The driver's view of abandoned mail and the sweep must agree on the lease
// boundary (isAbandonedDelivery: a lease still binds at lease_until). Had the
// driver called the mail abandoned at lease_until, the sweep would have
// recovered nothing, and the driver's `settled` memo would have kept every
// later trigger from looking again.
test('in-flight mail whose lease ran out is recovered even if the first look came at the very millisecond of expiry', async (t) => {
  const s = await setup(t);
  const stuck = await s.send('drained by a hook on another machine that then died');
  const expiry = await inFlightElsewhere(s, stuck);
  const driver = s.driver();
  s.clock.t = expiry;
  driver.trigger(); // e.g. a watcher change that happens to land on that millisecond
  await driver.whenIdle();
  s.clock.t = expiry + 60_000; // long past the lease
  driver.trigger();
  await driver.whenIdle();
  driver.trigger();
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 1, 'the abandoned mail should have been swept back and resumed into the session');
  assert.equal(s.finished(stuck)?.delivery_status, 'delivered');
});

// Mail in flight under another machine's live lease becomes recoverable by
// time alone; no state change announces it. The driver looks again just after
// the lease ends, so the mail does not wait for some unrelated trigger.
test('in-flight mail under a live lease is looked at again when the lease ends, with no other trigger', async (t) => {
  const s = await setup(t);
  const stuck = await s.send('drained by a process on another machine that then died');
  const expiry = await inFlightElsewhere(s, stuck);
  const driver = s.driver();
  driver.trigger();
  await driver.whenIdle();
  assert.deepEqual(s.timers.live().map((x) => x.ms), [expiry - s.clock.t + 1]);
  assert.equal(s.spawn.calls.length, 0);
  s.clock.t = expiry + 1;
  s.timers.fireAll();
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
  assert.equal(s.finished(stuck)?.delivery_status, 'delivered');
});

/** Puts `id` in flight under a lease held on another machine (so only its expiry can free it); returns the expiry. */
async function inFlightElsewhere(s: Awaited<ReturnType<typeof setup>>, id: string): Promise<number> {
  const expiry = s.clock.t + 30_000;
  await edit(s.store, (state) => {
    const e = state.messages[id]!;
    e.delivery_status = 'in_flight';
    e.attempts = 1;
    e.delivery_owner = { pid: 77, host: 'another-machine', lease_until: expiry };
    state.queues.bob = [];
    return { ok: true, message: '' };
  });
  return expiry;
}

async function waitFor(condition: () => boolean, what: string, ms = 3_000): Promise<void> {
  await until(`a wake-up for ${what}`, condition, { timeoutMs: ms });
}
