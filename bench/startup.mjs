// Start-up benchmark (a report, not a test): what launching dist/opencomms.js
// costs an MCP host, against a bare Node process doing the same pipe dance.
// Interleaved repetitions (opencomms, floor, floor, opencomms, ...), medians,
// ratios to the floor of the same Node binary measured in this same run; once
// per runtime of bench/lib/nodes.mjs (this Node; Node 24 and Node 26 with the
// compile cache install turns on). The headline is
// spawn → tools/list reply: every host we know lists the tools right after
// initialize, and only then can it use the server.
//   node bench/startup.mjs            (BENCH_REPS=21 by default, BENCH_TIMEOUT_MS=10000,
//                                      BENCH_BUNDLE=<file> measures another bundle, e.g. an older build)
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import * as fs from 'node:fs';
import { printTable } from './lib/report.mjs';
import * as os from 'node:os';
import * as vm from 'node:vm';
import { benchRuntimes, removeCacheDirs, TARGET } from './lib/nodes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = process.env.BENCH_BUNDLE ? resolve(process.env.BENCH_BUNDLE) : join(root, 'dist/opencomms.js');
const REPS = Math.max(1, Number(process.env.BENCH_REPS ?? 21) || 21);
const WARMUP = 2;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 10_000) || 10_000;
const HAS_PROC = fs.existsSync('/proc/self/status');

// NODE_EXTRA_CA_CERTS makes every Node process read and parse a CA bundle at
// boot (tens of ms on some machines). Neither subject uses TLS, and the same
// constant added to both sides would only flatten every ratio towards 1, so
// children run without it unless BENCH_KEEP_ENV=1.
const CHILD_ENV = { ...process.env };
const DROPPED_ENV = [];
if (process.env.BENCH_KEEP_ENV !== '1') {
  for (const name of ['NODE_EXTRA_CA_CERTS']) if (name in CHILD_ENV) { delete CHILD_ENV[name]; DROPPED_ENV.push(name); }
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });

// The floor: a bare Node process that reads newline-delimited JSON from stdin
// and answers every request (a line with an id) with one fixed reply line, then
// exits when stdin closes. Same spawn, same pipes, same parse-and-reply loop.
const FLOOR_SCRIPT = `let b='';process.stdin.setEncoding('utf8');process.stdin.on('data',c=>{b+=c;let i;while((i=b.indexOf('\\n'))>=0){const l=b.slice(0,i);b=b.slice(i+1);if(!l.trim())continue;const m=JSON.parse(l);if(m.id!==undefined)process.stdout.write('{"jsonrpc":"2.0","id":'+JSON.stringify(m.id)+',"result":{}}\\n');}});`;

const subjects = {
  opencomms: (dir) => [SERVER, '--project', dir],
  floor: () => ['-e', FLOOR_SCRIPT],
};

// ---- one child, driven line by line ----------------------------------------
function launch(kind, runtime) {
  const dir = kind === 'opencomms' ? fs.mkdtempSync(join(os.tmpdir(), 'oc-startup-')) : null;
  const args = subjects[kind](dir);
  const t0 = performance.now();
  const child = spawn(runtime.bin, args, { stdio: ['pipe', 'pipe', 'pipe'], env: runtime.env });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c) => { if (stderr.length < 8192) stderr += c; });
  child.stdin.on('error', () => {}); // a child that died early shows up as a timeout or exit code below
  const waiters = new Map(); // id -> resolve
  const replies = new Map(); // id -> { at, msg }
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const at = performance.now();
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      if (msg.id === undefined) continue;
      replies.set(msg.id, { at, msg });
      waiters.get(msg.id)?.();
    }
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ at: performance.now(), code, signal })));
  const spawnError = new Promise((_, reject) => child.on('error', reject));

  const withTimeout = (promise, what) => {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${kind}: no ${what} within ${TIMEOUT_MS} ms; stderr:\n${stderr}`)), TIMEOUT_MS);
    });
    return Promise.race([promise, timeout, spawnError]).finally(() => clearTimeout(timer));
  };
  const reply = (id) => withTimeout(new Promise((resolve) => {
    if (replies.has(id)) return resolve(replies.get(id));
    waiters.set(id, () => resolve(replies.get(id)));
  }), `reply to id ${id}`).then((r) => {
    if (r.msg.error) throw new Error(`${kind}: id ${id} answered with an error: ${JSON.stringify(r.msg.error)}`);
    return r;
  });
  const send = (line) => child.stdin.write(line + '\n');
  const close = async () => {
    child.stdin.end();
    const e = await withTimeout(exited, 'exit after stdin closed');
    if (e.code !== 0) throw new Error(`${kind}: exited with ${e.code ?? e.signal}; stderr:\n${stderr}`);
    return e;
  };
  const kill = () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); };
  const cleanup = () => { kill(); if (dir) fs.rmSync(dir, { recursive: true, force: true }); };
  return { child, t0, send, reply, close, cleanup };
}

function peakRssKb(pid) {
  if (!HAS_PROC) return null;
  const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : null;
}

// Session: spawn -> initialize reply -> tools/list reply -> peak RSS -> close.
// Gives metrics 1, 2, 4 and 5 from the same child.
async function session(kind, runtime) {
  const p = launch(kind, runtime);
  try {
    p.send(INITIALIZE);
    const init = await p.reply(1);
    p.send(INITIALIZED);
    p.send(TOOLS_LIST);
    const list = await p.reply(2);
    const rss = peakRssKb(p.child.pid);
    await p.close();
    return { init: init.at - p.t0, list: list.at - p.t0, rss, listBytes: Buffer.byteLength(JSON.stringify(list.msg.result)) };
  } finally { p.cleanup(); }
}

// Exit: spawn -> initialize reply -> end stdin -> 'exit'. Metric 3.
async function exitRun(kind, runtime) {
  const p = launch(kind, runtime);
  try {
    p.send(INITIALIZE);
    const init = await p.reply(1);
    const e = await p.close();
    return { exit: e.at - p.t0, shutdown: e.at - init.at };
  } finally { p.cleanup(); }
}

// ---- statistics and output --------------------------------------------------
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const quartiles = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.round(q * (s.length - 1)))];
  return `${at(0.25).toFixed(1)}–${at(0.75).toFixed(1)}`;
};


// ---- main -------------------------------------------------------------------
if (!fs.existsSync(SERVER)) {
  console.error(`startup bench: ${SERVER} is missing; run npm run build first`);
  process.exit(2);
}

const blank = () => ({ init: [], list: [], exit: [], shutdown: [], rss: [] });
let listBytes = null;
const { runtimes, skipped } = benchRuntimes(CHILD_ENV);
const summary = [['node', 'spawn → tools/list', 'per-pair', 'spawn → initialize', 'target', 'result']];

async function measure(runtime) {
  const samples = { opencomms: blank(), floor: blank() };
  process.stderr.write(`startup bench (${runtime.label}): ${WARMUP} warm-up + ${REPS} interleaved repetitions (opencomms, floor, ...)\n`);
  for (let rep = 0; rep < WARMUP + REPS; rep++) {
    const keep = rep >= WARMUP;
    for (const kind of rep % 2 === 0 ? ['opencomms', 'floor'] : ['floor', 'opencomms']) {
      const s = await session(kind, runtime);
      if (kind === 'opencomms') {
        if (listBytes !== null && listBytes !== s.listBytes) throw new Error(`tools/list result size changed between runs: ${listBytes} vs ${s.listBytes}`);
        listBytes = s.listBytes;
      }
      if (!keep) continue;
      samples[kind].init.push(s.init);
      samples[kind].list.push(s.list);
      if (s.rss !== null) samples[kind].rss.push(s.rss);
    }
    for (const kind of ['opencomms', 'floor']) {
      const e = await exitRun(kind, runtime);
      if (keep) { samples[kind].exit.push(e.exit); samples[kind].shutdown.push(e.shutdown); }
    }
  }
  return samples;
}

function report(runtime, samples) {
  const A = samples.opencomms;
  const F = samples.floor;
  const rows = [['metric', 'opencomms', 'floor', 'ratio', 'target', 'result']];
  const timed = (label, key, target) => {
    const a = median(A[key]);
    const f = median(F[key]);
    const ratio = a / f;
    rows.push([label, `${a.toFixed(1)} ms`, `${f.toFixed(1)} ms`, `${ratio.toFixed(2)}×`,
      target ? `≤ ${target.toFixed(2)}×` : '(report)', target ? (ratio <= target ? 'PASS' : 'MISS') : '']);
    return ratio;
  };
  const listRatio = timed('spawn → tools/list reply (headline)', 'list', TARGET);
  const initRatio = timed('spawn → initialize reply', 'init', null);
  timed('spawn → exit (stdin closed)', 'exit', null);
  timed('  of which: reply → exit', 'shutdown', null);
  if (HAS_PROC && A.rss.length && F.rss.length) {
    const a = median(A.rss) / 1024;
    const f = median(F.rss) / 1024;
    rows.push(['peak RSS (VmHWM)', `${a.toFixed(1)} MB`, `${f.toFixed(1)} MB`, `+${(a - f).toFixed(1)} MB`, '≤ +8.0 MB', a - f <= 8 ? 'PASS' : 'MISS']);
  } else {
    rows.push(['peak RSS (VmHWM)', 'skipped', 'skipped', '', '≤ +8.0 MB', 'no /proc']);
  }
  console.log('');
  console.log(`start-up, ${runtime.label}: ${SERVER === join(root, 'dist/opencomms.js') ? 'dist/opencomms.js' : SERVER} (${fs.statSync(SERVER).size} B) vs bare node of the same binary, ${os.platform()}/${os.arch()}, medians of ${REPS} interleaved reps`);
  printTable(rows);
  // Interleaving pairs each opencomms run with the floor run beside it, so
  // the median of per-pair ratios is a second view that drift on a busy machine
  // affects less than the ratio of two medians.
  const paired = (key) => median(A[key].map((a, i) => a / F[key][i])).toFixed(2);
  summary.push([runtime.label, `${listRatio.toFixed(2)}×`, `${paired('list')}×`, `${initRatio.toFixed(2)}×`, `≤ ${TARGET.toFixed(2)}×`, listRatio <= TARGET ? 'PASS' : 'MISS']);
  console.log(`median of per-pair ratios: tools/list ${paired('list')}×, initialize ${paired('init')}×, exit ${paired('exit')}×`);
  console.log(`spread (p25–p75 ms): tools/list ${quartiles(A.list)} vs ${quartiles(F.list)}; initialize ${quartiles(A.init)} vs ${quartiles(F.init)}; exit ${quartiles(A.exit)} vs ${quartiles(F.exit)}`);
  return { A, F };
}

// Node's compile cache keeps what V8 compiled while the file loaded, not the
// functions a start compiles later (every tool, the store, the handshake):
// the cache a server writes after serving is the size of the one a bare
// --version writes, so each start compiles those functions from source again.
const cacheBytes = (dir) => fs.readdirSync(dir, { recursive: true })
  .map((name) => fs.statSync(join(dir, String(name))))
  .reduce((sum, stat) => (stat.isFile() ? sum + stat.size : sum), 0);
const cacheNotes = [];
function noteCache(runtime) {
  if (!runtime.cacheDir) return;
  const fresh = fs.mkdtempSync(join(os.tmpdir(), 'oc-startup-cache-'));
  try {
    spawnSync(runtime.bin, [SERVER, '--version'], { env: { ...runtime.env, NODE_COMPILE_CACHE: fresh }, stdio: 'ignore' });
    cacheNotes.push(`${runtime.label}: the cache after serving holds ${cacheBytes(runtime.cacheDir)} B; after --version alone, ${cacheBytes(fresh)} B`);
  } finally {
    fs.rmSync(fresh, { recursive: true, force: true });
  }
}

let first;
try {
  for (const runtime of runtimes) {
    const result = report(runtime, await measure(runtime));
    noteCache(runtime);
    first ??= result;
  }
} finally {
  removeCacheDirs(runtimes);
}
// tools/list stays within the budget test/e2e/tools-roundtrip.test.ts holds it to
// (14,000 B since the board's tools, INTERFACE section 8).
const LIST_LIMIT = 14_000;
console.log('');
console.log(`tools/list result size ${listBytes} B (${(listBytes / 1024).toFixed(1)} KB), limit ${LIST_LIMIT} B: ${listBytes <= LIST_LIMIT ? 'PASS' : 'MISS'}`);
if (DROPPED_ENV.length) console.log(`children ran without ${DROPPED_ENV.join(', ')} (BENCH_KEEP_ENV=1 keeps it)`);
if (skipped) console.log(`not measured: ${skipped}`);
console.log(`start-up vs bare node of the same binary (medians of ${REPS} interleaved reps; Node 24 and 26 with the compile cache install turns on)`);
printTable(summary);
console.log('');
const { A, F } = first;

// ---- where the time goes ------------------------------------------------------
// Before Node runs a line of a CommonJS file it reads it and has V8 compile it
// (pre-parsing every function body, even the lazily required ones), so the
// file's size is a start-up cost no structure inside it can avoid. Measured
// here in the bench process (vm.compileFunction, as Node's loader wraps a
// module; each copy made unique so V8's in-process cache cannot answer), next
// to the budget the headline target leaves over the floor.
const compileCost = () => {
  const text = fs.readFileSync(SERVER, 'utf8').replace(/^#!.*\n/, '');
  const times = [];
  for (let i = 0; i < 15; i++) {
    const unique = `${text}\n// ${i} ${Math.random()}`;
    const t = performance.now();
    vm.compileFunction(unique, ['exports', 'require', 'module', '__filename', '__dirname']);
    times.push(performance.now() - t);
  }
  return median(times);
};
const compileMs = compileCost();
const sizeKb = fs.statSync(SERVER).size / 1024;
const budgetMs = (TARGET - 1) * median(F.list);
console.log(`where the time goes (${runtimes[0].label}): compiling ${sizeKb.toFixed(0)} KB costs ${compileMs.toFixed(1)} ms here (${(compileMs / sizeKb * 100).toFixed(1)} ms per 100 KB) of the ${(median(A.list) - median(F.list)).toFixed(1)} ms over the floor;`);
console.log(`  the ${TARGET.toFixed(2)}× headline target leaves ${budgetMs.toFixed(1)} ms over the floor for reading, compiling and running everything;`);
console.log('  Node\'s compile cache (Node ≥ 22.1, NODE_COMPILE_CACHE, which install writes) skips the compile after the first start,');
console.log('  but only of what compiles as the file loads: every function a start runs is compiled from source again.');
for (const note of cacheNotes) console.log(`  ${note}`);
console.log('');
