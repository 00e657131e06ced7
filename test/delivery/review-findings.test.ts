// Review E: failing tests for defects found in the push delivery paths.
// Each test states the behaviour a careful user expects; on the reviewed
// code it fails for the reason given in its comment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchStateDir } from '../../src/delivery/watcher';
import { replaceFile } from '../../src/store/replace-file';
import { NODE_FS } from '../../src/store/fs-port';
import { envelope, setup } from './spawn-support';

// spawn-plan.ts measures the batch over ALL pending mail, aged-out mail
// included, then drains (which turns the aged-out envelope stale and takes a
// later, unmeasured one instead); when the real batch no longer fits, the
// whole mutation is discarded, so the stale mark is thrown away too. The next
// attempt (any process, any time) measures the same queue and discards again:
// spawn delivery to the member is wedged until that mail is read some other
// way, and the fresh mail behind it waits until it, too, ages out.
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

// watcher.ts only re-arms when an event naming the directory arrives while
// the directory is missing. If .opencomms is removed and created again before
// that event is handled (one tick of a busy server), existsSync() is true,
// the dead inode stays watched, no poll is started, and every later save is
// missed: the doorbell and the spawn driver of that process go deaf for good.
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
  rmSync(stateDir, { recursive: true });
  mkdirSync(stateDir);
  await new Promise((r) => setTimeout(r, 200));
  const before = calls;
  replaceFile(NODE_FS, join(stateDir, 'state.json'), '{"v":2}');
  await waitFor(() => calls > before, 'a save into the re-created directory');
});

// spawn-driver.ts abandonedIds() calls an owner's in-flight mail abandoned
// when lease_until <= now, but sweepInFlight (engine/delivery.ts) only sweeps
// when now > lease_until. An attempt made exactly at lease_until therefore
// sweeps nothing, finds nothing to send, and memoises that pending/abandoned
// signature in `settled`; from then on every trigger sees the same signature
// and returns before the lock, so this process never recovers the mail (only
// new mail for the member, which changes the signature, unsticks it).
test('in-flight mail whose lease ran out is recovered even if the first look came at the very millisecond of expiry', async (t) => {
  const s = await setup(t);
  const stuck = await s.send('drained by a hook on another machine that then died');
  const expiry = s.clock.t + 30_000;
  await s.store.mutate((state) => {
    const e = state.messages[stuck]!;
    e.delivery_status = 'in_flight';
    e.attempts = 1;
    e.delivery_owner = { pid: 77, host: 'another-machine', lease_until: expiry };
    state.queues.bob = [];
    return { ok: true, message: '' };
  });
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

async function waitFor(condition: () => boolean, what: string, ms = 3_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) assert.fail(`no wake-up for ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
