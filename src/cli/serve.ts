// Wires stdin/stdout, the JSON-RPC dispatcher and the MCP method table. The
// tools and the push paths (serve-runtime.ts) are required on first need, so
// the initialize reply costs little more than Node itself.
import { serveStdio } from '../transport/stdio';
import { createMcpMethodTable, type ToolTable } from '../mcp/server';
import { stdinInput, type InputSource } from '../transport/input';
import { fstatSync } from 'node:fs';
import { CHANNEL_CAPABILITY } from '../delivery/channel-capability';
import { describeEnvIdentity } from '../tools/env-identity';
import type { MethodTable } from '../jsonrpc/dispatcher';
import type { ServeRuntime } from './serve-runtime';
import { describeSelection, type StoreSelection } from '../store';

export interface ServeOptions {
  projectDir: string;
  /** The store (--store / OPENCOMMS_STORE); the project's files when absent. */
  selection?: StoreSelection;
  host: string;
  version: string;
  env: NodeJS.ProcessEnv;
  stdin: () => NodeJS.ReadStream;
  /** What the server reads; fd 0 (with `stdin` as its stream) when absent. Tests serve over in-memory streams. */
  input?: InputSource;
  stdout: NodeJS.WritableStream;
  log: (line: string) => void;
  exit: (code: number) => void;
  onSignal: (signal: 'SIGTERM' | 'SIGINT', handler: () => void) => void;
}

export function runServe(options: ServeOptions): void {
  const { log } = options;
  let isClosed = false;
  let runtime: ServeRuntime | undefined;
  // Nothing here touches the disk or evaluates the tools: the store, the
  // identity pin and the tools load when the first tools request (or the end
  // of the handshake) needs them.
  const runtimeNow = (): ServeRuntime => {
    runtime ??= (require('./serve-runtime') as typeof import('./serve-runtime')).createServeRuntime({
      projectDir: options.projectDir,
      selection: options.selection,
      host: options.host,
      env: options.env,
      log,
      notify: (method, params) => server.notify(method, params),
    });
    return runtime;
  };
  const tools: ToolTable = {
    list: () => runtimeNow().tools.list(),
    has: (name) => runtimeNow().tools.has(name),
    call: (name, args, request) => runtimeNow().tools.call(name, args, request),
  };
  const table = createMcpMethodTable({
    name: 'opencomms',
    version: options.version,
    tools,
    experimental: { [CHANNEL_CAPABILITY]: {} },
  });
  // The doorbell reads the state and sets up a watch: that waits until the
  // host has finished its handshake, so no notification precedes the
  // initialize result.
  const startPush = (): void => {
    if (isClosed) return;
    try {
      runtimeNow().startPush();
    } catch (err) {
      // Runs from setImmediate: a throw here would end the process. Tools
      // calls report the same fault to the host as internal errors.
      log(`push delivery not started: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const server = serveStdio({
    input: options.input ?? stdinInput(0, options.stdin),
    output: options.stdout,
    table: afterHandshake(table, () => setImmediate(startPush)),
    log,
    onClosed: () => {
      if (isClosed) return;
      isClosed = true;
      // Leaving presence is one bounded write, so the member is away from this moment (engine/presence).
      void (runtime?.close() ?? Promise.resolve()).finally(() => options.exit(0));
    },
  });
  options.onSignal('SIGTERM', () => server.stop('SIGTERM'));
  options.onSignal('SIGINT', () => server.stop('SIGINT'));
  if (options.input === undefined && isInteractive()) {
    log('this is an MCP stdio server: add it to a host config (see README "Set up one host, then a second"); it is serving stdin now');
  }
  // The start-up line waits for the first turn of the event loop: opening
  // stderr costs about a millisecond, and a host that wrote initialize at
  // spawn gets its reply first.
  setImmediate(() => {
    const where = describeSelection(options.selection, options.projectDir).banner;
    log(`serving project ${options.projectDir}${where} as host "${options.host}"; ${describeEnvIdentity(options.env.OPENCOMMS_MEMBER_ID, options.host)}`);
  });
}

/**
 * Calls `onHandshakeDone` once: at notifications/initialized, or at the
 * first request other than initialize (modern clients and hosts that skip
 * the notification).
 */
function afterHandshake(table: MethodTable, onHandshakeDone: () => void): MethodTable {
  let isDone = false;
  const done = (): void => {
    if (isDone) return;
    isDone = true;
    onHandshakeDone();
  };
  return {
    requestHandler(method, params) {
      if (method !== 'initialize') done();
      return table.requestHandler(method, params);
    },
    notificationHandler(method) {
      if (method === 'notifications/initialized') done();
      return table.notificationHandler?.(method);
    },
  };
}

/** Whether stdin is a terminal. node:tty is loaded only for character devices: it costs start-up time. */
function isInteractive(): boolean {
  try {
    if (!fstatSync(0).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  const tty = require('node:tty') as typeof import('node:tty');
  return tty.isatty(0);
}
