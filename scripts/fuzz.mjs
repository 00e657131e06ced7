// `npm run fuzz`: the long protocol fuzz against dist/opencomms.js. The same
// generator and oracle as test/e2e/fuzz.test.ts (test/helpers/fuzz.ts), for
// many more frames. `npm run fuzz` builds dist/ and build/ first.
//
//   node scripts/fuzz.mjs [frames] [seed]      (or FUZZ_FRAMES, FUZZ_SEED)
//
// Defaults: 100,000 frames, a seed from the clock (printed, so a failure can
// be replayed with it). Exits 1 on the first request left unanswered,
// answered twice or out of order, a crash or a hang.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { runFuzz } = require(join(root, 'build', 'test', 'helpers', 'fuzz.js'));

const frames = Number(process.argv[2] ?? process.env.FUZZ_FRAMES ?? 100_000);
const seed = Number(process.argv[3] ?? process.env.FUZZ_SEED ?? (Date.now() % 2 ** 32));
if (!Number.isSafeInteger(frames) || frames < 1 || !Number.isSafeInteger(seed) || seed < 0) {
  console.error('fuzz: usage: node scripts/fuzz.mjs [frames >= 1] [seed >= 0]');
  process.exit(2);
}

console.log(`fuzz: ${frames} frames, seed ${seed} (replay with: node scripts/fuzz.mjs ${frames} ${seed})`);
const project = mkdtempSync(join(tmpdir(), 'opencomms-fuzz-'));
try {
  const report = await runFuzz({
    script: join(root, 'dist', 'opencomms.js'), project, frames, seed, timeoutMs: 60_000,
    onProgress: (written) => console.log(`fuzz: ${written} frames written`),
  });
  const mib = (report.bytes / 1_048_576).toFixed(1);
  console.log(`fuzz: ok in ${(report.elapsedMs / 1000).toFixed(1)} s: ${report.frames} frames (${mib} MiB, ${report.lines} lines), `
    + `${report.requests} requests answered once each and in order, ${report.idlessReplies} id-less errors, `
    + `${report.notifications} notifications; server exit ${report.exitCode}`
    + `${report.peakRssKb ? `, peak RSS ${(report.peakRssKb / 1024).toFixed(0)} MiB` : ''}`);
  console.log(`fuzz: error codes ${JSON.stringify(report.errorCodes)}`);
  if (report.errorCodes['-32603']) {
    console.error(`fuzz: ${report.errorCodes['-32603']} request(s) ended in -32603; the server's stderr names the fault`);
    process.exitCode = 1;
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
} finally {
  rmSync(project, { recursive: true, force: true });
}
