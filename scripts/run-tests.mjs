// Runs every compiled *.test.js under build/test with node:test. (Node 20's
// `node --test <dir>` would also run helper modules and fixtures as tests.)
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(path));
    else if (entry.name.endsWith('.test.js')) found.push(path);
  }
  return found;
}

// Files that spawn processes (end-to-end, store) take longest: they start
// first, biggest first, and the quick in-process files fill the cores at the
// end, so no long file starts last and runs alone.
const isSlow = (path) => /[/\\](e2e|store)[/\\]/.test(path);
const weightOf = (path) => (isSlow(path) ? 1e9 : 0) + statSync(path).size;
const files = findTests(process.argv[2] ?? 'build/test').sort().sort((a, b) => weightOf(b) - weightOf(a));
// One test file per core by default; OPENCOMMS_TEST_CONCURRENCY (a whole number >= 1) overrides it,
// for a CI runner whose cores are shared or a machine where fewer files at once is steadier.
const override = process.env.OPENCOMMS_TEST_CONCURRENCY?.trim();
if (override && !/^[1-9]\d{0,2}$/.test(override)) {
  console.error(`run-tests: OPENCOMMS_TEST_CONCURRENCY must be a whole number from 1 to 999, not ${JSON.stringify(override)}`);
  process.exit(2);
}
const concurrency = override ? Number(override) : availableParallelism();
const result = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit' });
if (process.env.NODE_V8_COVERAGE) dropCachedSourceMaps(process.env.NODE_V8_COVERAGE);
process.exit(result.status ?? 1);

// Under c8 every process writes a coverage file, and Node adds to it every
// source map the process loaded: for a process that ran dist/opencomms.js,
// 1.5 MB of map (sources included) in each of about a thousand files, which
// c8 then reads back one by one. The map is the last member of each file; c8
// reads the same map from disk, beside the file it maps, when the coverage
// file has none, so the report is the same (and three times quicker to make).
function dropCachedSourceMaps(dir) {
  const marker = Buffer.from(',"source-map-cache":');
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    const path = join(dir, name);
    const bytes = readFileSync(path);
    const at = bytes.lastIndexOf(marker);
    if (at >= 0) writeFileSync(path, Buffer.concat([bytes.subarray(0, at), Buffer.from('}')]));
  }
}
