// A small MCP client for the check-hosts scripts: starts one OpenComms server
// (dist/opencomms.js) as a child process and talks newline-delimited JSON-RPC
// to it over its stdin and stdout. No dependencies.
import { spawn } from 'node:child_process';

/** How long a request waits for its reply. */
const REPLY_MS = 30_000;

/**
 * Starts `node <dist> <serverArgs...>` in `project`. `request` resolves with
 * the whole reply (a reply with `error` included), or with an `error` of its
 * own when the server exits or stays silent for 30 s; `close` ends stdin and
 * kills the server 3 s later if it is still there.
 */
export function startMcpServer(dist, project, serverArgs) {
  const server = spawn(process.execPath, [dist, ...serverArgs], { cwd: project, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiters = new Map();
  let buffered = '';
  let nextId = 1;
  server.stdout.setEncoding('utf8').on('data', (chunk) => {
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
      }
    }
  });
  server.on('exit', (code) => {
    for (const w of waiters.values()) w({ error: { message: `server exited (${code})` } });
  });
  const send = (message) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const request = (method, params) => {
    const id = nextId++;
    send({ id, method, params });
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ error: { message: `no reply to ${method} within ${REPLY_MS / 1000} s` } }), REPLY_MS);
      waiters.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  };
  /** initialize, then notifications/initialized; throws when initialize fails. */
  const initialize = async (clientName) => {
    const init = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '0' } });
    if (init.error) throw new Error(`initialize: ${init.error.message}`);
    send({ method: 'notifications/initialized' });
    return init;
  };
  const close = () => {
    server.stdin.end();
    setTimeout(() => server.kill(), 3_000).unref();
  };
  return { server, request, initialize, close };
}

/** The text of a tools/call reply's content blocks, one per line. */
export function replyText(reply) {
  return (reply.result?.content ?? []).map((c) => c.text ?? '').join('\n');
}
