// A burst of writers: many sender processes send to one member at the same
// moment. The machine can serve such a burst in a few seconds, so it must be
// served: nobody refused with lock_timeout, nothing lost, nothing twice.
// `npm run storm -- --burst` runs the full 64 x 10.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { quantileOf, runBurst } from './burst';
import { tempFilesIn, tempProject } from './helpers';

const WRITERS = 32;
const SENDS_EACH = 5;

test(`a burst of writers is served: ${WRITERS} sender processes x ${SENDS_EACH} sends at once, none refused, none lost, none duplicated`, { timeout: 120_000 }, async (t) => {
  const dir = tempProject(t);
  const outcome = await runBurst({ dir, writers: WRITERS, sendsEach: SENDS_EACH, onCleanup: (fn) => t.after(fn) });
  t.diagnostic(`wall ${outcome.wallMs.toFixed(0)} ms, send p50 ${quantileOf(outcome.sendMs, 0.5)} ms, p99 ${quantileOf(outcome.sendMs, 0.99)} ms`);
  assert.equal(outcome.stderr, '');
  assert.deepEqual(outcome.refused, {}, 'sends refused');
  assert.equal(outcome.acked, WRITERS * SENDS_EACH);
  assert.equal(outcome.lost, 0, 'acknowledged sends lost');
  assert.equal(outcome.duplicated, 0, 'sends applied twice');
  const stateDir = join(dir, '.opencomms');
  assert.equal(existsSync(join(stateDir, '.state.lock')), false, 'the lock was left behind');
  assert.deepEqual(readdirSync(join(stateDir, '.state.lock.queue')), [], 'tickets were left in the queue');
  assert.deepEqual(tempFilesIn(stateDir), []);
});
