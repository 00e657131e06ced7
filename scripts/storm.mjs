// The long SIGKILL storm: `npm run storm` (10 minutes) or
// `npm run storm -- --minutes 1 --slots 6`. Writer processes mutate one
// project while random ones are killed; at the end it checks that nothing
// acknowledged was lost, nothing was applied twice, and nothing stalls.
// Exits 1 on any broken promise. Needs `npm run build` and the compiled tests.
// Then, with redis-server installed, the same promises on Redis: rounds of 32
// sender processes x 10 sends on one Redis project with 8 of them SIGKILLed
// mid-burst (`--redis-rounds`, 5 by default; 0 skips them, `--redis-only`
// skips the file storm); it prints, per round, what was refused (any refusal
// fails the run), lost and duplicated, and how long a change took right after.
// `npm run storm -- --burst` instead sends a burst: 64 sender processes x 10
// sends to one member at once (`--writers`, `--sends` to change it), and
// prints refused/lost/duplicated and the p50/p99 send time.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { runStorm } = require('../build/test/store/storm.js');
const { runBurst, quantileOf } = require('../build/test/store/burst.js');
const { REDIS_SERVER, startRedis } = require('../build/test/store/redis/server.js');
const { burstOnRedis } = require('../build/test/store/redis/burst-target.js');
const { seededRandom } = require('../build/test/helpers/seeded-random.js');
const { openStore } = require('../build/src/store/index.js');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

if (process.argv.includes('--burst')) {
  const writers = option('writers', 64);
  const sends = option('sends', 10);
  const dir = mkdtempSync(join(tmpdir(), 'oc-burst-'));
  console.log(`burst: ${writers} sender processes x ${sends} sends at once, project ${dir}`);
  try {
    const o = await runBurst({ dir, writers, sendsEach: sends });
    const refused = Object.values(o.refused).reduce((a, b) => a + b, 0);
    console.log(`burst: ${o.acked} acknowledged in ${(o.wallMs / 1000).toFixed(1)} s (${(o.acked / (o.wallMs / 1000)).toFixed(0)} sends/s), ` +
      `${refused} refused ${JSON.stringify(o.refused)}, ${o.lost} lost, ${o.duplicated} duplicated; ` +
      `send p50 ${quantileOf(o.sendMs, 0.5).toFixed(0)} ms, p99 ${quantileOf(o.sendMs, 0.99).toFixed(0)} ms, max ${Math.max(...o.sendMs).toFixed(0)} ms`);
    if (o.stderr) console.log(`  writer stderr: ${o.stderr}`);
    process.exitCode = refused === 0 && o.lost === 0 && o.duplicated === 0 && o.acked === writers * sends && !o.stderr ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit();
}

const minutes = option('minutes', 10);
const slots = option('slots', 6);
const redisRounds = option('redis-rounds', 5);
let isBroken = false;
if (!process.argv.includes('--redis-only')) {
  const dir = mkdtempSync(join(tmpdir(), 'oc-storm-'));
  const started = Date.now();
  console.log(`storm: ${minutes} min, ${slots} writers, project ${dir}`);
  try {
    const outcome = await runStorm({
      dir,
      stormMs: minutes * 60_000,
      slots,
      minKills: 1,
      keepAllHistory: true,
      onProgress: (kills, acked) => console.log(`  ${Math.round((Date.now() - started) / 1000)} s: ${kills} kills, ${acked} acknowledged`),
    });
    console.log(`storm: ${outcome.kills} kills, ${outcome.acked} acknowledged mutations, ${outcome.problems.length} problem(s)`);
    for (const problem of outcome.problems) console.log(`  PROBLEM: ${problem}`);
    if (outcome.problems.length > 0) isBroken = true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (redisRounds > 0 && REDIS_SERVER === undefined) {
  console.log('storm on Redis: skipped, redis-server is not installed');
} else if (redisRounds > 0) {
  if (!(await redisStorm(redisRounds))) isBroken = true;
}
process.exitCode = isBroken ? 1 : 0;

// Rounds of writers killed mid-burst on one Redis project, on a redis-server
// of its own (the test suite's: a free loopback port, ACL users, AOF).
async function redisStorm(rounds) {
  const WRITERS = 32;
  const KILLED = 8;
  const SENDS = 10;
  const cleanups = [];
  const context = { after: (fn) => cleanups.push(fn), diagnostic: (line) => console.log(`  ${line}`) };
  const random = seededRandom('storm on Redis', context);
  const server = await startRedis(context);
  let isKept = true;
  const totals = { killed: 0, acked: 0, refused: 0, lost: 0, duplicated: 0 };
  console.log(`storm on Redis: ${rounds} rounds of ${WRITERS} sender processes x ${SENDS} sends, ${KILLED} of them SIGKILLed mid-burst, redis-server on port ${server.port}`);
  try {
    for (let round = 1; round <= rounds; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'oc-storm-redis-'));
      const target = burstOnRedis(server.port, `storm-${round}-${process.pid}`);
      try {
        const o = await runBurst({ dir, writers: WRITERS, sendsEach: SENDS, kills: { count: KILLED, withinMs: 1_000, random }, redis: target });
        const refused = Object.values(o.refused).reduce((a, b) => a + b, 0);
        // A change right after the burst: a line jammed by dead tickets would make it wait or fail.
        const store = openStore({ projectDir: dir, selection: target.selection });
        const after = Date.now();
        let afterText;
        try {
          await store.editLocally(() => ({ ok: true, message: '' }));
          afterText = `${Date.now() - after} ms`;
        } catch (err) {
          afterText = `failed (${err && err.code})`;
          isKept = false;
        } finally {
          await store.close();
        }
        console.log(`  round ${round}: ${o.killed} killed, ${o.acked} acknowledged, ${refused} refused ${JSON.stringify(o.refused)}, ${o.lost} lost, ${o.duplicated} duplicated; ` +
          `send p50 ${quantileOf(o.sendMs, 0.5).toFixed(0)} ms, p99 ${quantileOf(o.sendMs, 0.99).toFixed(0)} ms; a change right after: ${afterText}`);
        if (o.stderr) console.log(`    writer stderr: ${o.stderr}`);
        totals.killed += o.killed;
        totals.acked += o.acked;
        totals.refused += refused;
        totals.lost += o.lost;
        totals.duplicated += o.duplicated;
        if (refused > 0 || o.lost > 0 || o.duplicated > 0 || o.acked < (WRITERS - o.killed) * SENDS || o.stderr) isKept = false;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
  console.log(`storm on Redis: ${totals.killed} writers killed, ${totals.acked} acknowledged sends; ${totals.refused} refused (killed writers' earlier sends included), ${totals.lost} lost, ${totals.duplicated} duplicated`);
  return isKept;
}
