// A reader that goes away (`opencomms status | head -1`) ends a command
// quietly: no "write EPIPE" crash, no process left running, exit status 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { DIST, tempProject, WAIT_MS } from '../helpers/server';
import { watchEnv } from '../watch/watch-process';

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the CLI with its stdout's read end closed before it writes a byte. */
function runWithClosedStdout(args: string[]): Promise<Ended> {
  const child = spawn(process.execPath, [DIST, ...args], { env: watchEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`opencomms ${args.join(' ')} still ran ${WAIT_MS} ms after its reader went; stderr: ${stderr}`));
    }, WAIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

const COMMANDS: [string, string[]][] = [
  ['status', ['status']],
  ['status --json', ['status', '--json']],
  ['doctor', ['doctor']],
  ['doctor --json', ['doctor', '--json']],
  ['install --dry-run', ['install', 'claude-code', '--dry-run']],
  ['uninstall --dry-run', ['uninstall', 'codex', '--dry-run']],
  ['--help', ['--help']],
  ['watch --json', ['watch', '--json']],
];

for (const [name, args] of COMMANDS) {
  test(`${name} on a closed stdout ends quietly with status 0`, async (t) => {
    const project = tempProject(t);
    const ended = await runWithClosedStdout([...args, '--project', project]);
    assert.equal(ended.stderr, '', 'something was printed on stderr');
    assert.deepEqual([ended.code, ended.signal], [0, null]);
  });
}

test('watch --json whose reader closes after the first line (| head -1) ends by itself with status 0', async (t) => {
  const project = tempProject(t);
  const child = spawn(process.execPath, [DIST, 'watch', '--json', '--project', project], { env: watchEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])));
  t.after(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve) => child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    if (chunk.includes('\n')) resolve();
  }));
  child.stdout.destroy(); // the reader has its line and goes; nothing in the project changes after this
  const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
  const [code, signal] = await exited;
  clearTimeout(timer);
  assert.deepEqual([code, signal], [0, null], `still running after ${WAIT_MS} ms, or crashed; stderr: ${stderr}`);
  assert.equal(stderr, '');
});
