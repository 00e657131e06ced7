import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFrames, MAX_DELIVERY_ATTEMPTS } from '../../src/engine/index';
import { SPAWN_RETRY_BASE_MS, LEASE_RECHECK_MS } from '../../src/delivery/spawn-driver';
import { envelope, HOST, setup } from './spawn-support';
import { edit } from '../helpers/edit';

test('resumes a claude-code member with the framed batch as the last argument and commits on exit 0', async (t) => {
  const s = await setup(t);
  const id = await s.send('please review the diff');
  const driver = s.driver();
  driver.trigger(['bob']);
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
  const call = s.spawn.calls[0]!;
  assert.equal(call.file, 'claude');
  // --allowedTools: headless claude refuses every MCP tool no rule grants, and the resumed session must answer with ours.
  assert.deepEqual(call.args.slice(0, 5), ['-p', '--allowedTools', 'mcp__opencomms,mcp__plugin_opencomms_opencomms', '--resume', 'hs-bob-1']);
  assert.equal(call.args.length, 6);
  assert.equal(call.cwd, s.project);
  assert.equal(call.env.OPENCOMMS_MEMBER_ID, undefined, 'the sender identity must not leak into the resumed host');
  const frames = parseFrames(s.spawn.batch(0));
  assert.ok(frames.ok && frames.frames.length === 1 && frames.frames[0]!.content === 'please review the diff');
  const record = s.finished(id);
  assert.equal(record?.delivery_status, 'delivered');
  assert.equal(record?.delivery_method, 'spawn_push');
  assert.equal(s.state().spawn_leases, undefined, 'the lease is released with the commit');
});

test('resumes a codex member with exec resume, through a quoted template override', async (t) => {
  const s = await setup(t, { host: 'codex' });
  await s.send('hello codex');
  const driver = s.driver({ env: { OPENCOMMS_CODEX_BIN: 'node "/no such dir/fake host.cjs" --flag' } });
  driver.trigger(['bob']);
  await driver.whenIdle();
  const call = s.spawn.calls[0]!;
  assert.equal(call.file, 'node');
  assert.deepEqual(call.args.slice(0, 5), ['/no such dir/fake host.cjs', '--flag', 'exec', 'resume', 'hs-bob-1']);
  assert.match(s.spawn.batch(0), /hello codex/);
});

test('ignores members that are not spawn_push and a process with OPENCOMMS_NO_SPAWN=1', async (t) => {
  const s = await setup(t);
  await s.send('to bob');
  await s.send('to alice', 'alice', 'bob');
  const before = JSON.stringify(s.state());
  const off = s.driver({ env: { OPENCOMMS_NO_SPAWN: '1' } });
  off.trigger(['bob']);
  off.trigger();
  await off.whenIdle();
  assert.equal(s.spawn.calls.length, 0);
  assert.equal(JSON.stringify(s.state()), before);
  const on = s.driver();
  on.trigger(['alice']);
  await on.whenIdle();
  assert.equal(s.spawn.calls.length, 0, 'alice reads by pull');
});

test('a failed spawn requeues in FIFO order, counts the attempt, and retries with back-off until the dead letter', async (t) => {
  const s = await setup(t);
  const first = await s.send('first');
  const second = await s.send('second');
  for (let i = 0; i < MAX_DELIVERY_ATTEMPTS; i += 1) s.spawn.outcomes.push({ code: 1, signal: null, timedOut: false });
  const driver = s.driver();
  driver.trigger(['bob']);
  await driver.whenIdle();
  let state = s.state();
  assert.deepEqual(state.queues.bob, [first, second]);
  assert.equal(envelope(state, first)?.attempts, 1);
  assert.equal(envelope(state, first)?.delivery_status, 'pending');
  const error = state.errors.at(-1)!;
  assert.equal(error.member_id, 'bob');
  assert.match(error.message, /host CLI failed \(exit code 1\)/);
  assert.doesNotMatch(error.message, /first|second|hs-bob-1/, 'neither the mail nor the argv is stored');
  // A second process sees the back-off as a live lease and leaves the member alone, even past the cooldown.
  s.clock.t += 1_500;
  const other = s.driver({ pid: 1002 });
  other.trigger(['bob']);
  await other.whenIdle();
  assert.equal(s.spawn.calls.length, 1);

  const delays: number[] = [];
  for (let attempt = 2; attempt <= MAX_DELIVERY_ATTEMPTS; attempt += 1) {
    const retry = s.timers.live().find((e) => e.ms > LEASE_RECHECK_MS || e.ms === SPAWN_RETRY_BASE_MS * 2 ** (attempt - 2) + 1)!;
    delays.push(retry.ms);
    s.clock.t += attempt === 2 ? retry.ms - 1_500 : retry.ms;
    s.timers.fireAll();
    await driver.whenIdle();
    await other.whenIdle();
    assert.equal(s.spawn.calls.length, attempt, `attempt ${attempt} ran once`);
    assert.deepEqual(parseFrames(s.spawn.batch(attempt - 1)).ok && s.spawn.batch(attempt - 1).indexOf('first') < s.spawn.batch(attempt - 1).indexOf('second'), true);
  }
  assert.deepEqual(delays, [2_001, 4_001, 8_001, 16_001]);
  state = s.state();
  assert.equal(s.finished(first)?.delivery_status, 'failed');
  assert.equal(s.finished(second)?.delivery_status, 'failed');
  assert.equal(state.queues.bob, undefined);
  assert.equal(state.spawn_leases, undefined);
  assert.match(state.errors.at(-1)!.message, /2 failed after 5 attempts/);
  s.clock.t += 60_000;
  s.timers.fireAll();
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, MAX_DELIVERY_ATTEMPTS, 'no retry after the dead letter');
});

test('a timed-out or unstartable host CLI is reported without detail that could leak', async (t) => {
  const s = await setup(t);
  await s.send('x');
  s.spawn.outcomes.push({ code: null, signal: 'SIGTERM', timedOut: true });
  const driver = s.driver();
  driver.trigger(['bob']);
  await driver.whenIdle();
  assert.match(s.state().errors.at(-1)!.message, /host CLI failed \(timed out\)/);
});

test('a message too large for the command line is refused without draining, with one error', async (t) => {
  const s = await setup(t);
  const id = await s.send('€'.repeat(100_000));
  const driver = s.driver();
  driver.trigger(['bob']);
  await driver.whenIdle();
  driver.trigger(['bob']);
  driver.trigger();
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 0);
  const state = s.state();
  assert.equal(envelope(state, id)?.delivery_status, 'pending');
  assert.equal(envelope(state, id)?.attempts, 0);
  const errors = state.errors.filter((e) => e.member_id === 'bob');
  assert.equal(errors.length, 1);
  assert.match(errors[0]!.message, /too large/);
});

test('the Windows budget is smaller: a message that fits on POSIX is refused there', async (t) => {
  const s = await setup(t);
  await s.send('a'.repeat(40_000));
  const windows = s.driver({ platform: 'win32' });
  windows.trigger(['bob']);
  await windows.whenIdle();
  assert.equal(s.spawn.calls.length, 0);
  const posix = s.driver({ pid: 1002 });
  posix.trigger(['bob']);
  await posix.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
});

test('a batch larger than the budget is split between whole messages, the rest after the cooldown', async (t) => {
  const s = await setup(t);
  const a = await s.send('a'.repeat(70_000));
  const b = await s.send('b'.repeat(70_000));
  const driver = s.driver();
  driver.trigger(['bob']);
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
  assert.equal(s.finished(a)?.delivery_status, 'delivered');
  assert.equal(envelope(s.state(), b)?.delivery_status, 'pending');
  const cooldown = s.timers.live().at(-1)!;
  assert.ok(cooldown.ms > 0 && cooldown.ms <= 1_000);
  s.clock.t += cooldown.ms;
  s.timers.fireAll();
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 2);
  assert.ok(s.spawn.batch(1).includes('b'.repeat(70_000)));
  assert.equal(s.finished(b)?.delivery_status, 'delivered');
});

for (const bad of ['-rf', 'line\nbreak', '   ', 'nul\u0000', 'x'.repeat(257)]) {
  test(`an unusable host_session_id (${JSON.stringify(bad.slice(0, 12))}) is refused and the mail stays queued`, async (t) => {
    const s = await setup(t, { hostSessionId: bad });
    const id = await s.send('hi');
    const driver = s.driver();
    driver.trigger(['bob']);
    await driver.whenIdle();
    assert.equal(s.spawn.calls.length, 0);
    const state = s.state();
    assert.equal(envelope(state, id)?.delivery_status, 'pending');
    assert.equal(state.errors.filter((e) => e.member_id === 'bob').length, 1);
  });
}

test('a live lease held by another process blocks a second delivery, and a re-check is scheduled', async (t) => {
  const s = await setup(t);
  await s.send('one');
  s.spawn.isHolding = true;
  const first = s.driver({ pid: 1001 });
  const second = s.driver({ pid: 1002 });
  first.trigger(['bob']);
  // Let the first delivery reach its spawn.
  while (s.spawn.calls.length === 0) await new Promise((r) => setImmediate(r));
  const lease = s.state().spawn_leases?.bob;
  assert.equal(lease?.pid, 1001);
  await s.send('two');
  s.clock.t += 5_000; // past the channel cooldown: only the lease holds the second process back
  second.trigger(['bob']);
  second.trigger();
  first.trigger(['bob']);
  await second.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
  assert.ok(s.timers.live().some((e) => e.ms <= LEASE_RECHECK_MS));
  s.spawn.release();
  // The holder looks again when it ends: "two", sent meanwhile, goes next, by the holder alone.
  await first.whenIdle();
  await second.whenIdle();
  assert.equal(s.spawn.calls.length, 2);
  assert.match(s.spawn.batch(1), /two/);
  assert.doesNotMatch(s.spawn.batch(1), /\none\n/);
});

test('a lease whose holder is dead is taken over, and its in-flight mail is swept back first', async (t) => {
  const s = await setup(t);
  const stuck = await s.send('stuck');
  const fresh = await s.send('fresh');
  await edit(s.store, (state) => {
    const e = state.messages[stuck]!;
    e.delivery_status = 'in_flight';
    e.attempts = 1;
    e.delivery_owner = { pid: 4242, host: HOST, lease_until: s.clock.t + 600_000 };
    state.queues.bob = [fresh];
    state.spawn_leases = { bob: { pid: 4242, host: HOST, token: 'dead', until: s.clock.t + 600_000 } };
    return { ok: true, message: '' };
  });
  const driver = s.driver();
  driver.trigger(['bob']);
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
  const batch = s.spawn.batch(0);
  assert.ok(batch.indexOf('stuck') < batch.indexOf('fresh'), 'the swept envelope keeps its place ahead');
  assert.equal(s.finished(stuck)?.attempts, 2);
  assert.equal(s.finished(stuck)?.delivery_status, 'delivered');
  assert.equal(s.state().spawn_leases, undefined);
});

test('an expired lease from another machine is free; a live in-lease delivery of another process is never swept', async (t) => {
  const s = await setup(t);
  const theirs = await s.send('theirs');
  const mine = await s.send('mine');
  await edit(s.store, (state) => {
    const e = state.messages[theirs]!;
    e.delivery_status = 'in_flight';
    e.attempts = 1;
    e.delivery_owner = { pid: 1002, host: HOST, lease_until: s.clock.t + 600_000 };
    state.queues.bob = [mine];
    state.spawn_leases = { bob: { pid: 77, host: 'elsewhere', token: 'old', until: s.clock.t - 1 } };
    return { ok: true, message: '' };
  });
  const driver = s.driver();
  driver.trigger(['bob']);
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
  assert.doesNotMatch(s.spawn.batch(0), /theirs/);
  assert.equal(envelope(s.state(), theirs)?.delivery_status, 'in_flight');
  assert.equal(s.finished(mine)?.delivery_status, 'delivered');
});

test('attach re-checks on every watcher change and close stops it', async (t) => {
  const s = await setup(t);
  let listener: (() => void) | undefined;
  let isClosed = false;
  const watcher = { onChange: (fn: () => void) => { listener = fn; return () => { isClosed = true; }; }, close: () => undefined };
  const driver = s.driver();
  driver.attach(watcher);
  await s.send('via the watcher');
  listener!();
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
  driver.close();
  assert.equal(isClosed, true);
  await s.send('after close');
  driver.trigger();
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
});

test('in-flight mail abandoned by a dead deliverer is found and re-delivered without any new mail', async (t) => {
  const s = await setup(t);
  const stuck = await s.send('left behind');
  await edit(s.store, (state) => {
    const e = state.messages[stuck]!;
    e.delivery_status = 'in_flight';
    e.attempts = 1;
    e.delivery_owner = { pid: 4242, host: HOST, lease_until: s.clock.t + 600_000 };
    state.queues.bob = [];
    return { ok: true, message: '' };
  });
  const driver = s.driver();
  driver.trigger(); // no member named and nothing pending: only the abandoned delivery can start it
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 1);
  assert.match(s.spawn.batch(0), /left behind/);
  assert.equal(s.finished(stuck)?.delivery_status, 'delivered');
  assert.equal(s.finished(stuck)?.attempts, 2);
});

test('in-flight mail whose deliverer is alive and within its lease is left alone', async (t) => {
  const s = await setup(t);
  const busy = await s.send('being delivered');
  await edit(s.store, (state) => {
    const e = state.messages[busy]!;
    e.delivery_status = 'in_flight';
    e.attempts = 1;
    e.delivery_owner = { pid: 1002, host: HOST, lease_until: s.clock.t + 600_000 };
    state.queues.bob = [];
    return { ok: true, message: '' };
  });
  const driver = s.driver();
  driver.trigger();
  await driver.whenIdle();
  assert.equal(s.spawn.calls.length, 0);
  assert.equal(s.state().messages[busy]?.delivery_status, 'in_flight');
});

test('spawn-push runs only on the machine of the member\'s host session: another machine\'s driver leaves the mail alone', async (t) => {
  const elsewhere = await setup(t, { machine: 'laptop-2/4026531836' });
  await elsewhere.send('for the session on laptop-2');
  const before = JSON.stringify(elsewhere.state());
  const here = elsewhere.driver();
  here.trigger(['bob']);
  here.trigger();
  await here.whenIdle();
  assert.equal(elsewhere.spawn.calls.length, 0);
  assert.equal(JSON.stringify(elsewhere.state()), before, 'nothing claimed, nothing recorded');

  const local = await setup(t, { machine: HOST });
  await local.send('for the session here');
  const driver = local.driver();
  driver.trigger(['bob']);
  await driver.whenIdle();
  assert.equal(local.spawn.calls.length, 1);
});
