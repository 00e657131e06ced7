// Wires stdin/stdout, the JSON-RPC dispatcher, the MCP method table and the tools.
import { serveStdio } from '../transport/stdio';
import { createMcpMethodTable } from '../mcp/server';
import { ToolRegistry } from '../tools/registry';
import { buildTools } from '../tools/catalog';
import { ToolServices } from '../tools/services';
import { stdinInput } from '../transport/input';
import { fstatSync } from 'node:fs';
import { CHANNEL_CAPABILITY, startDoorbell, type Doorbell } from '../delivery/doorbell';
import { watchStateDir, type StateWatcher } from '../delivery/watcher';
import type { MethodTable } from '../jsonrpc/dispatcher';

export interface ServeOptions {
  projectDir: string;
  host: string;
  version: string;
  env: NodeJS.ProcessEnv;
  stdin: () => NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  log: (line: string) => void;
  exit: (code: number) => void;
  onSignal: (signal: 'SIGTERM' | 'SIGINT', handler: () => void) => void;
}

export function runServe(options: ServeOptions): void {
  const { log } = options;
  // Nothing here touches the disk: the store and identity load on first use,
  // so the first reply costs no more than Node's own start-up.
  const services = new ToolServices({
    projectDir: options.projectDir,
    host: options.host,
    env: options.env,
    log,
  });
  const table = createMcpMethodTable({
    name: 'opencomms',
    version: options.version,
    tools: new ToolRegistry(buildTools(services)),
    experimental: { [CHANNEL_CAPABILITY]: {} },
  });
  let isClosed = false;
  let doorbell: Doorbell | undefined;
  let watcher: StateWatcher | undefined;
  // The doorbell reads the state and sets up a watch: that waits until the
  // host has finished its handshake, so the first reply costs nothing extra
  // and no notification precedes the initialize result.
  const startBell = (): void => {
    if (isClosed || doorbell) return;
    // One watch of .opencomms serves both push paths of this process.
    const shared = watchStateDir(services.store.stateDir, { log });
    watcher = shared;
    services.spawnDriver?.attach(shared);
    doorbell = startDoorbell({
      watch: () => shared,
      stateDir: services.store.stateDir,
      snapshot: () => services.store.snapshot(),
      memberId: () => {
        const pinned = services.pin();
        return 'memberId' in pinned ? pinned.memberId : undefined;
      },
      notify: (method, params) => server.notify(method, params),
      log,
    });
  };
  const server = serveStdio({
    input: stdinInput(0, options.stdin),
    output: options.stdout,
    table: afterHandshake(table, () => setImmediate(startBell)),
    log,
    onClosed: () => {
      if (isClosed) return;
      isClosed = true;
      doorbell?.close();
      // Only a server that got as far as its watch has a spawn driver to stop.
      if (watcher) services.spawnDriver?.close();
      watcher?.close();
      options.exit(0);
    },
  });
  options.onSignal('SIGTERM', () => server.stop('SIGTERM'));
  options.onSignal('SIGINT', () => server.stop('SIGINT'));
  if (isInteractive()) {
    log('this is an MCP stdio server: add it to a host config (see README "Host setup"); it is serving stdin now');
  }
  log(`serving project ${options.projectDir} as host "${options.host}"; ${services.describeIdentity()}`);
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
