// Shared by the benchmarks that drive real `dist/opencomms.js` servers over
// stdio (doorbell, watch): the child environment, a bounded wait, and a
// small client that stamps every stdout line with its arrival time.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/**
 * The environment for benchmark children: no spawn-push, no inherited
 * OpenComms identity or project, and (see bench/startup.mjs) no CA bundle to
 * parse at every boot unless BENCH_KEEP_ENV=1.
 */
export function childEnv() {
  const env = { ...process.env, OPENCOMMS_NO_SPAWN: '1' };
  delete env.OPENCOMMS_PROJECT_DIR;
  delete env.OPENCOMMS_MEMBER_ID;
  delete env.OPENCOMMS_PROJECT_ID;
  if (process.env.BENCH_KEEP_ENV !== '1') delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** A race against a timeout, so a benchmark can never hang. */
export function boundedBy(label, timeoutMs) {
  return (promise, what) => {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${label}: timed out waiting for ${what}`)), timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  };
}

/**
 * Reads a child's stdout as lines, each stamped with its arrival time and
 * passed through `parse`; `waitFor` resolves when `check` finds something,
 * re-checked on every chunk, and fails after the bench's timeout.
 */
export function stampedLines(child, parse, label, withTimeout) {
  const lines = [];
  let waiters = [];
  let buffered = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c) => { stderr += c; });
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    const at = performance.now();
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      lines.push({ at, ...parse(buffered.slice(0, nl)) });
      buffered = buffered.slice(nl + 1);
    }
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  });
  const waitFor = (what, check) => withTimeout(new Promise((resolve) => {
    const attempt = () => {
      const found = check();
      if (found !== undefined) resolve(found);
      else waiters.push(attempt);
    };
    attempt();
  }), `${what} (${label}); stderr:\n${stderr}`);
  return { lines, waitFor };
}

/** One server process for `memberId`; `lines` holds every stdout message with its arrival time. */
export function launchServer(server, project, memberId, withTimeout, extra = {}) {
  const child = spawn(process.execPath, [server, '--project', project, ...(extra.args ?? [])], {
    env: { ...childEnv(), OPENCOMMS_MEMBER_ID: memberId, ...(extra.env ?? {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const { lines, waitFor } = stampedLines(child, (text) => ({ message: JSON.parse(text) }), memberId, withTimeout);
  let nextId = 1;
  const write = (message) => {
    const sentAt = performance.now();
    child.stdin.write(`${JSON.stringify(message)}\n`);
    return sentAt;
  };
  const request = async (method, params) => {
    const id = nextId++;
    const sentAt = write({ jsonrpc: '2.0', id, method, params });
    const reply = await waitFor(`reply ${id}`, () => lines.find((l) => l.message.id === id));
    return { sentAt, reply };
  };
  const tool = async (name, args) => {
    const { sentAt, reply } = await request('tools/call', { name, arguments: args });
    const result = reply.message.result?.structuredContent;
    if (!result?.ok) throw new Error(`${name} failed: ${JSON.stringify(reply.message)}`);
    return { sentAt, reply, result };
  };
  const close = () => new Promise((resolve) => {
    child.on('exit', resolve);
    child.stdin.end();
  });
  return { child, lines, request, tool, write, waitFor, close };
}

/** The legacy handshake a host sends first: initialize, then notifications/initialized. */
export async function handshake(server) {
  await server.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } });
  server.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
}
