// Finding a host's CLI on PATH (by scanning the PATH entries ourselves, no
// `which`) and running it with an argv (no shell).
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The absolute path of `name` in the PATH of `env`, or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  const path = env.PATH ?? env.Path ?? '';
  // Only directly executable files: a .cmd/.bat shim would need a shell on Windows.
  const names = platform === 'win32' ? [`${name}.exe`, name] : [name];
  for (const dir of path.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue; // a relative entry would depend on the cwd
    for (const candidate of names) {
      const full = join(dir, candidate);
      try {
        if (!statSync(full).isFile()) continue;
        accessSync(full, constants.X_OK);
        return full;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** How a command line reads when printed for the user to copy (POSIX quoting where needed). */
export function displayCommand(program: string, args: readonly string[]): string {
  const quote = (word: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return [program, ...args].map(quote).join(' ');
}

export interface RunResult {
  ok: boolean;
  detail: string;
}

/** Runs `program args` in `cwd`, passing its output on; ok when it exits 0. */
export function runProgram(program: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv,
  write: (text: string) => void, warn: (text: string) => void): RunResult {
  // Loaded on use: node:child_process costs start-up time for every other command.
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  const result = spawnSync(program, [...args], { cwd, env, encoding: 'utf8', timeout: 120_000, windowsHide: true });
  if (result.stdout) write(result.stdout.endsWith('\n') ? result.stdout : `${result.stdout}\n`);
  if (result.stderr) warn(result.stderr);
  if (result.error) return { ok: false, detail: result.error.message };
  if (result.status !== 0) return { ok: false, detail: result.signal ? `killed by ${result.signal}` : `exit code ${result.status}` };
  return { ok: true, detail: 'exit code 0' };
}
