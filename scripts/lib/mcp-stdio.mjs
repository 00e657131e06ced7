// Newline-delimited JSON-RPC to a child process over its stdin and stdout,
// for the check-hosts scripts: our own server (dist/opencomms.js, MCP) and
// the hosts' own stdio servers (`codex app-server`). No dependencies.
import { spawn } from 'node:child_process';

/** How long a request waits for its reply, and untilEvent for its event. */
const REPLY_MS = 30_000;

/**
 * Starts `command args` in `cwd`. `request` resolves with the whole reply (a
 * reply with `error` included), or with an `error` of its own when the child
 * exits or stays silent for `replyMs`; messages without an id of ours (the
 * child's notifications) are kept in `events`, and `untilEvent` resolves with
 * the first that passes `check`, or rejects after `replyMs`. `close` ends
 * stdin and kills the child 3 s later if it is still there. With `jsonrpc`
 * false, messages go without the `"jsonrpc": "2.0"` member (Codex's dialect).
 */
export function startJsonLines(command, args, { cwd, stderr = 'inherit', jsonrpc = true, replyMs = REPLY_MS } = {}) {
  const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', stderr] });
  const waiters = new Map();
  const events = [];
  const eventWaiters = new Set();
  let buffered = '';
  let nextId = 1;
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      if (message.id !== undefined && waiters.has(message.id)) {
        waiters.get(message.id)(message);
        waiters.delete(message.id);
      } else if (message.method) {
        events.push(message);
        for (const waiter of [...eventWaiters]) waiter(message);
      }
    }
  });
  child.on('exit', (code) => {
    for (const w of waiters.values()) w({ error: { message: `${command} exited (${code})` } });
  });
  const send = (message) => child.stdin.write(`${JSON.stringify(jsonrpc ? { jsonrpc: '2.0', ...message } : message)}\n`);
  const request = (method, params) => {
    const id = nextId++;
    send({ id, method, params });
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ error: { message: `no reply to ${method} within ${replyMs / 1000} s` } }), replyMs);
      waiters.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  };
  const untilEvent = (check, what) => new Promise((resolve, reject) => {
    const seen = events.find(check);
    if (seen) return resolve(seen);
    const timer = setTimeout(() => {
      eventWaiters.delete(waiter);
      reject(new Error(`no ${what} within ${replyMs / 1000} s`));
    }, replyMs);
    const waiter = (message) => {
      if (!check(message)) return;
      clearTimeout(timer);
      eventWaiters.delete(waiter);
      resolve(message);
    };
    eventWaiters.add(waiter);
  });
  const close = () => {
    child.stdin.end();
    setTimeout(() => child.kill(), 3_000).unref();
  };
  return { child, send, request, events, untilEvent, close };
}

/**
 * Starts one OpenComms server, `node <dist> <serverArgs...>` in `project`,
 * as startJsonLines does; `initialize` runs the MCP handshake.
 */
export function startMcpServer(dist, project, serverArgs) {
  const peer = startJsonLines(process.execPath, [dist, ...serverArgs], { cwd: project });
  /** initialize, then notifications/initialized; throws when initialize fails. */
  const initialize = async (clientName) => {
    const init = await peer.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '0' } });
    if (init.error) throw new Error(`initialize: ${init.error.message}`);
    peer.send({ method: 'notifications/initialized' });
    return init;
  };
  return { server: peer.child, request: peer.request, initialize, close: peer.close };
}

/** The text of a tools/call reply's content blocks, one per line. */
export function replyText(reply) {
  return (reply.result?.content ?? []).map((c) => c.text ?? '').join('\n');
}
