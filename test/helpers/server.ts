// Drives the shipped dist/opencomms.js as a child process over real pipes.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export const DIST = join(__dirname, '..', '..', '..', 'dist', 'opencomms.js');
export const WAIT_MS = 10_000;

export type Json = Record<string, any>;

/** How each server started on a project directory stops, so the directory outlives them. */
const serversByProject = new Map<string, Set<() => Promise<unknown>>>();

/** Has tempProject's clean-up stop `stop`'s server (one in this process, say) before it removes `project`. */
export function holdProject(project: string, stop: () => Promise<unknown>): void {
  const onProject = serversByProject.get(project) ?? new Set();
  onProject.add(stop);
  serversByProject.set(project, onProject);
}

/**
 * A fresh project directory, removed after the test once every server started
 * on it has stopped: a server may still be committing a pull whose reply the
 * test already read, and a directory removed under it would not be empty.
 */
export function tempProject(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-test-'));
  t.after(async () => {
    await Promise.all([...(serversByProject.get(dir) ?? [])].map((stop) => stop()));
    serversByProject.delete(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  });
  return dir;
}

/** Closes stdin so the server stops as a host would stop it (and writes its coverage); SIGKILL only if it hangs. */
async function stopGracefully(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.stdin.end();
  const timer = setTimeout(() => server.child.kill('SIGKILL'), WAIT_MS);
  await server.exited;
  clearTimeout(timer);
}

export interface ServerOptions {
  project?: string;
  /** The bundle to run; dist/opencomms.js by default. */
  script?: string;
  args?: string[];
  env?: Record<string, string | undefined>;
  /** The folder the server starts in (a host's choice); the test's own by default. */
  cwd?: string;
}

export class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly replies: Json[] = [];
  readonly stdoutLines: string[] = [];
  stderr = '';
  private buffered = '';
  private waiters: (() => void)[] = [];
  private nextId = 1;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly project: string, options: ServerOptions = {}) {
    const env: Record<string, string | undefined> = { ...process.env, ...options.env };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    this.child = spawn(process.execPath, [options.script ?? DIST, ...(options.args ?? ['--project', project])], {
      env: env as NodeJS.ProcessEnv,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
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
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
      this.wake();
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.child.on('exit', () => this.wake());
    holdProject(project, () => stopGracefully(this));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when `check` holds, re-checked on every output event; rejects after WAIT_MS. */
  waitFor<T>(what: string, check: () => T | undefined, timeoutMs = WAIT_MS): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`)), timeoutMs);
      const attempt = (): void => {
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        } else if (this.child.exitCode !== null || this.child.signalCode !== null) {
          clearTimeout(timer);
          reject(new Error(`server exited while waiting for ${what}; stderr:\n${this.stderr}`));
        } else {
          this.waiters.push(attempt);
        }
      };
      attempt();
    });
  }

  writeRaw(text: string | Buffer): void {
    this.child.stdin.write(text);
  }

  send(message: Json): void {
    this.writeRaw(`${JSON.stringify(message)}\n`);
  }

  /** The reply whose id is `id`. */
  reply(id: string | number): Promise<Json> {
    return this.waitFor(`reply ${id}`, () => this.replies.find((r) => r.id === id));
  }

  /** The n-th reply overall (0-based), whatever its id. */
  nthReply(n: number): Promise<Json> {
    return this.waitFor(`reply #${n}`, () => this.replies[n]);
  }

  async request(method: string, params?: Json): Promise<Json> {
    const id = this.nextId++;
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.reply(id);
  }

  async initialize(version = '2025-11-25'): Promise<Json> {
    const reply = await this.request('initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'test', version: '0' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply;
  }

  /** Calls a tool and returns its ToolResult (structuredContent). */
  async callTool(name: string, args: Json = {}): Promise<Json> {
    const reply = await this.request('tools/call', { name, arguments: args });
    if (reply.error) throw new Error(`tools/call ${name} failed: ${JSON.stringify(reply.error)}`);
    return reply.result.structuredContent;
  }

  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin.end();
    return this.exited;
  }
}

export function startServer(t: TestContext, options: ServerOptions & { project?: string } = {}): ServerProcess {
  const project = options.project ?? tempProject(t);
  const server = new ServerProcess(project, options);
  t.after(() => stopGracefully(server));
  return server;
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Feeds `input` to a spawned child and collects its output until it exits; kills it after WAIT_MS. */
export function runToExit(child: ChildProcess, input: string, what: string): Promise<Finished> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not exit within ${WAIT_MS} ms; stderr: ${stderr}`));
    }, WAIT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

/** Runs the CLI to completion and returns what it printed. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string; script?: string } = {},
): Promise<Finished> {
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, [options.script ?? DIST, ...args], { env: env as NodeJS.ProcessEnv, cwd: options.cwd });
  return runToExit(child, options.input ?? '', `opencomms ${args.join(' ')}`);
}
