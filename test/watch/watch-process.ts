// Runs `node dist/opencomms.js watch ...` as a real child process and reads
// its stdout line by line. Every wait is bounded and wakes on output or exit.
import { spawn, type ChildProcess } from 'node:child_process';
import type { TestContext } from 'node:test';
import { DIST, WAIT_MS } from '../helpers/server';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A clean environment: nothing inherited may name a project or a member. */
export function watchEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.OPENCOMMS_PROJECT_DIR;
  delete env.OPENCOMMS_MEMBER_ID;
  delete env.OPENCOMMS_PROJECT_ID;
  return env;
}

export class LineReader {
  readonly lines: string[] = [];
  stderr = '';
  isClosed = false;
  private buffered = '';
  private waiters: (() => void)[] = [];

  constructor(child: ChildProcess) {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) !== -1) {
        this.lines.push(this.buffered.slice(0, nl));
        this.buffered = this.buffered.slice(nl + 1);
      }
      this.wake();
    });
    // 'close' comes once every process holding the write end has exited.
    child.stdout!.on('close', () => {
      this.isClosed = true;
      this.wake();
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.wake();
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when `check` holds, re-checked on every output event; rejects after WAIT_MS. */
  waitFor<T>(what: string, check: () => T | undefined): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`)), WAIT_MS);
      const attempt = (): void => {
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        } else if (this.isClosed) {
          clearTimeout(timer);
          reject(new Error(`stdout closed while waiting for ${what}; stdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`));
        } else {
          this.waiters.push(attempt);
        }
      };
      attempt();
    });
  }

  /** The n-th line (1-based). */
  line(n: number): Promise<string> {
    return this.waitFor(`line #${n}`, () => this.lines[n - 1]);
  }

  /** The first line that parses as JSON and satisfies `match`. */
  event(what: string, match: (event: Record<string, any>) => boolean): Promise<Record<string, any>> {
    return this.waitFor(what, () => this.lines.map((l) => JSON.parse(l) as Record<string, any>).find(match));
  }

  /** The first line matching `pattern`. */
  matching(pattern: RegExp): Promise<string> {
    return this.waitFor(`a line matching ${pattern}`, () => this.lines.find((l) => pattern.test(l)));
  }
}

export class WatchProcess extends LineReader {
  readonly exited: Promise<Exit>;

  constructor(readonly child: ChildProcess) {
    super(child);
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** The exit, or a rejection after WAIT_MS. */
  exit(): Promise<Exit> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`watch did not exit within ${WAIT_MS} ms; stderr:\n${this.stderr}`)), WAIT_MS);
      void this.exited.then((exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
  }
}

/** Starts a watch with a stdin pipe; it is ended (gracefully, then by force) after the test. */
export function startWatch(t: TestContext, args: string[], extraEnv: Record<string, string | undefined> = {}): WatchProcess {
  const env = { ...watchEnv(), ...extraEnv };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, [DIST, 'watch', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const watch = new WatchProcess(child);
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
    await watch.exited;
    clearTimeout(timer);
  });
  return watch;
}
