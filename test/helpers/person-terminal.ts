// Runs a command as a person at a terminal would: under `script` (util-linux),
// which opens a pseudo-terminal, makes it the controlling terminal of a new
// session and runs the command in its foreground. A person action refuses
// without such a terminal (cli/person), and the test runner has none.
// The command's stdout and stderr go to files, not through the terminal, so
// they come back apart and byte for byte (a terminal would turn \n into \r\n).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, WAIT_MS, type Finished } from './server';

/** The command as one POSIX shell word. */
export function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Whether `script` from util-linux is here to give a command a terminal. */
export function hasScript(): boolean {
  const ran = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return ran.status === 0 && /util-linux/.test(ran.stdout);
}

/** Every variable by which an agent host gives itself away: a person's terminal has none of them. */
export const AGENT_HOST_VARIABLES = [
  'CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_MESSAGING_SOCKET', 'CODEX_THREAD_ID', 'CODEX_SANDBOX',
  'CODEX_SANDBOX_NETWORK_DISABLED', 'CODEX_CI', 'GEMINI_CLI', 'OPENCODE', 'OPENCODE_SESSION_ID',
] as const;

/**
 * This process's environment without the agent hosts' variables, a shell
 * for `script` to run the command with, then `extra` (undefined removes a name).
 */
function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = { ...process.env, SHELL: '/bin/sh' };
  for (const name of AGENT_HOST_VARIABLES) delete env[name];
  Object.assign(env, extra);
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env as NodeJS.ProcessEnv;
}

/**
 * Runs `command` (a /bin/sh command line) under `script` with `input` on its
 * stdin (a file: the terminal stays the controlling terminal). Resolves with
 * the command's exit code and what it wrote; rejects after WAIT_MS.
 */
export function runInTerminal(command: string, options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): Promise<Finished> {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-tty-'));
  const [input, out, err] = ['in', 'out', 'err'].map((name) => join(dir, name)) as [string, string, string];
  writeFileSync(input, options.input ?? '');
  const line = `${command} <${shellWord(input)} >${shellWord(out)} 2>${shellWord(err)}`;
  const child = spawn('script', ['-qec', line, '/dev/null'], { env: cleanEnv(options.env ?? {}), cwd: options.cwd, stdio: 'ignore' });
  return new Promise<Finished>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`script -qec ${line} did not exit within ${WAIT_MS} ms`));
    }, WAIT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      const read = (path: string): string => {
        try {
          return readFileSync(path, 'utf8');
        } catch {
          return '';
        }
      };
      const finished = { code, stdout: read(out), stderr: read(err) };
      rmSync(dir, { recursive: true, force: true });
      resolve(finished);
    });
  });
}

/** The opencomms command line (dist/opencomms.js and `args`) as one shell command. */
export function cliCommand(args: readonly string[]): string {
  return [process.execPath, DIST, ...args].map(shellWord).join(' ');
}

/** Runs `opencomms <args>` at a terminal of its own, as a person would type it. */
export function runCliInTerminal(args: string[], options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): Promise<Finished> {
  return runInTerminal(cliCommand(args), options);
}
