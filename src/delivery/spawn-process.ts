// Running the host CLI: one child per delivery, argv only (shell: false),
// stdin/stdout/stderr ignored so no output is ever held or stored, killed
// when it outlives its timeout. The driver sees only how it ended.

export interface SpawnRequest {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
}

/** How a child ended. `errorCode` is set when it could not be started (ENOENT, EACCES, EINVAL…). */
export interface SpawnOutcome {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  errorCode?: string;
}

/** The seam tests replace: start the request and report how it ended. Never rejects. */
export type SpawnFn = (request: SpawnRequest) => Promise<SpawnOutcome>;

/** After SIGTERM at the timeout, how long a child gets before SIGKILL. */
const KILL_GRACE_MS = 10_000;

export const spawnHostProcess: SpawnFn = (request) => new Promise((resolve) => {
  let timedOut = false;
  let settled = false;
  const timers: NodeJS.Timeout[] = [];
  const finish = (outcome: SpawnOutcome): void => {
    if (settled) return;
    settled = true;
    for (const timer of timers) clearTimeout(timer);
    resolve(outcome);
  };
  let child: import('node:child_process').ChildProcess;
  try {
    // node:child_process is loaded here, not at start-up: it costs several ms to load.
    const { spawn } = require('node:child_process') as typeof import('node:child_process');
    child = spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: 'ignore',
      shell: false,
      windowsHide: true,
    });
  } catch (err) {
    // Synchronous refusals (an argument with a NUL, a too-long argv on some platforms).
    finish({ code: null, signal: null, timedOut: false, errorCode: String((err as NodeJS.ErrnoException).code ?? 'spawn_failed') });
    return;
  }
  child.once('error', (err: NodeJS.ErrnoException) => {
    finish({ code: null, signal: null, timedOut, errorCode: String(err.code ?? 'spawn_failed') });
  });
  child.once('exit', (code, signal) => finish({ code, signal, timedOut }));
  const kill = setTimeout(() => {
    timedOut = true;
    child.kill('SIGTERM');
    const hard = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    hard.unref();
    timers.push(hard);
  }, request.timeoutMs);
  kill.unref();
  timers.push(kill);
});

/** Whether the host took the batch: a clean exit and nothing else. */
export function isAccepted(outcome: SpawnOutcome): boolean {
  return outcome.code === 0 && !outcome.timedOut && outcome.errorCode === undefined;
}

/**
 * A failure in words that are safe to store and show to peers: exit code,
 * signal, timeout or start error only; never the argv (it holds the mail)
 * nor anything the child printed.
 */
export function describeFailure(outcome: SpawnOutcome): string {
  if (outcome.timedOut) return 'host CLI failed (timed out)';
  if (outcome.errorCode !== undefined) {
    const code = outcome.errorCode.replace(/[^A-Za-z0-9_]/g, '').slice(0, 32);
    const hint = code === 'ENOENT' || code === 'EINVAL' || code === 'EACCES'
      ? '; set OPENCOMMS_CLAUDE_BIN / OPENCOMMS_CODEX_BIN to a runnable binary (Windows .cmd shims cannot run without a shell)'
      : '';
    return `host CLI could not start (${code || 'error'})${hint}`;
  }
  if (outcome.signal !== null) return `host CLI failed (signal ${outcome.signal.replace(/[^A-Z0-9]/g, '')})`;
  return `host CLI failed (exit code ${String(outcome.code)})`;
}
