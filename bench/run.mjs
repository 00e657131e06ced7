// `npm run bench`: the start-up benchmark, then the store benchmark when it is
// present. A report, not a gate: a missed target still exits 0; only a
// benchmark that crashes (or cannot be prepared) makes this exit non-zero.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import * as fs from 'node:fs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const failures = [];

function runNode(script, args = []) {
  const r = spawnSync(process.execPath, [join(root, script), ...args], { cwd: root, stdio: 'inherit' });
  if (r.error) failures.push(`${script}: ${r.error.message}`);
  else if (r.status !== 0) failures.push(`${script}: exited with ${r.status ?? r.signal}`);
}

runNode('bench/startup.mjs');

if (fs.existsSync(join(root, 'bench/store.mjs'))) {
  // store.mjs loads the tsc output under build/; compile it on a clean checkout.
  if (!fs.existsSync(join(root, 'build/src/store'))) {
    console.error('bench: build/src/store is missing; compiling with tsc -p tsconfig.test.json');
    const tsc = spawnSync('npx', ['tsc', '-p', 'tsconfig.test.json'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    if (tsc.error) failures.push(`tsc: ${tsc.error.message}`);
    // tsc still emits on type errors; what matters here is whether the store compiled
    else if (tsc.status !== 0) console.error(`bench: tsc exited with ${tsc.status}; running the store bench on whatever it emitted`);
  }
  if (fs.existsSync(join(root, 'build/src/store/index.js'))) runNode('bench/store.mjs', process.env.BENCH_STORE_REPS ? [process.env.BENCH_STORE_REPS] : []);
  else failures.push('bench/store.mjs: build/src/store/index.js is missing, store bench not run');
}

if (failures.length) {
  console.error(`bench: ${failures.length} benchmark(s) failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
