// The long SIGKILL storm: `npm run storm` (10 minutes) or
// `npm run storm -- --minutes 1 --slots 6`. Writer processes mutate one
// project while random ones are killed; at the end it checks that nothing
// acknowledged was lost, nothing was applied twice, and nothing stalls.
// Exits 1 on any broken promise. Needs `npm run build` and the compiled tests.
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
  process.exitCode = outcome.problems.length === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
