// Watch benchmark (a report, not a test). Two numbers for `opencomms watch --member`:
//  (a) wake-up latency: member A's opencomms_send request written to its MCP
//      server -> the line on the watching process's stdout, p50/p95, next to
//      the floor measured in the same run, interleaved: a bare fs.watch on a
//      directory, from writing a temp file to the callback for its rename;
//  (b) idle cost: CPU (utime+stime from /proc/<pid>/stat) the watch uses over
//      BENCH_WATCH_IDLE_MS (10 s) with nothing happening, and its RSS.
//   node bench/watch.mjs     (BENCH_WATCH_REPS=40, BENCH_TIMEOUT_MS=10000; needs npm run build)
// Targets: wake-up p50 <= 3x the floor's p50; idle CPU 0-1 clock tick.
import { spawn, execFileSync } from 'node:child_process';
import { floorSample as floorWake, printTable, quantile } from './lib/report.mjs';
import { boundedBy, handshake, childEnv, launchServer, stampedLines } from './lib/server-child.mjs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import * as fs from 'node:fs';
import * as os from 'node:os';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = join(root, 'dist/opencomms.js');
const REPS = Math.max(30, Number(process.env.BENCH_WATCH_REPS ?? 40) || 40);
const WARMUP = 3;
const IDLE_MS = Number(process.env.BENCH_WATCH_IDLE_MS ?? 10_000) || 10_000;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 10_000) || 10_000;
// Between samples, so one sample's trailing file events (B's pull) never
// fold into the next sample's debounce window.
const SETTLE_MS = 25;

const CHILD_ENV = childEnv();
const withTimeout = boundedBy('watch bench', TIMEOUT_MS);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const launch = (project, memberId) => launchServer(SERVER, project, memberId, withTimeout);

/** `opencomms watch --member ID`, every stdout line stamped on arrival. */
function startWatch(project, memberId) {
  const child = spawn(process.execPath, [SERVER, 'watch', '--project', project, '--member', memberId], {
    env: CHILD_ENV, stdio: ['pipe', 'pipe', 'pipe'],
  });
  const { lines, waitFor } = stampedLines(child, (text) => ({ text }), `watch --member ${memberId}`, withTimeout);
  const close = () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on('exit', resolve);
    child.stdin.end();
  });
  return { child, lines, waitFor, close };
}

/** One wake-up sample: A's send request written -> the watch's next line read. */
async function wakeSample(a, b, watch, index) {
  const before = watch.lines.length;
  const { sentAt } = await a.tool('opencomms_send', { channel: 'bench', content: `bench message ${index}` });
  const line = await watch.waitFor('a wake-up line', () => watch.lines[before]);
  await b.tool('opencomms_pull', {});
  return line.at - sentAt;
}

const CLK_TCK = (() => {
  try { return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { return 100; }
})();

/** utime + stime of a process, in clock ticks (Linux /proc). */
function cpuTicks(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // fields 14 and 15 of the full line
}

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

// ---- main -------------------------------------------------------------------
if (!fs.existsSync(SERVER)) {
  console.error(`watch bench: ${SERVER} is missing; run npm run build first`);
  process.exit(2);
}

const project = fs.mkdtempSync(join(os.tmpdir(), 'opencomms-bench-watch-'));
const floorDir = fs.mkdtempSync(join(os.tmpdir(), 'opencomms-bench-floor-'));
const a = launch(project, 'sess_bench_a');
const b = launch(project, 'sess_bench_b');
let watch;
try {
  await handshake(a);
  await handshake(b);
  await a.tool('opencomms_create', { channel: 'bench', role: 'writer', role_prompt: 'You write.', rate_limit: 1_000, max_agent_streak: 0 });
  await b.tool('opencomms_join', { channel: 'bench', role: 'reviewer', role_prompt: 'You review.' });
  watch = startWatch(project, 'sess_bench_b');
  // The watch prints nothing until there is mail; give it time to be up.
  await sleep(500);

  const samples = { wake: [], floor: [] };
  process.stderr.write(`watch bench: ${WARMUP} warm-up + ${REPS} interleaved samples (wake-up, floor, ...), then ${IDLE_MS / 1000} s idle\n`);
  for (let rep = 0; rep < WARMUP + REPS; rep++) {
    const w = await wakeSample(a, b, watch, rep);
    await sleep(SETTLE_MS);
    const f = await floorWake(floorDir, rep, withTimeout);
    await sleep(SETTLE_MS);
    if (rep < WARMUP) continue;
    samples.wake.push(w);
    samples.floor.push(f);
  }

  // Idle: nothing sends, pulls or touches the project. Two processes over the
  // same window: the one that just handled the samples (V8 may still be
  // collecting and compiling after the load) and a fresh one on the same,
  // now quiet, project: the steady state of a monitor waiting for mail.
  const fresh = startWatch(project, 'sess_bench_b');
  await sleep(1_000);
  const idle = [watch, fresh].map((w) => ({ w, lines: w.lines.length, ticks: cpuTicks(w.child.pid) }));
  const t0 = performance.now();
  await sleep(IDLE_MS);
  const idleWall = performance.now() - t0;
  for (const entry of idle) {
    entry.ticks = cpuTicks(entry.w.child.pid) - entry.ticks;
    entry.rss = rssKiB(entry.w.child.pid);
    if (entry.w.lines.length !== entry.lines) console.log('note: a watch printed during the idle window');
  }
  await fresh.close();
  const idleTicks = idle[1].ticks;

  const floorP50 = quantile(samples.floor, 0.5);
  const ms = (v) => v.toFixed(2);
  const row = (what, values, note = '') => [what, ms(quantile(values, 0.5)), ms(quantile(values, 0.95)), `${(quantile(values, 0.5) / floorP50).toFixed(1)}x`, note];
  printTable([
    ['measure (ms)', 'p50', 'p95', 'p50 / floor', 'note'],
    row('wake-up: A send written → watch --member line read', samples.wake, 'send, fsync, rename, watch debounce, snapshot, line'),
    row('floor: bare fs.watch, write-temp + rename → callback', samples.floor, 'same process, no fsync'),
  ]);
  console.log('');
  const cpu = (ticks) => `${ticks} tick(s) = ${(ticks * 1000 / CLK_TCK).toFixed(0)} ms`;
  printTable([
    [`idle watch --member, ${(idleWall / 1000).toFixed(1)} s (CLK_TCK ${CLK_TCK})`, 'CPU (utime+stime)', 'RSS'],
    ['fresh process, quiet project', cpu(idle[1].ticks), `${(idle[1].rss / 1024).toFixed(1)} MiB`],
    [`the process that took the ${WARMUP + REPS} samples, 1 s after`, cpu(idle[0].ticks), `${(idle[0].rss / 1024).toFixed(1)} MiB`],
  ]);
  const p50 = quantile(samples.wake, 0.5);
  console.log(`\nsamples: ${REPS}; targets: wake-up p50 <= 3x floor (${p50 <= 3 * floorP50 ? 'met' : 'MISSED'}: ${(p50 / floorP50).toFixed(1)}x), idle CPU of a fresh watch <= 1 tick (${idleTicks <= 1 ? 'met' : 'MISSED'}: ${idleTicks})`);
} finally {
  await Promise.all([a.close(), b.close(), watch?.close()]);
  fs.rmSync(project, { recursive: true, force: true });
  fs.rmSync(floorDir, { recursive: true, force: true });
}
