// Runs a command that takes no input to its end, with a deadline.
import { spawn, type SpawnOptions } from 'node:child_process';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** stdin is closed from the start (no pipe to break when the command never reads it); killed after `waitMs`. */
export function runToEnd(command: string, args: string[], options: SpawnOptions & { waitMs: number }): Promise<Ran> {
  const { waitMs, ...spawnOptions } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not exit within ${waitMs} ms; stderr: ${stderr}`));
    }, waitMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
