// `hook --wait` in process: when the wait ends quietly (session over, rival
// waiter), and the waiter lease that keeps one waiter per member.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { processHostTag } from '../../src/process/place';
import { test } from 'node:test';
import { disconnectChannel, type WaitLease } from '../../src/engine/index';
import type { WaitSignal } from '../../src/hooks/wait';
import { channelWith, claudeEvent, hook, send, tempProject } from './support';
import { bounded, leaseOf, runWait, untilState } from './wait-support';
import { edit } from '../helpers/edit';

const STOP = claudeEvent('Stop', 's');

async function setUp(t: Parameters<typeof tempProject>[0]) {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author', hostSessionId: 's' }]);
  return { project, store };
}

async function putLease(store: Awaited<ReturnType<typeof setUp>>['store'], lease: WaitLease): Promise<void> {
  await edit(store, (state) => {
    state.wait_leases = { 'alice-1': lease };
    return { ok: true, message: 'lease planted' };
  });
}

/** A pid that named a process of ours which has exited. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', '']);
  return done.pid!;
}

test('the waiter holds a lease while it waits and releases it on timeout', async (t) => {
  const { project, store } = await setUp(t);
  const waiting = runWait(project, STOP, { timeoutMs: 300 });
  const held = await untilState(project, 'the lease', (s) => leaseOf(s, 'alice-1') !== undefined);
  assert.equal(leaseOf(held, 'alice-1')!.pid, process.pid);
  assert.equal(leaseOf(held, 'alice-1')!.host, processHostTag());
  const run = await bounded(waiting, 'the waiter');
  assert.equal(run.code, 0);
  assert.equal(store.snapshot().wait_leases, undefined);
});

test('a live holder: the second waiter exits 0 at once, silent, even with mail waiting', async (t) => {
  const { project, store } = await setUp(t);
  await putLease(store, { pid: process.pid, host: processHostTag(), token: 'first', until: Date.now() + 600_000 });
  await send(store, 'review', 'bob-1', 'alice-1', ['for the first waiter']);
  const run = await bounded(runWait(project, STOP, { timeoutMs: 600_000 }), 'the second waiter');
  assert.equal(run.code, 0);
  assert.deepEqual(run.warnings, []);
  assert.equal(run.out, '{}\n');
  assert.equal(leaseOf(store.snapshot(), 'alice-1')!.token, 'first', 'the holder keeps its lease');
});

for (const [what, stale] of [
  ['whose holder died', () => ({ pid: deadPid(), host: processHostTag(), token: 'dead', until: Date.now() + 600_000 })],
  ['that expired', () => ({ pid: 1, host: 'elsewhere', token: 'expired', until: Date.now() - 1 })],
] as const) {
  test(`a lease ${what} is taken over, and the new holder wakes on mail`, async (t) => {
    const { project, store } = await setUp(t);
    await putLease(store, stale());
    const waiting = runWait(project, STOP, { timeoutMs: 600_000 });
    await untilState(project, 'the takeover', (s) => leaseOf(s, 'alice-1')?.pid === process.pid);
    await send(store, 'review', 'bob-1', 'alice-1', ['now']);
    const run = await bounded(waiting, 'the new holder');
    assert.equal(run.code, 2);
    assert.equal(store.snapshot().wait_leases, undefined, 'released after waking');
  });
}

test('an unexpired lease held on another host binds: that holder cannot be checked, only its expiry', async (t) => {
  const { project, store } = await setUp(t);
  await putLease(store, { pid: 1, host: 'elsewhere', token: 'remote', until: Date.now() + 600_000 });
  const run = await bounded(runWait(project, STOP, { timeoutMs: 600_000 }), 'the waiter');
  assert.equal(run.code, 0);
  assert.equal(leaseOf(store.snapshot(), 'alice-1')!.token, 'remote');
});

test('SessionEnd marks the member stale: the waiter exits 0 and releases its lease', async (t) => {
  const { project, store } = await setUp(t);
  const waiting = runWait(project, STOP, { timeoutMs: 600_000 });
  await untilState(project, 'the lease', (s) => leaseOf(s, 'alice-1') !== undefined);
  await hook(project, claudeEvent('SessionEnd', 's', { reason: 'exit' }));
  const run = await bounded(waiting, 'the waiter');
  assert.equal(run.code, 0);
  assert.deepEqual(run.warnings, []);
  assert.equal(store.snapshot().wait_leases, undefined);
});

test('the member leaves its only channel: the waiter exits 0', async (t) => {
  const { project, store } = await setUp(t);
  const waiting = runWait(project, STOP, { timeoutMs: 600_000 });
  await untilState(project, 'the lease', (s) => leaseOf(s, 'alice-1') !== undefined);
  await edit(store, (state, ctx) => disconnectChannel(state, { channel: 'review', session_id: 'alice-1' }, ctx));
  const run = await bounded(waiting, 'the waiter');
  assert.equal(run.code, 0);
  assert.equal(store.snapshot().wait_leases, undefined);
});

test('the parent process goes away: the waiter exits 0', async (t) => {
  const { project, store } = await setUp(t);
  const parent = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], { stdio: 'ignore' });
  const gone = new Promise((resolve) => parent.on('exit', resolve));
  t.after(() => { parent.kill('SIGKILL'); });
  const waiting = runWait(project, STOP, { timeoutMs: 600_000, parentPid: parent.pid });
  await untilState(project, 'the lease', (s) => leaseOf(s, 'alice-1') !== undefined);
  parent.kill('SIGKILL');
  await gone;
  const run = await bounded(waiting, 'the waiter');
  assert.equal(run.code, 0);
  assert.equal(store.snapshot().wait_leases, undefined);
});

test('a signal ends the wait quietly with the lease released', async (t) => {
  const { project, store } = await setUp(t);
  const handlers = new Map<WaitSignal, () => void>();
  const waiting = runWait(project, STOP, { timeoutMs: 600_000, onSignal: (signal, handler) => handlers.set(signal, handler) });
  await untilState(project, 'the lease', (s) => leaseOf(s, 'alice-1') !== undefined);
  assert.deepEqual([...handlers.keys()].sort(), ['SIGHUP', 'SIGINT', 'SIGTERM']);
  handlers.get('SIGTERM')!();
  const run = await bounded(waiting, 'the waiter');
  assert.equal(run.code, 0);
  assert.deepEqual(run.warnings, []);
  assert.equal(store.snapshot().wait_leases, undefined);
});

test('a lease lost to another waiter ends this wait quietly and leaves the new holder alone', async (t) => {
  const { project, store } = await setUp(t);
  const waiting = runWait(project, STOP, { timeoutMs: 600_000 });
  await untilState(project, 'the lease', (s) => leaseOf(s, 'alice-1') !== undefined);
  await putLease(store, { pid: process.pid, host: processHostTag(), token: 'usurper', until: Date.now() + 600_000 });
  const run = await bounded(waiting, 'the waiter');
  assert.equal(run.code, 0);
  assert.equal(leaseOf(store.snapshot(), 'alice-1')!.token, 'usurper');
});
