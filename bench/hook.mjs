// Hook no-op benchmark (a report, not a test): what `opencomms hook` costs a
// host on every prompt when there is no mail, against a bare Node process
// that reads stdin and prints {}, under each runtime of bench/lib/nodes.mjs
// (this Node; Node 24 and Node 26 with the compile cache install turns on). Two projects: one with no history, and a
// busy one with 2000 delivered 1 KB messages retained in history, which shows
// the fast path never reads history. Interleaved repetitions (hook, floor,
// hook, floor, ...), medians, the ratio to the floor measured in this same run.
//   npm run build && npx tsc -p tsconfig.test.json && node bench/hook.mjs
//   (BENCH_REPS=21 by default, at least 15; BENCH_TIMEOUT_MS=10000;
//    BENCH_BUNDLE=<file> measures another bundle, e.g. an older build)
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { benchRuntimes, removeCacheDirs, TARGET } from './lib/nodes.mjs';
import { printTable } from './lib/report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const SERVER = process.env.BENCH_BUNDLE ? resolve(process.env.BENCH_BUNDLE) : join(root, 'dist/opencomms.js');
const REPS = Math.max(15, Number(process.env.BENCH_REPS ?? 21) || 21);
const WARMUP = 2;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 10_000) || 10_000;
const RETAINED = [0, 2000];
const MESSAGE_BYTES = 1024;

// As in bench/startup.mjs: a CA bundle parsed at every Node boot would add the
// same constant to both sides and flatten the ratio towards 1.
const CHILD_ENV = { ...process.env };
for (const name of ['NODE_EXTRA_CA_CERTS', 'OPENCOMMS_MEMBER_ID', 'OPENCOMMS_PROJECT_DIR', 'OPENCOMMS_HOST']) delete CHILD_ENV[name];

// ---- a project: two members, `messages` delivered 1 KB messages in history ---
async function buildProject(messages) {
  let store;
  let engine;
  try {
    ({ openStore: store } = require(join(root, 'build/src/store/index.js')));
    engine = require(join(root, 'build/src/engine/index.js'));
  } catch {
    console.error('bench/hook.mjs needs the compiled store and engine: run `npx tsc -p tsconfig.test.json` first.');
    process.exit(1);
  }
  const dir = fs.mkdtempSync(join(os.tmpdir(), 'oc-hook-bench-'));
  const s = store({ projectDir: dir });
  const base = { project_id: 'local-project', worktree: dir, role_prompt: 'bench' };
  await s.editLocally((state, ctx) => {
    engine.createChannel(state, { ...base, channel: 'bench', role: 'writer', session_id: 'writer-1', host: 'mcp', rate_limit: 1000, max_agent_streak: 0 }, ctx);
    return engine.joinChannel(state, { ...base, channel: 'bench', role: 'reader', session_id: 'reader-1', host: 'claude-code', host_session_id: 'reader-session' }, ctx);
  });
  const owner = { pid: process.pid, host: os.hostname(), lease_until: Date.now() + 60_000 };
  const BATCH = 250;
  for (let sent = 0; sent < messages; sent += BATCH) {
    await s.editLocally((state, ctx) => {
      const channel = state.channels.bench;
      for (let i = sent; i < Math.min(messages, sent + BATCH); i += 1) {
        channel.rate = { window_start: ctx.now(), count: 0 }; // the bench sends faster than any rate limit allows
        const content = `message ${i} `.padEnd(MESSAGE_BYTES, 'x');
        const sentResult = engine.sendMessage(state, { channel: 'bench', session_id: 'writer-1', to: 'reader-1', content }, ctx);
        if (!sentResult.ok) throw new Error(`send ${i}: ${sentResult.message}`);
      }
      // The reader takes them (a pull), so they are delivered and move to history at save.
      const handed = engine.drainQueue(state, 'reader-1', { owner, now: ctx.now(), ignoreCooldown: true });
      engine.commitDelivery(state, 'reader-1', handed.map((e) => e.message_id), 'pull', ctx.now());
      return { ok: true, message: 'batch' };
    });
  }
  const historyDir = join(dir, '.opencomms', 'history');
  const lines = !fs.existsSync(historyDir) ? 0 : fs.readdirSync(historyDir).reduce((n, f) => n + fs.readFileSync(join(historyDir, f), 'utf8').split('\n').filter(Boolean).length, 0);
  const state = JSON.parse(fs.readFileSync(join(dir, '.opencomms', 'state.json'), 'utf8'));
  if (lines < messages) throw new Error(`expected ${messages} history records, found ${lines}`);
  if ((state.queues['reader-1'] ?? []).length !== 0) throw new Error('the reader must have no mail');
  return { dir, historyRecords: lines, stateBytes: fs.statSync(join(dir, '.opencomms', 'state.json')).size };
}

// ---- one spawn → exit --------------------------------------------------------
const EVENT = JSON.stringify({
  hook_event_name: 'UserPromptSubmit', session_id: 'reader-session', transcript_path: '/tmp/t.jsonl', cwd: os.tmpdir(), prompt: 'go on',
});
const FLOOR_SCRIPT = `let b='';process.stdin.setEncoding('utf8');process.stdin.on('data',c=>{b+=c});process.stdin.on('end',()=>{JSON.parse(b);process.stdout.write('{}\\n')});`;

function runOnce(kind, runtime, dir, event = EVENT) {
  const args = kind === 'hook' ? [SERVER, 'hook', '--project', dir] : ['-e', FLOOR_SCRIPT];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(runtime.bin, args, { stdio: ['pipe', 'pipe', 'pipe'], env: runtime.env });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
    child.stderr.setEncoding('utf8').on('data', (c) => { err += c; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${kind} did not exit within ${TIMEOUT_MS} ms`)); }, TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - t0;
      if (code !== 0 || out !== '{}\n') reject(new Error(`${kind}: exit ${code}, stdout ${JSON.stringify(out)}, stderr ${err}`));
      else resolve(ms);
    });
    child.stdin.end(event);
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Interleaved (hook, floor, floor, hook, ...) so drift hits both sides alike.
async function timeHook(runtime, dir, event) {
  const times = { hook: [], floor: [] };
  for (let i = 0; i < WARMUP + REPS; i += 1) {
    for (const kind of i % 2 === 0 ? ['hook', 'floor'] : ['floor', 'hook']) {
      const ms = await runOnce(kind, runtime, dir, event);
      if (i >= WARMUP) times[kind].push(ms);
    }
  }
  return times;
}

// One table row per runtime: medians, the ratio of medians (the verdict) and
// the median of per-pair ratios (interleaving pairs each hook with the floor
// beside it, so that view suffers less from drift on a busy machine).
const HEADER = ['node', 'hook', 'floor', 'ratio', 'per-pair', 'target', 'result'];
const summary = [['node', 'what', 'ratio', 'per-pair', 'target', 'result']];
function ratioRow(runtime, what, times) {
  const hook = median(times.hook);
  const floor = median(times.floor);
  const ratio = hook / floor;
  const paired = median(times.hook.map((h, i) => h / times.floor[i]));
  const result = ratio <= TARGET ? 'PASS' : 'MISS';
  summary.push([runtime.label, what, `${ratio.toFixed(2)}×`, `${paired.toFixed(2)}×`, `≤ ${TARGET.toFixed(2)}×`, result]);
  return [runtime.label, `${hook.toFixed(1)} ms`, `${floor.toFixed(1)} ms`, `${ratio.toFixed(2)}×`, `${paired.toFixed(2)}×`, `≤ ${TARGET.toFixed(2)}×`, result];
}
async function measureAll(runtimes, what, dir, event) {
  const rows = [HEADER];
  for (const runtime of runtimes) rows.push(ratioRow(runtime, what, await timeHook(runtime, dir, event)));
  printTable(rows);
}

const { runtimes, skipped } = benchRuntimes(CHILD_ENV);
let allUnchanged = true;
console.log(`hook no-op: UserPromptSubmit, member with no mail; ${os.cpus()[0]?.model ?? 'cpu?'}, ${REPS} interleaved repetitions after ${WARMUP} warm-up, each Node against bare node of the same binary`);
try {
  for (const messages of RETAINED) {
    const project = await buildProject(messages);
    const stateBefore = fs.readFileSync(join(project.dir, '.opencomms', 'state.json'));
    console.log(`${project.historyRecords} delivered 1 KB messages in history, state.json ${project.stateBytes} bytes`);
    await measureAll(runtimes, `no-op hook, ${messages} in history`, project.dir, EVENT);
    const unchanged = stateBefore.equals(fs.readFileSync(join(project.dir, '.opencomms', 'state.json')));
    allUnchanged &&= unchanged;
    fs.rmSync(project.dir, { recursive: true, force: true });
    console.log(`  state.json untouched by the no-op hooks: ${unchanged ? 'yes' : 'NO'}`);
  }
  // The reservation check at the tool call (PreToolUse before an Edit): one
  // lock-free read and a glob match. Another member holds src/a.ts; the edit
  // is of a free file, so the answer is {} like the no-op above.
  const project = await buildProject(0);
  const engine = require(join(root, 'build/src/engine/index.js'));
  const { openStore } = require(join(root, 'build/src/store/index.js'));
  await openStore({ projectDir: project.dir }).editLocally((state, ctx) => engine.reservePaths(state, {
    channel: 'bench', session_id: 'writer-1', paths: ['src/a.ts', 'src/lib/**'], project_dir: project.dir,
  }, ctx));
  const preTool = JSON.stringify({
    hook_event_name: 'PreToolUse', session_id: 'reader-session', cwd: project.dir, tool_name: 'Edit',
    tool_input: { file_path: join(project.dir, 'src', 'free.ts'), old_string: 'a', new_string: 'b' },
  });
  console.log('PreToolUse reservation check (Edit of a free file, 2 reservations held by another member)');
  await measureAll(runtimes, 'PreToolUse check', project.dir, preTool);
  // The collision notice's record after an edit goes to the member's own edit
  // log, never into state.json: count the state's writes over PostToolUse
  // hooks of edits that collide with nothing (a save replaces the file, so
  // each one shows as a new inode or stamp).
  const stateFile = join(project.dir, '.opencomms', 'state.json');
  const stampOf = () => { const st = fs.statSync(stateFile); return `${st.ino}:${st.mtimeMs}:${st.size}`; };
  let stamp = stampOf();
  let writes = 0;
  const EDITS = 20;
  for (let i = 0; i < EDITS; i += 1) {
    const postTool = JSON.stringify({
      hook_event_name: 'PostToolUse', session_id: 'reader-session', cwd: project.dir, tool_name: 'Edit', tool_use_id: `toolu_${i}`,
      tool_input: { file_path: join(project.dir, 'src', `free${i % 4}.ts`), old_string: 'a', new_string: 'b' }, tool_response: { success: true },
    });
    await runOnce('hook', runtimes[0], project.dir, postTool);
    const now = stampOf();
    if (now !== stamp) writes += 1;
    stamp = now;
  }
  console.log(`PostToolUse after ${EDITS} edits that collide with nothing: ${writes} write(s) of state.json${writes === 0 ? '' : '  (expected 0)'}`);
  allUnchanged &&= writes === 0;
  fs.rmSync(project.dir, { recursive: true, force: true });
} finally {
  removeCacheDirs(runtimes);
}
console.log('');
console.log(`hook vs bare node of the same binary (medians of ${REPS} interleaved reps; Node 24 and 26 with the compile cache install turns on)`);
printTable(summary);
if (skipped) console.log(`not measured: ${skipped}`);

// A report, not a gate: a missed target exits 0; only a hook that changed state.json (a no-op, or an edit's PostToolUse) fails.
process.exitCode = allUnchanged ? 0 : 1;
