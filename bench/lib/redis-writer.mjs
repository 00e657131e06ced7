// One writer process of bench/redis.mjs: the store's sends, or the bare
// WATCH/GET/MULTI/SET/EXEC floor, on one Redis project. It starts warm, as a
// long-running MCP server is: the store is opened, the state loaded and one
// send made (not counted; its tag ends in "-warm") before it prints "ready".
// Then it waits for a line on stdin (the barrier that releases every writer
// at once), makes its counted sends one after another, and prints
//   done <sends> <ms> <conflicts> <most runs of one send> <last ack, epoch ms> <per-send ms,…>
// argv: store|floor <projectId> <me> <peer> <sends> <pull every> <channel>;
// BENCH_REDIS_PORT / BENCH_REDIS_PASSWORD.
import { performance } from 'node:perf_hooks';
import * as os from 'node:os';
import { bareClient, createRedisStore, DEFAULT_CODEC, fastClock, FLOOR_KEY, ok, redisConfig, sendChange } from './redis-common.mjs';

const [kind, projectId, me, peer, countText, pullEveryText, channel] = process.argv.slice(2);
const pullEvery = Number(pullEveryText);
const port = Number(process.env.BENCH_REDIS_PORT);
const password = process.env.BENCH_REDIS_PASSWORD;
const count = Number(countText);
const store = kind === 'store'
  ? createRedisStore({
    config: redisConfig(port, password, projectId), codec: DEFAULT_CODEC, projectDir: os.tmpdir(), now: fastClock,
    historyKeep: 1_000_000,
  })
  : undefined;
const client = kind === 'floor' ? bareClient(port, password) : undefined;
const epochMs = () => performance.timeOrigin + performance.now();

// Runs of the change: one per attempt, so runs beyond one per send are conflicts retried.
let runs = 0;
// pullEvery 0: the peer's pull of this very send is part of the change, so the live
// state keeps one size; N: every Nth change also takes in this writer's own mail.
const readerOf = (n) => (pullEvery === 0 ? peer : pullEvery > 0 && n % pullEvery === pullEvery - 1 ? me : undefined);
const sendOnce = (tag, reader) => store.editLocally((s, ctx) => {
  runs++;
  return sendChange(s, ctx, { channel, me, peer, tag, reader });
});

// The bare optimistic loop: read under WATCH, write in MULTI/EXEC, again on a conflict.
async function bareIncrement() {
  let conflicts = 0;
  for (;;) {
    const [, value] = await client.pipeline([['WATCH', FLOOR_KEY], ['GET', FLOOR_KEY]]);
    const text = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
    const sep = text.indexOf(':');
    const next = `${Number(text.slice(0, sep)) + 1}${text.slice(sep)}`;
    const replies = await client.pipeline([['MULTI'], ['SET', FLOOR_KEY, next], ['EXEC']]);
    if (replies[2] !== null) return conflicts;
    conflicts++;
  }
}

if (store) {
  await store.refresh();
  ok(await sendOnce(`${me}-warm`, pullEvery === 0 ? peer : undefined));
  runs = 0;
} else {
  // The floor's counter must end at exactly the counted increments: warm with reads only.
  await client.pipeline([['PING'], ['GET', FLOOR_KEY]]);
}
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
const started = performance.now();
let conflicts = 0;
let mostRuns = 0;
const sendMs = [];
for (let n = 0; n < count; n++) {
  const sendStarted = performance.now();
  if (store) {
    const runsBefore = runs;
    ok(await sendOnce(`${me}-${n}`, readerOf(n)));
    mostRuns = Math.max(mostRuns, runs - runsBefore);
  } else {
    conflicts += await bareIncrement();
  }
  sendMs.push(performance.now() - sendStarted);
}
const lastAck = epochMs();
const ms = performance.now() - started;
if (store) conflicts = runs - count;
process.stdout.write(`done ${count} ${ms.toFixed(1)} ${conflicts} ${mostRuns} ${lastAck.toFixed(3)} ${sendMs.map((x) => x.toFixed(2)).join(',')}\n`);
await (store ? store.close() : client.close());
process.exit(0);
