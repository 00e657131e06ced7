// Writers that die in the Redis turn line (src/store/redis/turns.ts): a burst
// of sender processes on one Redis project, some SIGKILLed while they wait
// for their turn or hold it. The survivors must all be served, nothing
// acknowledged lost or applied twice, and the line must not jam afterwards;
// the same when the server restarts mid-burst. Real redis-server, real
// processes, real kills.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomHex } from '../../../src/process/crypto';
import { quantileOf, runBurst } from '../burst';
import { tempProject } from '../helpers';
import { seededRandom } from '../../helpers/seeded-random';
import { SKIP_WITHOUT_REDIS, startRedis } from './server';
import { createRedisStore } from '../../../src/store/redis/redis-store';
import { TEST_CODEC } from '../test-codec';
import { OK } from '../helpers';
import { burstOnRedis } from './burst-target';
import { edit } from '../../helpers/edit';

const skip = SKIP_WITHOUT_REDIS;
const WRITERS = 32;
const KILLED = 8;
const SENDS_EACH = 10;

test(`with ${KILLED} of ${WRITERS} sender processes SIGKILLed mid-burst on Redis, every survivor is served: none refused, none lost, none twice`, { skip, timeout: 240_000 }, async (t) => {
  const server = await startRedis(t);
  const dir = tempProject(t);
  const random = seededRandom('redis writer kills', t);
  const outcome = await runBurst({
    dir, writers: WRITERS, sendsEach: SENDS_EACH, onCleanup: (fn) => t.after(fn),
    kills: { count: KILLED, withinMs: 1_000, random },
    redis: burstOnRedis(server.port, `kills-${randomHex(4)}`),
  });
  t.diagnostic(`${outcome.killed} killed, ${outcome.acked} acknowledged, refused ${JSON.stringify(outcome.refused)}, wall ${outcome.wallMs.toFixed(0)} ms, ` +
    `send p50 ${quantileOf(outcome.sendMs, 0.5)} ms, p99 ${quantileOf(outcome.sendMs, 0.99)} ms`);
  assert.equal(outcome.killed, KILLED, 'writers killed before they finished');
  assert.deepEqual(outcome.refused, {}, 'sends refused');
  assert.ok(outcome.acked >= (WRITERS - KILLED) * SENDS_EACH, `the writers not killed were all served (${outcome.acked} acknowledged)`);
  assert.equal(outcome.lost, 0, 'acknowledged sends lost');
  assert.equal(outcome.duplicated, 0, 'sends applied twice');
  assert.equal(outcome.stderr, '');
});

test('a Redis restart mid-burst leaves no jam: sends fail only as unreachable while it is down, none with lock_timeout, and a change right after commits at once', { skip, timeout: 240_000 }, async (t) => {
  const server = await startRedis(t);
  const dir = tempProject(t);
  const target = burstOnRedis(server.port, `restart-${randomHex(4)}`);
  let downMs = 0;
  const outcome = await runBurst({
    dir, writers: 16, sendsEach: SENDS_EACH, onCleanup: (fn) => t.after(fn), redis: target,
    // Mid-burst: the writers are in line by the time their first sends met each other.
    midBurst: async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const down = Date.now();
      await server.stop();
      await server.start();
      downMs = Date.now() - down;
    },
  });
  t.diagnostic(`server down ${downMs} ms; ${outcome.acked} acknowledged, refused ${JSON.stringify(outcome.refused)}, wall ${outcome.wallMs.toFixed(0)} ms`);
  const { store_unreachable: _unreachable, ...otherRefusals } = outcome.refused;
  assert.deepEqual(otherRefusals, {}, 'sends refused for another reason than the server being down');
  assert.equal(outcome.lost, 0, 'acknowledged sends lost');
  assert.equal(outcome.duplicated, 0, 'sends applied twice');
  const store = createRedisStore({ config: target.config, codec: TEST_CODEC, projectDir: dir, lockTimeoutMs: 3_000 });
  t.after(() => store.close());
  const started = Date.now();
  await edit(store, () => OK);
  assert.ok(Date.now() - started < 1_000, `a change after the burst took ${Date.now() - started} ms`);
});
