// The long SIGKILL storm: `npm run storm` (10 minutes) or
// `npm run storm -- --minutes 1 --slots 6`. Writer processes mutate one
// project while random ones are killed; at the end it checks that nothing
// acknowledged was lost, nothing was applied twice, and nothing stalls.
// Exits 1 on any broken promise. Needs `npm run build` and the compiled tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { runStorm } = require('../build/test/store/storm.js');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
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
