// Drives the shipped dist/opencomms.js as a child process over real pipes.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export const DIST = join(__dirname, '..', '..', '..', 'dist', 'opencomms.js');
import { McpPeer, WAIT_MS } from './mcp-peer';
export { WAIT_MS };

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

export class ServerProcess extends McpPeer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly project: string, options: ServerOptions = {}) {
    super();
    const env: Record<string, string | undefined> = { ...process.env, ...options.env };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    this.child = spawn(process.execPath, [options.script ?? DIST, ...(options.args ?? ['--project', project])], {
      env: env as NodeJS.ProcessEnv,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.takeOutput(chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => this.takeLog(chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.child.on('exit', () => this.wake());
    holdProject(project, () => stopGracefully(this));
  }

  protected hasEnded(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  writeRaw(text: string | Buffer): void {
    this.child.stdin.write(text);
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

/**
 * The environment of a CLI run in a test: process.env, then
 * OPENCOMMS_COMPILE_CACHE=0, then `overrides` (an undefined value removes the
 * name). Install names a compile cache in what it writes only where the Node
 * running it has one (22.1 and later), so unpinned, the configs a test
 * compares would differ from Node to Node, and install would make a cache
 * folder in the real home. The compile cache's own tests set the name, or
 * remove it to let the Node decide.
 */
export function cliEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = { ...process.env, OPENCOMMS_COMPILE_CACHE: '0', ...overrides };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env as NodeJS.ProcessEnv;
}

/** Runs the CLI to completion and returns what it printed. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string; script?: string } = {},
): Promise<Finished> {
  const child = spawn(process.execPath, [options.script ?? DIST, ...args], { env: cliEnv(options.env), cwd: options.cwd });
  return runToExit(child, options.input ?? '', `opencomms ${args.join(' ')}`);
}
