// Store benchmark (not a test): the cost of one engine send through the store
// on projects of different shapes, against a raw lock+read+parse+write+rename
// floor, plus 4-process contended throughput against the same floor and
// against a bare durable bound (the save steps alone, on a copy of the state
// the store kept live), and bursts of sender processes all sending at once:
// throughput with 48 writers against 4 in the same run, and the send times
// of a 64 x 10 burst. Run after `npx tsc -p tsconfig.test.json`:
//   node bench/store.mjs [repetitions] [--bursts (the bursts alone)]
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { openStore } = require(join(root, 'build/src/store/index.js'));
const { runBurst, quantileOf } = require(join(root, 'build/test/store/burst.js'));
const engine = require(join(root, 'build/src/engine/index.js'));
const { thisRecordedProcess } = require(join(root, 'build/src/process/liveness.js'));

// Engine time runs 1000x faster than the wall clock: the per-minute rate limit
// and dedup windows then never refuse a benchmark send, and every process
// still agrees on the clock.
const fastClock = () => Date.now() * 1000;
const KB = 'x'.repeat(1024);
let serial = 0;
const content = (size = KB) => `${process.pid}:${serial++}:${size}`.slice(0, size.length);
const ok = (r) => { if (!r.ok) throw new Error(`setup refused: ${r.message}`); return r; };

async function makeProject(members = ['alice', 'bob', 'carol']) {
  const dir = fs.mkdtempSync(join(os.tmpdir(), 'oc-bench-'));
  const store = openStore({ projectDir: dir, now: fastClock });
  const base = { channel: 'bench', role_prompt: 'p', delivery_mode: 'pull', project_id: 'local-project', worktree: '/w' };
  await store.editLocally((s, ctx) => ok(engine.createChannel(s, { ...base, role: 'r0', session_id: members[0], rate_limit: 1000, max_members: 32, max_agent_streak: 0 }, ctx)));
  for (let i = 1; i < members.length; i++) await store.editLocally((s, ctx) => ok(engine.joinChannel(s, { ...base, role: `r${i}`, session_id: members[i] }, ctx)));
  return { dir, store };
}

// A send as the send tool makes it: the engine change `send`, which waits as data while the lock is taken.
const send = (store, from, to, size = KB) => store.mutate('send', { member: from, channel: 'bench', to, content: content(size), broadcast: false }, { member: from });
// A pull as a server makes it: the mail goes in flight to this process, and
// the reply counts as written at once, so it is committed as delivered.
function takeOwnMail(s, who, ctx) {
  const owner = { pid: process.pid, host: 'bench', lease_until: ctx.now() + 60_000 };
  const pulled = engine.pullMessages(s, who, { channel: 'bench', limit: 100, owner }, ctx);
  const ids = pulled.data?.message_ids ?? [];
  if (pulled.ok && ids.length > 0) engine.commitDelivery(s, who, ids, 'pull', ctx.now(), owner);
  return pulled;
}
const pull = (store, who) => store.editLocally((s, ctx) => takeOwnMail(s, who, ctx));

async function retained(store, count, size) {
  for (let i = 0; i < count; i++) {
    ok(await send(store, 'alice', 'bob', size));
    if (i % 50 === 49 || i === count - 1) while (Object.keys(store.snapshot().messages).length) ok(await pull(store, 'bob'));
  }
}

// One locked rewrite of <dir>/<name>.json, bare: lock, read, parse, append, stringify, write, fsync, rename. The floor is what any correct
// lock + read-modify-write must pay. The bound adds what a durable save also
// needs (a stamp in the lock, the directory fsync after the lock is dropped)
// and runs on a copy of the state the store kept live while contended.
function lockedRewrite(dir, name, { isDurable }) {
  const lock = join(dir, `.${name}.lock`);
  const fd = fs.openSync(lock, 'wx');
  try {
    if (isDurable) fs.writeSync(fd, JSON.stringify({ pid: process.pid, host: 'bench', t: Date.now() }));
    const state = JSON.parse(fs.readFileSync(join(dir, `${name}.json`), 'utf8'));
    // Append a record as a send does (1 KB of content), keeping the newest 32 so the file stays its size.
    state.bench_log = [...(state.bench_log ?? []).slice(-31), { at: Date.now(), from: process.pid, content: KB }];
    const tmp = join(dir, `.${name}.${process.pid}.tmp`);
    const out = fs.openSync(tmp, 'w');
    fs.writeSync(out, JSON.stringify(state));
    fs.fsyncSync(out);
    fs.closeSync(out);
    fs.renameSync(tmp, join(dir, `${name}.json`));
  } finally {
    fs.closeSync(fd);
    fs.unlinkSync(lock);
  }
  if (!isDurable) return;
  const dirFd = fs.openSync(dir, 'r');
  fs.fsyncSync(dirFd);
  fs.closeSync(dirFd);
}

const floorOp = (dir) => lockedRewrite(dir, 'floor', { isDurable: false });
const boundOp = (dir) => lockedRewrite(dir, 'bound', { isDurable: true });

// The ceiling of any design that keeps the state in memory (a daemon every
// writer hands its change to): one process running the store's own change
// pipeline (store/change.ts: upkeep, the change, finished mail out, the
// codec) on a state it never reloads, then one durable save (write, fsync,
// rename, folder fsync); no lock, no answer files, no history appends, and
// IPC that costs nothing. With 4 writers a rewrite holds at most 4 changes:
// `batch` 4 is the most batching can give them. Every 20th send takes in all
// members' mail, as the contended writers do, so the state stays its size.
async function inMemoryCeiling(dir, members, batch, durationMs) {
  const store = openStore({ projectDir: dir, now: fastClock });
  const state = await store.readLatest((s) => s);
  await store.close();
  const { changeNamed } = require(join(root, 'build/src/engine/changes/table.js'));
  const { createEngineCtx } = require(join(root, 'build/src/store/ctx.js'));
  const { applyChange } = require(join(root, 'build/src/store/change.js'));
  const { DEFAULT_CODEC } = require(join(root, 'build/src/store/default-codec.js'));
  const sendChange = changeNamed('send');
  const ctx = createEngineCtx(fastClock, { find: () => undefined, list: () => [] });
  const tx = { putArchive() {}, deleteArchive() {} };
  const statePath = join(dir, '.opencomms', 'state.json');
  const tmp = `${statePath}.ceiling.tmp`;
  const loaded = { state, baseline: DEFAULT_CODEC.serializeState(state) };
  let n = 0;
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    const { write } = applyChange(loaded, DEFAULT_CODEC, ctx.now(), (s) => {
      for (let i = 0; i < batch; i++, n++) {
        const me = members[n % members.length];
        ok(sendChange(s, { member: me, channel: 'bench', to: members[(n + 1) % members.length], content: content(), broadcast: false }, ctx, tx));
        if (n % 20 === 19) for (const who of members) takeOwnMail(s, who, ctx);
      }
      return { ok: true, message: 'batch' };
    });
    loaded.baseline = write.text;
    const out = fs.openSync(tmp, 'w');
    fs.writeSync(out, write.text);
    fs.fsyncSync(out);
    fs.closeSync(out);
    fs.renameSync(tmp, statePath);
    const dirFd = fs.openSync(dirname(statePath), 'r');
    fs.fsyncSync(dirFd);
    fs.closeSync(dirFd);
  }
  return { rate: n / (durationMs / 1000), bytes: fs.statSync(statePath).size };
}

async function floorOpWaiting(dir, op = floorOp) {
  for (;;) {
    try { return op(dir); } catch (err) { if (err.code !== 'EEXIST') throw err; }
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 5));
  }
}

const ceilingLine = (c, floorRate) => `  ceiling with the state in memory (one process, 4 sends per durable save, no lock, load or answers; ${c.bytes} B): ${c.rate.toFixed(0)} msg/s = ${(c.rate / floorRate).toFixed(2)}× the floor`;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

async function timeOnce(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

// ---- contended children ----------------------------------------------------
if (process.argv[2] === '--child') {
  const [, , , kind, dir, me, peer, barrier, durationText] = process.argv;
  const store = kind === 'store' ? openStore({ projectDir: dir, now: fastClock }) : null;
  // Warm as a server is: recorded on its member's presence record, and one send of its own outside the timed run.
  if (store) {
    ok(await store.editLocally((s, ctx) => {
      engine.recordPresence(s, me, { ...thisRecordedProcess(), kind: 'server' }, ctx.now(), engine.LOCAL_PRESENCE_RENEW_MS);
      return { ok: true, message: 'present' };
    }));
    ok(await send(store, me, peer));
  }
  process.stdout.write('ready\n');
  while (!fs.existsSync(barrier)) await new Promise((r) => setTimeout(r, 2));
  const end = Date.now() + Number(durationText);
  let n = 0;
  while (Date.now() < end) {
    if (store) {
      // one mutation per message; every 20th also takes in our own mail, so
      // the state stays small and history appends are amortised as in real use
      const isPulling = n % 20 === 19;
      ok(await send(store, me, peer));
      if (isPulling) ok(await pull(store, me));
    } else await floorOpWaiting(dir, kind === 'bound' ? boundOp : floorOp);
    n++;
  }
  process.stdout.write(`done ${n}\n`);
  process.exit(0);
}

async function contended(kind, dir, durationMs) {
  const barrier = join(dir, `go-${kind}`);
  const names = ['p0', 'p1', 'p2', 'p3'];
  const kids = names.map((me, i) => spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', kind, dir, me, names[(i + 1) % 4], barrier, String(durationMs)]));
  const outputs = kids.map((k) => new Promise((resolve, reject) => {
    let text = '';
    k.stdout.on('data', (c) => { text += c; });
    let err = '';
    k.stderr.on('data', (c) => { err += c; });
    k.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`${kind} child exited ${code}: ${err}`))));
  }));
  await Promise.all(kids.map((k) => new Promise((resolve) => k.stdout.once('data', resolve))));
  fs.writeFileSync(barrier, '');
  const texts = await Promise.all(outputs);
  const total = texts.reduce((sum, t) => sum + Number(/done (\d+)/.exec(t)[1]), 0);
  return total / (durationMs / 1000);
}

// ---- main ------------------------------------------------------------------
// Bursts of sender processes on a fresh project each, all sending at once
// (test/store/burst.ts): throughput with 4 and with 48 writers in this same
// run, and the send times of a 64 x 10 burst.
async function burst(writers, sendsEach) {
  const dir = fs.mkdtempSync(join(os.tmpdir(), 'oc-bench-burst-'));
  try {
    const o = await runBurst({ dir, writers, sendsEach });
    const refused = Object.values(o.refused).reduce((a, b) => a + b, 0);
    return { ...o, refused, rate: o.acked / (o.wallMs / 1000), p50: quantileOf(o.sendMs, 0.5), p99: quantileOf(o.sendMs, 0.99) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
if (process.argv.includes('--contended')) {
  const contDir = (await makeProject(['p0', 'p1', 'p2', 'p3'])).dir;
  const floorDir = fs.mkdtempSync(join(os.tmpdir(), 'oc-bench-floor-'));
  fs.writeFileSync(join(floorDir, 'floor.json'), fs.readFileSync(join(contDir, '.opencomms', 'state.json')));
  const storeRate = await contended('store', contDir, 3000);
  const floorRate = await contended('floor', floorDir, 3000);
  const ceiling = await inMemoryCeiling(contDir, ['p0', 'p1', 'p2', 'p3'], 4, 3000);
  console.log(`contended, 4 processes: store ${storeRate.toFixed(0)} msg/s, floor ${floorRate.toFixed(0)} ops/s, ratio ${(storeRate / floorRate).toFixed(2)}`);
  console.log(ceilingLine(ceiling, floorRate));
  process.exit(0);
}
process.stderr.write('bursts: 4 x 60, 48 x 5, 64 x 10 sender processes…\n');
const few = await burst(4, 60);
const many = await burst(48, 5);
const big = await burst(64, 10);
const burstLine = (name, b) => `  ${name.padEnd(22)} ${b.rate.toFixed(0).padStart(4)} sends/s, send p50 ${b.p50.toFixed(0)} ms, p99 ${b.p99.toFixed(0)} ms, ${b.refused} refused, ${b.lost} lost, ${b.duplicated} duplicated`;
console.log('bursts (sender processes all sending at once, each on a fresh project):');
console.log(burstLine('4 writers x 60 sends', few));
console.log(burstLine('48 writers x 5 sends', many));
console.log(burstLine('64 writers x 10 sends', big));
const ratio = many.rate / few.rate;
console.log('burst targets:');
console.log(`  48 writers ≥ 80% of 4 writers' rate:    ${(100 * ratio).toFixed(0)}%  ${ratio >= 0.8 ? 'PASS' : 'FAIL'}`);
const isBurstClean = [few, many, big].every((b) => b.refused === 0 && b.lost === 0 && b.duplicated === 0);
console.log(`  bursts: 0 refused, 0 lost, 0 duplicated: ${isBurstClean ? 'PASS' : 'FAIL'}`);
if (process.argv.includes('--bursts')) process.exit(0);
console.log('');
const REPS = Number(process.argv.find((a, i) => i >= 2 && /^\d+$/.test(a)) ?? 41);
const scenarios = [
  { name: 'empty', setup: async (p) => p },
  { name: '500 retained 1 KB', setup: async (p) => { await retained(p.store, 500, KB); return p; } },
  { name: '2000 retained 1 KB', setup: async (p) => { await retained(p.store, 2000, KB); return p; } },
  { name: '200 retained 50 KB', setup: async (p) => { await retained(p.store, 200, 'y'.repeat(50 * 1024)); return p; } },
  { name: '200 undelivered 1 KB', setup: async (p) => { for (let i = 0; i < 200; i++) ok(await send(p.store, 'alice', 'carol')); return p; } },
];
process.stderr.write('setting up projects…\n');
for (const s of scenarios) s.project = await s.setup(await makeProject());

const floorDir = fs.mkdtempSync(join(os.tmpdir(), 'oc-bench-floor-'));
const emptySize = fs.statSync(join(scenarios[0].project.dir, '.opencomms', 'state.json')).size;
fs.writeFileSync(join(floorDir, 'floor.json'), JSON.stringify({ pad: 'x'.repeat(Math.max(0, emptySize - 12)) }));

const samples = new Map([['floor', []], ...scenarios.map((s) => [s.name, []])]);
process.stderr.write(`measuring ${REPS} interleaved repetitions…\n`);
for (let rep = 0; rep < REPS + 3; rep++) {
  const warm = rep < 3;
  const f = await timeOnce(() => floorOp(floorDir));
  if (!warm) samples.get('floor').push(f);
  for (const s of scenarios) {
    const ms = await timeOnce(async () => ok(await send(s.project.store, 'alice', 'bob')));
    if (!warm) samples.get(s.name).push(ms);
    ok(await pull(s.project.store, 'bob')); // untimed: keep each project's shape steady
  }
}

const floor = median(samples.get('floor'));
const empty = median(samples.get('empty'));
const rows = [['case', 'median ms', '× empty', '× floor', 'state.json bytes']];
rows.push(['raw floor', floor.toFixed(3), '', '1.00', String(fs.statSync(join(floorDir, 'floor.json')).size)]);
for (const s of scenarios) {
  const m = median(samples.get(s.name));
  rows.push([`send, ${s.name}`, m.toFixed(3), (m / empty).toFixed(2), (m / floor).toFixed(2), String(fs.statSync(join(s.project.dir, '.opencomms', 'state.json')).size)]);
}
process.stderr.write('contended runs (4 processes, 3 s each)…\n');
const contDir = (await makeProject(['p0', 'p1', 'p2', 'p3'])).dir;
// What the store keeps live while contended, sampled for the bound's copy.
const liveStates = [];
const sampler = setInterval(() => {
  try { liveStates.push(fs.readFileSync(join(contDir, '.opencomms', 'state.json'), 'utf8')); } catch { /* mid-rename */ }
}, 50);
const storeRate = await contended('store', contDir, 3000);
clearInterval(sampler);
const floorRate = await contended('floor', floorDir, 3000);
liveStates.sort((x, y) => x.length - y.length);
const liveState = liveStates[Math.floor(liveStates.length / 2)] ?? '{}';
const boundDir = fs.mkdtempSync(join(os.tmpdir(), 'oc-bench-bound-'));
fs.writeFileSync(join(boundDir, 'bound.json'), liveState);
const boundRate = await contended('bound', boundDir, 3000);
const ceiling = await inMemoryCeiling(contDir, ['p0', 'p1', 'p2', 'p3'], 4, 3000);
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
for (const r of rows) console.log(r.map((cell, c) => cell.padEnd(widths[c])).join('  '));
console.log('');
console.log(`contended, 4 processes: store ${storeRate.toFixed(0)} msg/s, floor ${floorRate.toFixed(0)} ops/s, ratio ${(storeRate / floorRate).toFixed(2)}`);
console.log(`  bare durable bound on the store's median live state (${liveState.length} B): ${boundRate.toFixed(0)} ops/s = ${(100 * boundRate / floorRate).toFixed(0)}% of the floor; the store reaches ${(100 * storeRate / boundRate).toFixed(0)}% of the bound`);
console.log(ceilingLine(ceiling, floorRate));
const m2000 = median(samples.get('2000 retained 1 KB'));
console.log('');
console.log('targets:');
console.log(`  send with 2000 retained ≤ 1.5× empty:   ${(m2000 / empty).toFixed(2)}×  ${m2000 / empty <= 1.5 ? 'PASS' : 'FAIL'}`);
console.log(`  send empty ≤ 2× floor:                  ${(empty / floor).toFixed(2)}×  ${empty / floor <= 2 ? 'PASS' : 'FAIL'}`);
console.log(`  4 contending writers ≥ 2× the floor:    ${(storeRate / floorRate).toFixed(2)}×  ${storeRate / floorRate >= 2 ? 'PASS' : 'FAIL'}`);

for (const s of scenarios) fs.rmSync(s.project.dir, { recursive: true, force: true });
fs.rmSync(floorDir, { recursive: true, force: true });
fs.rmSync(contDir, { recursive: true, force: true });
fs.rmSync(boundDir, { recursive: true, force: true });
