// Wires stdin/stdout, the JSON-RPC dispatcher, the MCP method table and the tools.
import { serveStdio } from '../transport/stdio';
import { createMcpMethodTable } from '../mcp/server';
import { ToolRegistry } from '../tools/registry';
import { buildTools } from '../tools/catalog';
import { ToolServices } from '../tools/services';
import { stdinInput } from '../transport/input';
import { fstatSync } from 'node:fs';

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
  });
  let isClosed = false;
  const server = serveStdio({
    input: stdinInput(0, options.stdin),
    output: options.stdout,
    table,
    log,
    onClosed: () => {
      if (isClosed) return;
      isClosed = true;
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
