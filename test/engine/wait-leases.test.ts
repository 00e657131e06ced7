// Waiter leases (engine/wait-leases.ts): one `hook --wait` per member, taken
// over only from a dead or expired holder, released only by its own token,
// and kept (or dropped when malformed) by the state codec.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  activeWaitLease, emptyState, parseState, releaseWaitLease, renewWaitLease, serializeState, takeWaitLease, type WaitLease,
} from '../../src/engine/index';

const alive = () => true;
const dead = () => false;
const lease = (token: string, until = 1_000): WaitLease => ({ pid: 7, host: 'h', token, until });

test('a live holder keeps the member; a dead or expired one is taken over', () => {
  const state = emptyState();
  assert.equal(takeWaitLease(state, 'm', lease('a'), 0, alive), true);
  assert.equal(takeWaitLease(state, 'm', lease('b'), 500, alive), false);
  assert.equal(state.wait_leases!.m!.token, 'a');
  assert.equal(takeWaitLease(state, 'm', lease('b', 2_000), 500, dead), true, 'holder dead');
  assert.equal(takeWaitLease(state, 'm', lease('c', 3_000), 2_001, alive), true, 'lease expired');
  assert.equal(activeWaitLease(state, 'm', 2_500, alive)!.token, 'c');
  assert.equal(activeWaitLease(state, 'other', 2_500, alive), undefined);
});

test('renew and release act only for the token that holds the lease', () => {
  const state = emptyState();
  takeWaitLease(state, 'm', lease('a'), 0, alive);
  assert.equal(renewWaitLease(state, 'm', 'b', 9_000), false);
  assert.equal(renewWaitLease(state, 'm', 'a', 9_000), true);
  assert.equal(state.wait_leases!.m!.until, 9_000);
  assert.equal(releaseWaitLease(state, 'm', 'b'), false);
  assert.equal(releaseWaitLease(state, 'm', 'a'), true);
  assert.equal(state.wait_leases, undefined, 'an empty record is dropped');
  assert.equal(renewWaitLease(state, 'm', 'a', 9_000), false, 'a released lease cannot be renewed');
});

test('the codec keeps well-formed leases, drops malformed ones, and rejects a non-object', () => {
  const state = emptyState();
  takeWaitLease(state, 'm', lease('a'), 0, alive);
  const back = parseState(serializeState(state), 0);
  assert.ok(back.ok);
  assert.deepEqual(back.state.wait_leases, { m: lease('a') });

  const raw = JSON.parse(serializeState(emptyState()));
  raw.wait_leases = { good: lease('g'), bad: { pid: 'x' } };
  const mixed = parseState(JSON.stringify(raw), 0);
  assert.ok(mixed.ok);
  assert.deepEqual(mixed.state.wait_leases, { good: lease('g') });
  assert.ok(mixed.notes.some((n) => n.includes('wait_leases["bad"]')));

  raw.wait_leases = { bad: null };
  const none = parseState(JSON.stringify(raw), 0);
  assert.ok(none.ok);
  assert.equal(none.state.wait_leases, undefined);

  raw.wait_leases = 'nope';
  assert.equal(parseState(JSON.stringify(raw), 0).ok, false);
});
