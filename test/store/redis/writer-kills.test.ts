// Writers that die in the Redis turn line (src/store/redis/turns.ts): a burst
// of sender processes on one Redis project, some SIGKILLed while they wait
// for their turn or hold it. The survivors must all be served, nothing
// acknowledged lost or applied twice, and the line must not jam afterwards.
// Real redis-server, real processes, real kills.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomHex } from '../../../src/process/crypto';
import { quantileOf, runBurst } from '../burst';
import { tempProject } from '../helpers';
import { seededRandom } from '../../helpers/seeded-random';
import { SKIP_WITHOUT_REDIS, startRedis } from './server';
import { burstOnRedis } from './burst-target';

const skip = SKIP_WITHOUT_REDIS;
const WRITERS = 32;
const KILLED = 8;
const SENDS_EACH = 5;

test(`with ${KILLED} of ${WRITERS} sender processes SIGKILLed mid-burst on Redis, every survivor is served: none refused, none lost, none twice`, { skip, timeout: 240_000 }, async (t) => {
  const server = await startRedis(t);
  const dir = tempProject(t);
  const random = seededRandom('redis writer kills', t);
  const outcome = await runBurst({
    dir, writers: WRITERS, sendsEach: SENDS_EACH, onCleanup: (fn) => t.after(fn),
    kills: { count: KILLED, withinMs: 1_500, random },
    redis: burstOnRedis(server.port, `kills-${randomHex(4)}`),
  });
  t.diagnostic(`${outcome.killed} killed, ${outcome.acked} acknowledged, refused ${JSON.stringify(outcome.refused)}, wall ${outcome.wallMs.toFixed(0)} ms, ` +
    `send p50 ${quantileOf(outcome.sendMs, 0.5)} ms, p99 ${quantileOf(outcome.sendMs, 0.99)} ms`);
  assert.deepEqual(outcome.refused, {}, 'sends refused');
  assert.ok(outcome.acked >= (WRITERS - KILLED) * SENDS_EACH, `the writers not killed were all served (${outcome.acked} acknowledged)`);
  assert.equal(outcome.lost, 0, 'acknowledged sends lost');
  assert.equal(outcome.duplicated, 0, 'sends applied twice');
  assert.equal(outcome.stderr, '');
});
