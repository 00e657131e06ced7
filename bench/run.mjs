// `npm run bench`: every benchmark in turn, each printing its own table of
// ratios against an anchor measured in the same run. A report, not a gate: a
// missed target still exits 0; only a benchmark that crashes exits non-zero.
// `npm run bench` compiles build/ first (store, hook, doorbell and redis benches use it).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BENCHES = [
  ['bench/startup.mjs', 'start-up: tools/list (the headline) / initialize / exit against bare node, peak RSS, tools/list size'],
  ['bench/store.mjs', 'store: one send with retained history, contended throughput'],
  ['bench/hook.mjs', 'hook: the no-mail hook against bare node, with 0 and 2000 retained messages'],
  ['bench/shell-check.mjs', 'shell check: what the shell-write check adds to a shell call, with 0 and 2000 held files, against its 40 ms budget'],
  ['bench/board.mjs', 'board: next and claim with 500 open tasks against a locked add and a read of one task; the board in tools/list'],
  ['bench/search.mjs', 'search: opencomms_history with a query over 2000 and 20,000 records'],
  ['bench/doorbell.mjs', 'doorbell: send → notification latency against a bare fs.watch wake'],
  ['bench/host-door.mjs', 'host door: send → notice in a stand-in Claude Code inbox (idle), next to send → doorbell and send → PostToolUse hook (busy)'],
  ['bench/watch.mjs', 'watch: send → watch --member line against a bare fs.watch wake; idle CPU and RSS'],
  ['bench/redis.mjs', 'redis: send→pull over Redis against the file store, 4-process contended throughput against a bare WATCH/MULTI floor, 48 writers against 4 on one project shape, 0 lost'],
];
const failures = [];

for (const [script, what] of BENCHES) {
  if (!existsSync(join(root, script))) continue;
  console.log(`\n== ${what} (${script})`);
  const args = script === 'bench/store.mjs' && process.env.BENCH_STORE_REPS ? [process.env.BENCH_STORE_REPS] : [];
  const run = spawnSync(process.execPath, [join(root, script), ...args], { cwd: root, stdio: 'inherit' });
  if (run.error) failures.push(`${script}: ${run.error.message}`);
  else if (run.status !== 0) failures.push(`${script}: exited with ${run.status ?? run.signal}`);
}

if (failures.length) {
  console.error(`bench: ${failures.length} benchmark(s) failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
