// The real server (src/cli/serve.ts runServe: the JSON-RPC transport, the MCP
// method table, the tools and the push paths on their shared watch), run in
// this process over two in-memory streams instead of stdin and stdout.
// It answers to the same calls as ServerProcess, so a table of cases needs no
// Node start-up (and, under c8, no coverage file) per server. What only a
// real process shows (start-up, exit, signals, the host process as the
// session, byte-level framing on a pipe) stays with ServerProcess: each file
// that moves its tables here keeps end-to-end tests of its paths.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { TestContext } from 'node:test';
import { runServe } from '../../src/cli/serve';
import { streamInput } from '../../src/transport/input';
import { resolveStoreSelection } from '../../src/store';
import { McpPeer } from './mcp-peer';
import { holdProject, tempProject } from './server';

const VERSION = (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

export interface InProcessOptions {
  project?: string;
  host?: string;
  /** Laid over process.env, an undefined value removing the name, as ServerProcess does. */
  env?: Record<string, string | undefined>;
}

export class InProcessServer extends McpPeer {
  private readonly input = new PassThrough();
  private isClosed = false;
  readonly exited: Promise<void>;

  constructor(readonly project: string, options: InProcessOptions = {}) {
    super();
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const output = new PassThrough();
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => this.takeOutput(chunk));
    // The store as main.ts picks it for serve: OPENCOMMS_STORE, else the project's files.
    const selection = resolveStoreSelection({ flag: undefined, env });
    let resolveExited!: () => void;
    this.exited = new Promise((resolve) => (resolveExited = resolve));
    runServe({
      projectDir: project, selection, host: options.host ?? 'mcp', version: VERSION, env,
      log: (line) => this.takeLog(`${line}\n`),
      stdin: () => { throw new Error('the in-process server reads its own stream'); },
      input: streamInput(this.input),
      stdout: output,
      // Called once the input has ended and the server has left its members' presence.
      exit: () => {
        this.isClosed = true;
        resolveExited();
        this.wake();
      },
      onSignal: () => undefined,
    });
  }

  protected hasEnded(): boolean {
    return this.isClosed;
  }

  /** Whether the server still reads its input (it has not closed). */
  get isServing(): boolean {
    return !this.isClosed;
  }

  writeRaw(text: string | Buffer): void {
    this.input.write(text);
  }

  /** Ends the input as a host closing stdin would; resolves once the server has left its members' presence. */
  async close(): Promise<void> {
    this.input.end();
    return this.exited;
  }
}

/** A server in this process on `options.project` (a fresh project when absent), closed after the test and before its project is removed. */
export function startInProcess(t: TestContext, options: InProcessOptions = {}): InProcessServer {
  const project = options.project ?? tempProject(t);
  const server = new InProcessServer(project, options);
  holdProject(project, () => server.close());
  t.after(() => server.close());
  return server;
}
