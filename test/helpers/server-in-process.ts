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
import { holdProject, tempProject, WAIT_MS, type Json } from './server';

const VERSION = (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

export interface InProcessOptions {
  project?: string;
  host?: string;
  /** Laid over process.env, an undefined value removing the name, as ServerProcess does. */
  env?: Record<string, string | undefined>;
}

export class InProcessServer {
  readonly replies: Json[] = [];
  readonly stdoutLines: string[] = [];
  stderr = '';
  private readonly input = new PassThrough();
  private buffered = '';
  private waiters: (() => void)[] = [];
  private nextId = 1;
  private isClosed = false;
  readonly exited: Promise<void>;

  constructor(readonly project: string, options: InProcessOptions = {}) {
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const log = (line: string): void => {
      this.stderr += `${line}\n`;
      this.wake();
    };
    const output = new PassThrough();
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) !== -1) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.stdoutLines.push(line);
        this.replies.push(JSON.parse(line));
      }
      this.wake();
    });
    // The store as main.ts picks it for serve: OPENCOMMS_STORE, else the project's files.
    const selection = resolveStoreSelection({ flag: undefined, env });
    let resolveExited!: () => void;
    this.exited = new Promise((resolve) => (resolveExited = resolve));
    runServe({
      projectDir: project, selection, host: options.host ?? 'mcp', version: VERSION, env, log,
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

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when `check` holds, re-checked on every output; rejects after WAIT_MS or once the server closed. */
  waitFor<T>(what: string, check: () => T | undefined, timeoutMs = WAIT_MS): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; log:\n${this.stderr}`)), timeoutMs);
      const attempt = (): void => {
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        } else if (this.isClosed) {
          clearTimeout(timer);
          reject(new Error(`server closed while waiting for ${what}; log:\n${this.stderr}`));
        } else {
          this.waiters.push(attempt);
        }
      };
      attempt();
    });
  }

  /** Whether the server still reads its input (it has not closed). */
  get isServing(): boolean {
    return !this.isClosed;
  }

  writeRaw(text: string | Buffer): void {
    this.input.write(text);
  }

  send(message: Json): void {
    this.writeRaw(`${JSON.stringify(message)}\n`);
  }

  reply(id: string | number): Promise<Json> {
    return this.waitFor(`reply ${id}`, () => this.replies.find((r) => r.id === id));
  }

  async request(method: string, params?: Json): Promise<Json> {
    const id = this.nextId++;
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.reply(id);
  }

  async initialize(version = '2025-11-25'): Promise<Json> {
    const reply = await this.request('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'test', version: '0' } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply;
  }

  async callTool(name: string, args: Json = {}): Promise<Json> {
    const reply = await this.request('tools/call', { name, arguments: args });
    if (reply.error) throw new Error(`tools/call ${name} failed: ${JSON.stringify(reply.error)}`);
    return reply.result.structuredContent;
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
