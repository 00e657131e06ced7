// Shell-check benchmark (a report, not a test): what the shell-write check
// adds to a shell tool call, with 0 and 2,000 files held by another member
// (four channels of 500 one-file reservations, every file present). One
// "call" is the hook's pre-tool and post-tool runs for a Bash call, run in
// this process (runHook, as the CLI calls it) so process start-up does not
// drown the difference; the floor is the same pair for a tool the check
// ignores (Read), on the same state. Interleaved repetitions, medians.
// Then the same pairs as separate `dist/opencomms.js hook` processes, as a
// host runs them: each timed from spawn to its end (the wall clock a shell
// call waits), since a fresh process pays what a warm one does not (cold
// code, garbage, the wind-down at exit). Node's own start-up is in both the
// Bash and the Read pair, so the difference leaves it out:
// BENCH_PROCESS_REPS (25 by default; 0 skips it). This is the figure the
// 40 ms budget is held to.
//   npx tsc -p tsconfig.test.json && npm run build && node bench/shell-check.mjs   (BENCH_REPS=41 by default)
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { spawnSync } from 'node:child_process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const REPS = Math.max(15, Number(process.env.BENCH_REPS ?? 41) || 41);
const PROCESS_REPS = Math.max(0, Number(process.env.BENCH_PROCESS_REPS ?? 25) || 0);
const DIST = process.env.BENCH_DIST ?? join(root, 'dist', 'opencomms.js'); // BENCH_DIST: another build to compare
const HELD = [0, 2000];
const PER_CHANNEL = 500;
/** What the check may add to one shell call (pre + post hook processes) with 2,000 held files. */
const BUDGET_MS = 40;

let openStore;
let engine;
let runHook;
try {
  ({ openStore } = require(join(root, 'build/src/store/index.js')));
  engine = require(join(root, 'build/src/engine/index.js'));
  ({ runHook } = require(join(root, 'build/src/hooks/index.js')));
} catch {
  console.error('bench/shell-check.mjs needs the compiled sources: run `npx tsc -p tsconfig.test.json` first.');
  process.exit(1);
}

async function buildProject(held) {
  const dir = fs.mkdtempSync(join(os.tmpdir(), 'oc-shell-bench-'));
  fs.mkdirSync(join(dir, 'src'));
  const store = openStore({ projectDir: dir });
  const base = { project_id: 'local-project', worktree: dir, role_prompt: 'bench' };
  const channels = Math.max(1, Math.ceil(held / PER_CHANNEL));
  for (let c = 0; c < channels; c += 1) {
    await store.editLocally((state, ctx) => {
      const channel = `bench-${c}`;
      engine.createChannel(state, { ...base, channel, role: 'holder', session_id: 'holder-1', host: 'mcp', rate_limit: 1000 }, ctx);
      const joined = engine.joinChannel(state, { ...base, channel, role: 'writer', session_id: 'writer-1', host: 'claude-code', host_session_id: 'writer-session' }, ctx);
      const paths = [];
      for (let i = c * PER_CHANNEL; i < Math.min(held, (c + 1) * PER_CHANNEL); i += 1) paths.push(`src/f${i}.ts`);
      for (const p of paths) fs.writeFileSync(join(dir, p), 'x');
      if (paths.length === 0) return joined;
      return engine.reservePaths(state, { channel, session_id: 'holder-1', paths, exclusive: true, reason: null, ttl_minutes: 600, project_dir: dir }, ctx);
    });
  }
  return dir;
}

async function call(dir, tool) {
  const input = tool === 'Bash' ? { command: 'ls src > /dev/null' } : { file_path: join(dir, 'src', 'f0.ts') };
  for (const name of ['PreToolUse', 'PostToolUse']) {
    let out = '';
    await runHook({
      explicitProjectDir: dir, cwd: dir, env: { OPENCOMMS_HOST: 'claude-code' }, wait: false,
      input: JSON.stringify({ hook_event_name: name, session_id: 'writer-session', cwd: dir, tool_name: tool, tool_input: input, tool_use_id: 'toolu_bench' }),
      write: (text) => { out += text; }, warn: (text) => { throw new Error(text); },
    });
    if (out !== '{}\n') throw new Error(`unexpected answer ${out}`);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The two hook processes of one call, each timed from spawn to its end.
function processCall(dir, tool) {
  const input = tool === 'Bash' ? { command: 'ls src > /dev/null' } : { file_path: join(dir, 'src', 'f0.ts') };
  let ms = 0;
  for (const name of ['PreToolUse', 'PostToolUse']) {
    const started = performance.now();
    const run = spawnSync(process.execPath, [DIST, 'hook', '--project', dir], {
      input: JSON.stringify({ hook_event_name: name, session_id: 'writer-session', cwd: dir, tool_name: tool, tool_input: input, tool_use_id: 'toolu_bench' }),
      env: { PATH: process.env.PATH, OPENCOMMS_HOST: 'claude-code' }, encoding: 'utf8',
    });
    ms += performance.now() - started;
    if (run.stdout !== '{}\n') throw new Error(`unexpected answer ${run.stdout} ${run.stderr}`);
  }
  return ms;
}
function processFigures(dir) {
  const bash = [];
  const read = [];
  for (let i = 0; i < PROCESS_REPS + 2; i += 1) {
    const a = processCall(dir, 'Bash');
    const b = processCall(dir, 'Read');
    if (i >= 2) { bash.push(a); read.push(b); }
  }
  const added = median(bash) - median(read);
  return { added, text: `Bash ${median(bash).toFixed(1)} ms, Read ${median(read).toFixed(1)} ms, added ${added.toFixed(1)} ms (pre + post, ${PROCESS_REPS} reps)` };
}

console.log(`shell check: added cost of a Bash call (pre + post hook) against a Read call, ${REPS} reps, medians`);
for (const held of HELD) {
  const dir = await buildProject(held);
  try {
    const shell = [];
    const floor = [];
    for (let i = 0; i < REPS + 2; i += 1) {
      let t = performance.now();
      await call(dir, 'Bash');
      const a = performance.now() - t;
      t = performance.now();
      await call(dir, 'Read');
      const b = performance.now() - t;
      if (i >= 2) { shell.push(a); floor.push(b); }
    }
    const recorded = fs.existsSync(join(dir, '.opencomms', 'shell'));
    const inProcess = `Bash ${median(shell).toFixed(2)} ms, Read ${median(floor).toFixed(2)} ms, added ${(median(shell) - median(floor)).toFixed(2)} ms`;
    if (PROCESS_REPS > 0 && fs.existsSync(DIST)) {
      const { added, text } = processFigures(dir);
      const verdict = held === 0 ? '' : `; budget ${BUDGET_MS} ms: ${added <= BUDGET_MS ? 'met' : 'MISSED'}`;
      console.log(`  ${String(held).padStart(5)} held files, as hook processes: ${text}${verdict}`);
    }
    console.log(`  ${String(held).padStart(5)} held files, in this process: ${inProcess}${held === 0 ? `; shell records made: ${recorded ? 'yes' : 'none'}` : ''}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
