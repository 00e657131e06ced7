// Doorbell benchmark (a report, not a test): how long after member A writes
// an opencomms_send request does member B's server print its
// notifications/claude/channel line, against the floor measured in the same
// run: a bare fs.watch on a directory, from writing a temp file to the
// watcher callback for its rename onto state.json.
//   node bench/doorbell.mjs        (BENCH_DOORBELL_REPS=40 by default, BENCH_TIMEOUT_MS=10000)
// Targets: doorbell p50 <= 30 ms and <= 3x the floor's p50; and <= 3x the bare
// durable bound, the single locked write (lock, read, write, fsync, rename).
import { floorSample as floorWake, printTable, quantile } from './lib/report.mjs';
import { boundedBy, childEnv, handshake, launchServer, stampedLines } from './lib/server-child.mjs';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import * as fs from 'node:fs';
import * as os from 'node:os';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = join(root, 'dist/opencomms.js');
const BARE = join(root, 'bench/lib/bare-doorbell.cjs');
const REPS = Math.max(30, Number(process.env.BENCH_DOORBELL_REPS ?? 40) || 40);
const WARMUP = 3;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 10_000) || 10_000;
// Between samples, so one sample's trailing file events (the pull, A's own
// wake-up) never fold into the next sample's debounce window.
const SETTLE_MS = 25;
const BELL = 'notifications/claude/channel';

const withTimeout = boundedBy('doorbell bench', TIMEOUT_MS);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server for `memberId` whose doorbell notifications can be counted. */
function launch(project, memberId) {
  const server = launchServer(SERVER, project, memberId, withTimeout);
  return { ...server, bells: () => server.lines.filter((l) => l.message.method === BELL) };
}


// The bench's own bare watch on the project's state directory: when the
// send's rename of state.json became visible to any watcher at all.
const renames = [];
function watchRenames(stateDir) {
  return fs.watch(stateDir, { persistent: false }, (_event, filename) => {
    if (String(filename) === 'state.json') renames.push(performance.now());
  });
}

/** One doorbell sample: A's send request written → B's next bell line read. */
async function doorbellSample(a, b, index) {
  const before = b.bells().length;
  const { sentAt, reply } = await a.tool('opencomms_send', { channel: 'bench', content: `bench message ${index}` });
  const bell = await b.waitFor('bell', () => b.bells()[before]);
  const renamed = renames.find((at) => at >= sentAt);
  await b.tool('opencomms_pull', {});
  return { bell: bell.at - sentAt, reply: reply.at - sentAt, afterRename: renamed === undefined ? undefined : bell.at - renamed };
}


/** The bare writer and ringer of bench/lib/bare-doorbell.cjs on a directory of their own. */
function launchBare(dir) {
  fs.writeFileSync(join(dir, 'state.json'), JSON.stringify({ messages: [] }));
  const start = (role) => {
    const child = spawn(process.execPath, [BARE, role, dir], { env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    return { child, ...stampedLines(child, (text) => ({ message: JSON.parse(text) }), `bare ${role}`, withTimeout) };
  };
  const writer = start('writer');
  const ringer = start('ringer');
  let count = 0;
  return {
    ready: () => ringer.waitFor('ringer ready', () => ringer.lines.find((l) => l.message.ready)),
    /** One bound sample: a line written to the bare writer → the bare ringer's line for it. */
    async sample() {
      const id = ++count;
      const sentAt = performance.now();
      writer.child.stdin.write(`${JSON.stringify({ id, content: `bench message ${id}` })}\n`);
      const bell = await ringer.waitFor('bare bell', () => ringer.lines.find((l) => l.message.bell === id));
      await writer.waitFor('bare reply', () => writer.lines.find((l) => l.message.id === id));
      return bell.at - sentAt;
    },
    close: () => Promise.all([writer, ringer].map(({ child }) => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.on('exit', resolve);
      child.kill();
    }))),
  };
}

// ---- main -------------------------------------------------------------------
if (!fs.existsSync(SERVER)) {
  console.error(`doorbell bench: ${SERVER} is missing; run npm run build first`);
  process.exit(2);
}

const project = fs.mkdtempSync(join(os.tmpdir(), 'opencomms-bench-doorbell-'));
const floorDir = fs.mkdtempSync(join(os.tmpdir(), 'opencomms-bench-floor-'));
const boundDir = fs.mkdtempSync(join(os.tmpdir(), 'opencomms-bench-bound-'));
const bare = launchBare(boundDir);
const a = launch(project, 'sess_bench_a');
const b = launch(project, 'sess_bench_b');
try {
  await handshake(a);
  await handshake(b);
  await bare.ready();
  await a.tool('opencomms_create', { channel: 'bench', role: 'writer', role_prompt: 'You write.', rate_limit: 1_000, max_agent_streak: 0 });
  await b.tool('opencomms_join', { channel: 'bench', role: 'reviewer', role_prompt: 'You review.' });
  const renameWatch = watchRenames(join(project, '.opencomms'));

  const samples = { bell: [], reply: [], afterRename: [], bound: [], floor: [] };
  process.stderr.write(`doorbell bench: ${WARMUP} warm-up + ${REPS} interleaved samples (doorbell, bare bound, floor, ...)\n`);
  for (let rep = 0; rep < WARMUP + REPS; rep++) {
    const d = await doorbellSample(a, b, rep);
    await sleep(SETTLE_MS);
    const bound = await bare.sample();
    await sleep(SETTLE_MS);
    const f = await floorWake(floorDir, rep, withTimeout);
    await sleep(SETTLE_MS);
    if (rep < WARMUP) continue;
    samples.bell.push(d.bell);
    samples.reply.push(d.reply);
    if (d.afterRename !== undefined) samples.afterRename.push(d.afterRename);
    samples.bound.push(bound);
    samples.floor.push(f);
  }

  const floorP50 = quantile(samples.floor, 0.5);
  const ms = (v) => v.toFixed(2);
  const row = (what, values, note = '') => [what, ms(quantile(values, 0.5)), ms(quantile(values, 0.95)), `${(quantile(values, 0.5) / floorP50).toFixed(1)}x`, note];
  printTable([
    ['measure (ms)', 'p50', 'p95', 'p50 / floor', 'note'],
    row('doorbell: A send written → B bell read', samples.bell, 'the number the targets apply to'),
    row('  of which: A send → A reply', samples.reply, 'lock, load, engine, fsync, rename, unlock'),
    row('  rename seen by a bare watch → B bell', samples.afterRename, "the doorbell's own share: debounce, snapshot, notify, pipe"),
    row('bound: bare lock, read, write, fsync, rename → bare watch, read, line', samples.bound, 'bench/lib/bare-doorbell.cjs: the durable steps, no OpenComms'),
    row('floor: bare fs.watch, write-temp + rename → callback', samples.floor, 'same process, no fsync'),
  ]);
  const p50 = quantile(samples.bell, 0.5);
  const boundP50 = quantile(samples.bound, 0.5);
  console.log(`\nsamples: ${REPS} (${samples.afterRename.length} with a rename seen); targets: p50 <= 30 ms (${p50 <= 30 ? 'met' : 'MISSED'}), p50 <= 3x floor (${p50 <= 3 * floorP50 ? 'met' : 'MISSED'}: ${(p50 / floorP50).toFixed(1)}x)`);
  console.log(`bare durable bound: ${(boundP50 / floorP50).toFixed(1)}x the floor; the doorbell is ${(p50 / boundP50).toFixed(2)}x the bound`);
  // Issue 37's anchor: the whole-file floor's single locked write (lock, read, write, fsync, rename), seen by a watch.
  console.log(`target: send → bell p50 <= 3x the single locked write (the bound): ${(p50 / boundP50).toFixed(2)}x ${p50 <= 3 * boundP50 ? 'met' : 'MISSED'}`);
  renameWatch.close();
} finally {
  await Promise.all([a.close(), b.close(), bare.close()]);
  fs.rmSync(project, { recursive: true, force: true });
  fs.rmSync(floorDir, { recursive: true, force: true });
  fs.rmSync(boundDir, { recursive: true, force: true });
}
