// Host door benchmark (a report, not a test): how long after member A writes
// an opencomms_send request the idle recipient's own server has written the
// notice into a stand-in Claude Code inbox (a Unix socket in this process),
// next to the same send's channel doorbell line, and next to a busy
// recipient's path: the send, then its next tool call's PostToolUse hook
// (a real `opencomms hook` process) answering with the mail in context.
// Two inbox stand-ins: one that answers the auth line at once, and one that
// stays silent (the recipient then writes the notice after its auth wait).
//   npm run build && npx tsc -p tsconfig.test.json && node bench/host-door.mjs
//   (BENCH_DOOR_REPS=20 by default, at least 10; BENCH_TIMEOUT_MS=10000)
import { printTable, quantile } from './lib/report.mjs';
import { boundedBy, handshake, launchServer } from './lib/server-child.mjs';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import * as fs from 'node:fs';
import * as os from 'node:os';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const SERVER = join(root, 'dist/opencomms.js');
const REPS = Math.max(10, Number(process.env.BENCH_DOOR_REPS ?? 20) || 20);
const WARMUP = 2;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 10_000) || 10_000;
const SESSION = 'bench-cc-session';
const BELL = 'notifications/claude/channel';
const withTimeout = boundedBy('host-door bench', TIMEOUT_MS);

let writeTurnRecord;
try {
  ({ writeTurnRecord } = require(join(root, 'build/src/store/index.js')));
} catch {
  console.error('bench/host-door.mjs needs the compiled store: run `npx tsc -p tsconfig.test.json` first.');
  process.exit(1);
}
if (!fs.existsSync(SERVER)) {
  console.error(`host-door bench: ${SERVER} is missing; run npm run build first`);
  process.exit(2);
}

/** A stand-in inbox: stamps the arrival of each user line; answers the auth line when `answersAuth`. */
async function standIn(dir, answersAuth) {
  const path = join(dir, answersAuth ? 'a.sock' : 's.sock');
  const notices = [];
  let waiters = [];
  const server = createServer((socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        if (line.type === 'auth' && answersAuth) socket.write('{"type":"auth_ok"}\n');
        if (line.type === 'user') {
          notices.push(performance.now());
          socket.end();
          const w = waiters;
          waiters = [];
          for (const wake of w) wake();
        }
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise((resolve) => server.listen(path, resolve));
  return {
    path,
    notices,
    next: (count) => withTimeout(new Promise((resolve) => {
      const check = () => (notices.length > count ? resolve(notices[count]) : waiters.push(check));
      check();
    }), 'inbox notice'),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Runs `opencomms hook` with a PostToolUse event; resolves with when its answer was read, and the answer. */
function hookRun(project) {
  return withTimeout(new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER, 'hook', '--project', project], {
      env: { ...process.env, OPENCOMMS_MEMBER_ID: 'sess_bench_b', OPENCOMMS_PROJECT_DIR: '' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
    child.on('error', reject);
    child.on('exit', () => resolve({ at: performance.now(), answer: out }));
    child.stdin.end(JSON.stringify({ hook_event_name: 'PostToolUse', session_id: SESSION, cwd: project, tool_name: 'Read', tool_input: {} }));
  }), 'hook');
}

async function measure(answersAuth, sockDir) {
  const project = fs.mkdtempSync(join(os.tmpdir(), 'opencomms-bench-door-'));
  const inbox = await standIn(sockDir, answersAuth);
  const a = launchServer(SERVER, project, 'sess_bench_a', withTimeout);
  const b = launchServer(SERVER, project, 'sess_bench_b', withTimeout, {
    args: ['--host', 'claude-code'],
    env: { CLAUDE_CODE_SESSION_ID: SESSION, CLAUDE_CODE_MESSAGING_SOCKET: inbox.path, CLAUDE_CODE_MESSAGING_TOKEN: 'bench' },
  });
  const samples = { inbox: [], bell: [], hook: [] };
  try {
    await handshake(a);
    await handshake(b);
    await a.tool('opencomms_create', { channel: 'bench', role: 'writer', role_prompt: 'You write.', rate_limit: 1_000, max_agent_streak: 0 });
    await b.tool('opencomms_join', { channel: 'bench', role: 'reviewer', role_prompt: 'You review.' });
    for (let rep = 0; rep < WARMUP + REPS; rep++) {
      // Idle: the inbox notice and the channel bell of the same send.
      writeTurnRecord(project, SESSION, { phase: 'idle', at: Date.now() + 1, event: 'Stop' });
      const bells = b.lines.filter((l) => l.message.method === BELL).length;
      const seen = inbox.notices.length;
      const { sentAt } = await a.tool('opencomms_send', { channel: 'bench', content: `idle ${rep}` });
      const noticeAt = await inbox.next(seen);
      const bell = await b.waitFor('bell', () => b.lines.filter((l) => l.message.method === BELL)[bells]);
      await b.tool('opencomms_pull', {});
      // Busy: the send, then the next tool call's hook brings it in.
      writeTurnRecord(project, SESSION, { phase: 'busy', at: Date.now() + 1, event: 'PostToolUse' });
      const busy = await a.tool('opencomms_send', { channel: 'bench', content: `busy ${rep}` });
      const hooked = await hookRun(project);
      if (!hooked.answer.includes(`busy ${rep}`)) throw new Error(`the hook did not bring the mail in: ${hooked.answer}`);
      if (rep < WARMUP) continue;
      samples.inbox.push(noticeAt - sentAt);
      samples.bell.push(bell.at - sentAt);
      samples.hook.push(hooked.at - busy.sentAt);
    }
  } finally {
    await Promise.all([a.close(), b.close(), inbox.close()]);
    fs.rmSync(project, { recursive: true, force: true });
  }
  return samples;
}

const sockDir = fs.mkdtempSync(join(os.tmpdir(), 'oc-bd-'));
try {
  process.stderr.write(`host-door bench: ${WARMUP} warm-up + ${REPS} samples, with an inbox that answers the auth line, then with a silent one\n`);
  const answering = await measure(true, sockDir);
  const silent = await measure(false, sockDir);
  const ms = (v) => v.toFixed(1);
  const row = (what, values, note) => [what, ms(quantile(values, 0.5)), ms(quantile(values, 0.95)), note];
  printTable([
    ['measure (ms)', 'p50', 'p95', 'note'],
    row('send written → inbox notice read (auth answered)', answering.inbox, 'idle session, its own server rings the inbox'),
    row('send written → inbox notice read (silent inbox)', silent.inbox, 'the notice follows the auth line after the auth wait'),
    row('send written → doorbell line read', answering.bell, 'the channel notification of the same send'),
    row('send written → PostToolUse hook answer read', answering.hook, 'busy session: a real hook process right after the send'),
  ]);
  console.log('\nThe host adds its own time on top. With the real hosts, interactive and idle in tmux against a stub model');
  console.log('(scripts/check-hosts.sh, CHECK_HOSTS_ONLY=doors), send -> the model\'s new request carrying the notice took');
  console.log('0.32-0.37 s for Claude Code 2.1.332 (its inbox) and 0.25-0.41 s for Codex 0.171.0 (codex queue), each run delivered once.');
} finally {
  fs.rmSync(sockDir, { recursive: true, force: true });
}
