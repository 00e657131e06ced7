// Task board benchmark (a report, not a test): `next` and `claim` through a
// real server of dist/opencomms.js on a board of 500 open tasks, each against
// the anchor measured in the same run on the same state: a `list` of one
// task (a lock-free read) and an `add` (one locked write of the same state).
// Also the board's cost in tools/list: the bytes of opencomms_task's entry
// and of the whole list.
//   npm run build && node bench/board.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { printTable, quantile } from './lib/report.mjs';
import { boundedBy, childEnv, stampedLines } from './lib/server-child.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(root, 'dist', 'opencomms.js');
const OPEN_TASKS = 500;
const REPS = Math.max(15, Number(process.env.BENCH_REPS ?? 41) || 41);
const withTimeout = boundedBy('bench/board.mjs', 60_000);

function startServer(project, memberId) {
  const child = spawn(process.execPath, [DIST, '--project', project], { env: { ...childEnv(), OPENCOMMS_MEMBER_ID: memberId } });
  const { lines, waitFor } = stampedLines(child, (text) => ({ json: JSON.parse(text) }), 'bench/board.mjs', withTimeout);
  let nextId = 1;
  const request = async (method, params) => {
    const id = nextId++;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return (await waitFor(`reply ${id}`, () => lines.find((l) => l.json.id === id))).json;
  };
  const call = async (args) => {
    const t0 = performance.now();
    const reply = await request('tools/call', { name: 'opencomms_task', arguments: args });
    const ms = performance.now() - t0;
    const result = reply.result?.structuredContent;
    if (!result?.ok) throw new Error(`opencomms_task ${JSON.stringify(args)}: ${JSON.stringify(reply)}`);
    return { ms, result };
  };
  return { child, request, call };
}

const project = mkdtempSync(join(tmpdir(), 'opencomms-bench-board-'));
const servers = [];
try {
  const adder = startServer(project, 'sess_adder');
  const taker = startServer(project, 'sess_taker');
  servers.push(adder, taker);
  for (const s of servers) {
    await s.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } });
  }
  const listing = await adder.request('tools/list', {});
  const all = Buffer.byteLength(JSON.stringify(listing.result));
  const task = Buffer.byteLength(JSON.stringify(listing.result.tools.find((t) => t.name === 'opencomms_task')));
  // Blocked tasks fill the board to OPEN_TASKS - 1: each waits on t1, which the adder holds claimed all along.
  await adder.call({ action: 'add', title: 'the root every other task waits on' });
  await adder.call({ action: 'claim', id: 't1' });
  for (let i = 1; i < OPEN_TASKS - 1; i += 1) await adder.call({ action: 'add', title: `blocked task ${i}`, after: ['t1'], details: 'x'.repeat(200) });
  const add = [];
  const claim = [];
  const next = [];
  const read = [];
  for (let i = 0; i < REPS; i += 1) {
    // One ready task on top (500 open), claimed by id, then given back; then next takes it, then done.
    const added = await adder.call({ action: 'add', title: `ready task ${i}` });
    add.push(added.ms);
    const id = added.result.data.task.id;
    read.push((await taker.call({ action: 'list', id })).ms);
    claim.push((await taker.call({ action: 'claim', id })).ms);
    await taker.call({ action: 'release', id });
    const took = await taker.call({ action: 'next' });
    if (took.result.data.task?.id !== id) throw new Error(`next took ${took.result.data.task?.id}, not ${id}`);
    next.push(took.ms);
    await taker.call({ action: 'done', id });
  }
  const p50 = (xs) => quantile(xs, 0.5);
  const anchorWrite = p50(add);
  const anchorRead = p50(read);
  console.log(`task board through one server process; node ${process.version}; ${OPEN_TASKS} open tasks; p50 of ${REPS}`);
  printTable([
    ['call', 'p50 ms', 'p90 ms', 'x add (locked write)', 'x list id (read)'],
    ['list one task (anchor: read)', anchorRead.toFixed(2), quantile(read, 0.9).toFixed(2), (anchorRead / anchorWrite).toFixed(2), '1.00'],
    ['add (anchor: locked write)', anchorWrite.toFixed(2), quantile(add, 0.9).toFixed(2), '1.00', (anchorWrite / anchorRead).toFixed(2)],
    ['claim by id', p50(claim).toFixed(2), quantile(claim, 0.9).toFixed(2), (p50(claim) / anchorWrite).toFixed(2), (p50(claim) / anchorRead).toFixed(2)],
    ['next', p50(next).toFixed(2), quantile(next, 0.9).toFixed(2), (p50(next) / anchorWrite).toFixed(2), (p50(next) / anchorRead).toFixed(2)],
  ]);
  console.log(`tools/list: ${all} bytes in all (limit 14,000), opencomms_task's entry ${task} bytes`);
} finally {
  await Promise.all(servers.map((s) => new Promise((resolve) => {
    s.child.once('exit', resolve);
    s.child.stdin.end();
  })));
  rmSync(project, { recursive: true, force: true, maxRetries: 5 });
}
