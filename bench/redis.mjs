// Redis store benchmark (a report, not a test), on a redis-server this script
// starts itself on a free loopback port (no persistence, a password):
//  1. send→pull latency: one engine send through the store followed by the
//     recipient's pull (drain, then the commit the server makes after its
//     reply), p50 over N repetitions, over Redis next to the same over the
//     file store, interleaved; a bare PING round trip for scale.
//  2. contended throughput: 4 writer processes, each M engine sends on one
//     Redis project, in two shapes (steady: each change also delivers the
//     send to its peer, so the state keeps one small size; own mail: each
//     writer takes in its mail every 20th send, so the state holds what is
//     unread), each against a floor measured in the same run: 4 processes
//     running a bare WATCH / GET / MULTI / SET / EXEC loop on one key of the
//     store's median live state size, through the same RESP client, so only
//     the logic differs. Target: >= 50% of the floor.
//  3. a burst: 4 writers x 60 steady sends against 48 writers x 5, both on a
//     fresh project of the same shape (48 members in channels of 16; in the
//     4-writer run only 4 of them write). Target: 48 writers >= 50% of 4
//     writers' sends/s.
// Every writer process (lib/redis-writer.mjs) starts warm, as a long-running
// MCP server is (store opened, state loaded, one uncounted send), and all are
// released at once by a line on stdin; the clock runs from the release to the
// last acknowledged send. The final state and history must hold every
// counted send once (a loss exits 1: a broken promise, not a missed target).
// Run after `npx tsc -p tsconfig.test.json` (npm run bench does it):
//   node bench/redis.mjs [repetitions=200] [mutations-per-writer=250]
// BENCH_REDIS_PARTS=latency,contended,burst picks sections (all by default);
// BENCH_BURST_WRITERS sets the many (48).
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { printTable, quantile } from './lib/report.mjs';
import {
  bareClient, contentOf, createRedisStore, DEFAULT_CODEC, engine, fastClock, FLOOR_KEY, keyPrefixOf, ok, openStore, owner, redisConfig,
} from './lib/redis-common.mjs';

const WRITER = join(dirname(fileURLToPath(import.meta.url)), 'lib', 'redis-writer.mjs');
const WRITERS = 4;
/** The burst: BURST_LARGE writers of BURST_LARGE_SENDS sends each against BURST_SMALL writers, same project shape. */
const BURST_SMALL = 4;
const BURST_SMALL_SENDS = 60;
const BURST_LARGE = Number(process.env.BENCH_BURST_WRITERS ?? 48) || 48;
const BURST_LARGE_SENDS = 5;
const READY_TIMEOUT_MS = 15_000;
const PARTS = new Set((process.env.BENCH_REDIS_PARTS || 'latency,contended,burst').split(','));

/** One send from `from` to `to` through `store`. */
let serial = 0;
const send = (store, from, to) =>
  store.mutate('send', { member: from, channel: 'bench', to, content: contentOf(`${process.pid}-${serial++}`), broadcast: false }, { member: from });

/** The recipient's pull as the MCP server makes it: drain to this process, then commit once the reply is out. */
async function pull(store, who) {
  let handed;
  let ids = [];
  ok(await store.editLocally((s, ctx) => {
    handed = owner(ctx.now());
    const r = engine.pullMessages(s, who, { channel: 'bench', limit: 100, owner: handed }, ctx);
    ids = r.ok ? r.data.message_ids : [];
    return r;
  }));
  if (ids.length > 0) {
    ok(await store.editLocally((s, ctx) => {
      engine.commitDelivery(s, who, ids, 'pull', ctx.now(), handed);
      return { ok: true, message: 'committed' };
    }));
  }
  return ids.length;
}

async function makeChannel(store, members, channel = 'bench') {
  const base = { channel, role_prompt: 'p', delivery_mode: 'pull', project_id: 'bench', worktree: '/w' };
  ok(await store.editLocally((s, ctx) => engine.createChannel(s, { ...base, role: 'r0', session_id: members[0], rate_limit: 1000, max_members: 32, max_agent_streak: 0 }, ctx)));
  for (let i = 1; i < members.length; i++) {
    ok(await store.editLocally((s, ctx) => engine.joinChannel(s, { ...base, role: `r${i}`, session_id: members[i] }, ctx)));
  }
}

// ---- the server ------------------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(password) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = spawn('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--requirepass', password, '--daemonize', 'no', '--logfile', '',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const started = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`redis-server not ready in ${READY_TIMEOUT_MS} ms:\n${log}`)); }, READY_TIMEOUT_MS);
      const onData = (chunk) => {
        log += chunk;
        if (/Ready to accept connections/.test(log)) { clearTimeout(timer); resolve(true); }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', () => {
        clearTimeout(timer);
        if (/Address already in use/.test(log)) resolve(false);
        else reject(new Error(`redis-server exited before it was ready:\n${log}`));
      });
    });
    if (started) return { port, child };
  }
  throw new Error('no free port for redis-server after 5 tries');
}

// ---- main ------------------------------------------------------------------

if (spawnSync('redis-server', ['--version']).status !== 0) {
  console.log('skipped: redis-server is not installed (apt-get install redis-server), so there is no Redis to measure');
  process.exit(0);
}

const REPS = Number(process.argv[2] ?? 200) || 200;
const MUTATIONS = Number(process.argv[3] ?? 250) || 250;
const WARMUP = 5;
const password = randomBytes(18).toString('hex');
const redis = await startRedis(password);
process.on('exit', () => redis.child.kill('SIGKILL'));
const { port } = redis;
const raw = bareClient(port, password);
const dirs = [];
const tempDir = (name) => { const dir = fs.mkdtempSync(join(os.tmpdir(), name)); dirs.push(dir); return dir; };

// 1. send→pull, interleaved rep by rep with the file store.
async function latency() {
  process.stderr.write(`redis-server on 127.0.0.1:${port}; measuring ${REPS} send→pull repetitions per store…\n`);
  const latencyProject = 'bench-latency';
  const redisSender = createRedisStore({ config: redisConfig(port, password, latencyProject), codec: DEFAULT_CODEC, projectDir: tempDir('oc-bench-redis-'), now: fastClock });
  const redisRecipient = createRedisStore({ config: redisConfig(port, password, latencyProject), codec: DEFAULT_CODEC, projectDir: tempDir('oc-bench-redis-'), now: fastClock });
  const fileDir = tempDir('oc-bench-file-');
  const fileSender = openStore({ projectDir: fileDir, now: fastClock });
  const fileRecipient = openStore({ projectDir: fileDir, now: fastClock });
  await makeChannel(redisSender, ['alice', 'bob']);
  await makeChannel(fileSender, ['alice', 'bob']);
  const samples = { file: [], redis: [], ping: [] };
  async function sendThenPull(sender, recipient) {
    const t0 = performance.now();
    ok(await send(sender, 'alice', 'bob'));
    const got = await pull(recipient, 'bob');
    const ms = performance.now() - t0;
    if (got !== 1) throw new Error(`the pull found ${got} message(s), not 1`);
    return ms;
  }
  for (let rep = 0; rep < REPS + WARMUP; rep++) {
    const isWarm = rep < WARMUP;
    const f = await sendThenPull(fileSender, fileRecipient);
    const r = await sendThenPull(redisSender, redisRecipient);
    const t0 = performance.now();
    await raw.command(['PING']);
    const p = performance.now() - t0;
    if (isWarm) continue;
    samples.file.push(f);
    samples.redis.push(r);
    samples.ping.push(p);
  }
  await redisSender.close();
  await redisRecipient.close();
  const fmt = (x) => x.toFixed(3);
  const fileP50 = quantile(samples.file, 0.5);
  const redisP50 = quantile(samples.redis, 0.5);
  printTable([
    ['case', 'p50 ms', 'p90 ms', '× file'],
    ['send→pull, file store', fmt(fileP50), fmt(quantile(samples.file, 0.9)), '1.00'],
    ['send→pull, Redis (loopback)', fmt(redisP50), fmt(quantile(samples.redis, 0.9)), (redisP50 / fileP50).toFixed(2)],
    ['bare PING round trip', fmt(quantile(samples.ping, 0.5)), fmt(quantile(samples.ping, 0.9)), ''],
  ]);
  console.log('');
}

// 2. Contended: `writers` writer processes of the store (or of the bare floor), `mutations` each.
/** The channel a writer sends on: at most CHANNEL_WRITERS per channel (a channel holds at most 32 members). */
const CHANNEL_WRITERS = 16;
const channelOf = (w) => (w < CHANNEL_WRITERS ? 'bench' : `bench-${Math.floor(w / CHANNEL_WRITERS)}`);
/** The peer member w sends to: the next one in its own channel of a project of `members`. */
function peerOf(w, members) {
  const first = w - (w % CHANNEL_WRITERS);
  const size = Math.min(CHANNEL_WRITERS, members - first);
  return `p${first + ((w - first + 1) % size)}`;
}

const wallClock = () => performance.timeOrigin + performance.now();

/** `writers` warm writer processes on a project of `members`, released together; the clock stops at the last acknowledged send. */
async function contended(kind, projectId, pullEvery, writers, mutations, members = writers) {
  const env = { ...process.env, BENCH_REDIS_PORT: String(port), BENCH_REDIS_PASSWORD: password };
  const kids = Array.from({ length: writers }, (_, i) => spawn(process.execPath, [
    WRITER, kind, projectId, `p${i}`, peerOf(i, members), String(mutations), String(pullEvery), channelOf(i),
  ], { env }));
  const outputs = kids.map((kid) => new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    kid.stdout.on('data', (c) => { out += c; });
    kid.stderr.on('data', (c) => { err += c; });
    kid.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${kind} writer exited ${code}: ${err}`))));
  }));
  await Promise.all(kids.map((kid) => new Promise((resolve) => {
    let out = '';
    kid.stdout.on('data', function onReady(c) {
      out += c;
      if (out.includes('ready\n')) { kid.stdout.off('data', onReady); resolve(); }
    });
  })));
  const cpu0 = redisCpuMs();
  const releasedAt = wallClock();
  for (const kid of kids) kid.stdin.write('go\n');
  const texts = await Promise.all(outputs);
  const cpu1 = redisCpuMs();
  const done = texts.map((t) => /done \d+ ([\d.]+) (\d+) (\d+) ([\d.]+) ?([\d.,]*)/.exec(t));
  const wallMs = Math.max(...done.map((m) => Number(m[4]))) - releasedAt;
  const conflicts = done.reduce((sum, m) => sum + Number(m[2]), 0);
  // The fastest and the slowest writer: optimistic commits are not fair.
  const spans = done.map((m) => Number(m[1]));
  const sendMs = done.flatMap((m) => (m[5] ? m[5].split(',').map(Number) : []));
  return {
    writers, mutations,
    rate: (writers * mutations) / (wallMs / 1000), wallMs, conflicts, redisCpu: cpu0 === undefined ? undefined : cpu1 - cpu0,
    fastestMs: Math.min(...spans), slowestMs: Math.max(...spans),
    mostRuns: Math.max(...done.map((m) => Number(m[3]))),
    sendP50: quantile(sendMs, 0.5), sendP99: quantile(sendMs, 0.99), sendMax: Math.max(...sendMs),
  };
}

// The redis-server's own CPU time (Linux /proc), to tell a busy server from busy writers.
function redisCpuMs() {
  try {
    const fields = fs.readFileSync(`/proc/${redis.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, at the usual 100 ticks/s
  } catch {
    return undefined;
  }
}

/** A project with its channels made for `members` members; closed by the caller. */
async function setUpProject(projectId, members) {
  const setupStore = createRedisStore({ config: redisConfig(port, password, projectId), codec: DEFAULT_CODEC, projectDir: tempDir('oc-bench-redis-'), now: fastClock });
  const names = Array.from({ length: members }, (_, i) => `p${i}`);
  for (let first = 0; first < members; first += CHANNEL_WRITERS) {
    await makeChannel(setupStore, names.slice(first, first + CHANNEL_WRITERS), channelOf(first));
  }
  return setupStore;
}

/** 0 lost: every writer's counted sends, once each, in the live state or its channel's history stream. */
async function countSends(setupStore, projectId, writers, mutations) {
  const finalState = await setupStore.readLatest((s) => s);
  const contents = Object.values(finalState.messages).map((m) => m.content);
  for (const channel of Object.values(finalState.channels)) {
    const stream = await raw.command(['XRANGE', `${keyPrefixOf(projectId)}history:${channel.id}`, '-', '+']);
    for (const [, fields] of stream) contents.push(JSON.parse(String(fields[1])).content);
  }
  const seen = new Map();
  for (const content of contents) {
    const tag = content.slice(0, content.indexOf(':'));
    seen.set(tag, (seen.get(tag) ?? 0) + 1);
  }
  let lost = 0;
  let duplicated = 0;
  for (let w = 0; w < writers; w++) {
    for (let n = 0; n < mutations; n++) {
      const count = seen.get(`p${w}-${n}`) ?? 0;
      if (count === 0) lost++;
      if (count > 1) duplicated += count - 1;
    }
  }
  return { lost, duplicated };
}

/** One contended shape: the store's writers, then the floor on a key of the size the store's state had; and the loss check. */
async function contendedShape(projectId, pullEvery) {
  const stateKey = `${keyPrefixOf(projectId)}state`;
  const setupStore = await setUpProject(projectId, WRITERS);
  // The live state's size while the writers run, sampled for the floor's key.
  const sizes = [];
  let isSampling = true;
  const sampling = (async () => {
    const sampler = bareClient(port, password);
    while (isSampling) {
      sizes.push(Number(await sampler.command(['STRLEN', stateKey])));
      await new Promise((r) => setTimeout(r, 20));
    }
    await sampler.close();
  })();
  const store = await contended('store', projectId, pullEvery, WRITERS, MUTATIONS);
  isSampling = false;
  await sampling;
  const liveSize = Math.max(16, quantile(sizes, 0.5));
  await raw.command(['SET', FLOOR_KEY, `0:${'y'.repeat(liveSize - 2)}`]);
  const floor = await contended('floor', projectId, pullEvery, WRITERS, MUTATIONS);
  const floorText = String(await raw.command(['GET', FLOOR_KEY]));
  const floorCount = Number(floorText.slice(0, floorText.indexOf(':')));
  const { lost, duplicated } = await countSends(setupStore, projectId, WRITERS, MUTATIONS);
  await setupStore.close();
  return { pullEvery, store, floor, liveSize, lost, duplicated, floorCount, sends: WRITERS * MUTATIONS };
}

/** A burst: the first `writers` of BURST_LARGE members, `mutations` steady sends each, on a fresh project; and the loss check. */
async function burst(projectId, writers, mutations) {
  const setupStore = await setUpProject(projectId, BURST_LARGE);
  const run = await contended('store', projectId, 0, writers, mutations, BURST_LARGE);
  const { lost, duplicated } = await countSends(setupStore, projectId, writers, mutations);
  await setupStore.close();
  return { run, lost, duplicated, sends: writers * mutations };
}

let isWhole = true;
const targets = [];
const ms = (x) => (x === undefined ? '' : x.toFixed(1));
if (PARTS.has('latency')) await latency();
if (PARTS.has('contended')) {
  process.stderr.write(`contended: ${WRITERS} processes x ${MUTATIONS} mutations, store then floor, two state sizes…\n`);
  // Each writer sends 1 KB to the next. Steady: the peer's pull of it is part of the same change,
  // so the state keeps one small size. Own mail: each writer takes in its mail every 20th send,
  // so the state holds what the writers have not read yet (more when one writer falls behind).
  const shapes = [await contendedShape('bench-contended-steady', 0), await contendedShape('bench-contended-own', 20)];
  const cpu = (run) => (run.redisCpu === undefined ? '' : run.redisCpu.toFixed(0));
  const rows = [[`contended, ${WRITERS} processes × ${MUTATIONS}`, 'ops/s', 'wall ms', 'writers ms', 'p50 ms', 'p99 ms', 'most runs', 'conflicts', 'redis-server CPU ms']];
  const spread = (run) => `${run.fastestMs.toFixed(0)}-${run.slowestMs.toFixed(0)}`;
  for (const shape of shapes) {
    const what = shape.pullEvery === 0 ? 'store: send + the peer\'s pull (steady)' : `store: send, own mail every ${shape.pullEvery}th`;
    const { store: st, floor: fl } = shape;
    rows.push([what, st.rate.toFixed(0), st.wallMs.toFixed(0), spread(st), ms(st.sendP50), ms(st.sendP99), String(st.mostRuns), String(st.conflicts), cpu(st)]);
    rows.push([`floor: WATCH/GET/MULTI/SET/EXEC, ${shape.liveSize} B key`, fl.rate.toFixed(0), fl.wallMs.toFixed(0), spread(fl), ms(fl.sendP50), ms(fl.sendP99), '', String(fl.conflicts), cpu(fl)]);
  }
  printTable(rows);
  console.log('');
  for (const shape of shapes) {
    const ratio = shape.store.rate / shape.floor.rate;
    const whole = shape.lost === 0 && shape.duplicated === 0 && shape.floorCount === WRITERS * MUTATIONS;
    isWhole &&= whole;
    targets.push(`  contended store ≥ 50% of the WATCH floor (${shape.liveSize} B state):  ${(100 * ratio).toFixed(0)}%  ${ratio >= 0.5 ? 'PASS' : 'FAIL'}`);
    targets.push(`  0 lost: ${WRITERS * MUTATIONS} sends in state + history:  ${shape.lost} lost, ${shape.duplicated} duplicated (floor counter ${shape.floorCount})  ${whole ? 'PASS' : 'FAIL'}`);
  }
}
if (PARTS.has('burst')) {
  // 3. Many writers against a few, in the same run, on projects of one shape: the throughput of many
  // must stay at least half of the throughput of a few.
  process.stderr.write(`burst on ${BURST_LARGE}-member projects: ${BURST_SMALL} writers x ${BURST_SMALL_SENDS} sends, then ${BURST_LARGE} writers x ${BURST_LARGE_SENDS} sends…\n`);
  const bursts = [await burst('bench-burst-small', BURST_SMALL, BURST_SMALL_SENDS), await burst('bench-burst-large', BURST_LARGE, BURST_LARGE_SENDS)];
  const burstRows = [[`burst, ${BURST_LARGE} members, steady sends`, 'sends/s', 'wall ms', 'send p50 ms', 'send p99 ms', 'send max ms', 'most runs/send', 'conflicts']];
  for (const b of bursts) {
    const r = b.run;
    burstRows.push([`${r.writers} writers × ${r.mutations}`, r.rate.toFixed(0), r.wallMs.toFixed(0), ms(r.sendP50), ms(r.sendP99), ms(r.sendMax), String(r.mostRuns), String(r.conflicts)]);
  }
  printTable(burstRows);
  console.log('');
  for (const b of bursts) {
    const whole = b.lost === 0 && b.duplicated === 0;
    isWhole &&= whole;
    targets.push(`  0 lost: ${b.run.writers} writers x ${b.run.mutations} sends in state + history:  ${b.lost} lost, ${b.duplicated} duplicated  ${whole ? 'PASS' : 'FAIL'}`);
  }
  const [few, many] = bursts;
  const burstRatio = many.run.rate / few.run.rate;
  targets.push(`  burst: ${many.run.writers} writers ≥ 50% of ${few.run.writers} writers' sends/s:  ${(100 * burstRatio).toFixed(0)}%  ${burstRatio >= 0.5 ? 'PASS' : 'FAIL'}`);
}
await raw.close();
if (targets.length) console.log(`targets:\n${targets.join('\n')}`);
for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
redis.child.kill('SIGTERM');
// A lost change is a broken promise, not a missed target.
if (!isWhole) process.exitCode = 1;
