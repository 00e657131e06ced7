// Codex's own door (reference E.9): `codex queue --thread <id> --message <text>`
// leaves pending input on the thread, which starts a turn at once in an idle
// interactive Codex, or at the next turn boundary. It exits 0 for a thread
// that exists whether or not a session runs it (only an unknown thread fails:
// "no rollout found"), so a queued notice is only "queued", never delivered:
// what the woken session does next is what delivers. Run with argv only,
// never through a shell; the binary is OPENCOMMS_CODEX_BIN, else `codex`.
import { MAX_PROBLEM_CHARS, type DoorOutcome } from './inbox-door';

/** How long `codex queue` may take before it counts as failed. */
export const CODEX_QUEUE_TIMEOUT_MS = 10_000;

export function codexBinOf(env: NodeJS.ProcessEnv): string {
  const bin = env.OPENCOMMS_CODEX_BIN?.trim();
  return bin ? bin : 'codex';
}

/**
 * Queues `notice` on `threadId`; `onWritten` runs as soon as `codex queue`
 * has started. Never throws.
 */
export function ringCodexQueue(bin: string, threadId: string, notice: string, env: NodeJS.ProcessEnv, onWritten: () => void = () => undefined): Promise<DoorOutcome> {
  return new Promise<DoorOutcome>((resolve) => {
    try {
      // node:child_process on first use: a server that never rings never loads it.
      const { execFile } = require('node:child_process') as typeof import('node:child_process');
      const child = execFile(bin, ['queue', '--thread', threadId, '--message', notice], { env, timeout: CODEX_QUEUE_TIMEOUT_MS, windowsHide: true }, (err, _stdout, stderr) => {
        if (!err) {
          resolve({ ok: true });
          return;
        }
        const code = (err as NodeJS.ErrnoException).code;
        const said = queueFailureLine(String(stderr ?? ''));
        const why = code === 'ENOENT' ? `${bin} was not found (set OPENCOMMS_CODEX_BIN to the codex binary)`
          : err.killed ? `${bin} queue did not finish within ${CODEX_QUEUE_TIMEOUT_MS / 1000} s`
          : `${bin} queue failed (exit ${String(code ?? err.message)})${said === '' ? '' : `: ${said}`}`;
        resolve({ ok: false, problem: why });
      });
      // The woken turn can pull before `codex queue` exits (it starts the turn, then returns): the ring
      // is recorded from the start, or that pull finds the mail unrung and its path loses the step.
      child.once('spawn', onWritten);
    } catch (err) {
      resolve({ ok: false, problem: `${bin} queue could not start: ${err instanceof Error ? err.message : String(err)}` });
    }
  });
}

/**
 * The line of `codex queue`'s stderr that says what went wrong: its `Error:`
 * line, else its first line that is not a warning (Codex may open with a
 * warning about its helper binaries that says nothing about the queue).
 */
function queueFailureLine(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const said = lines.find((l) => /^error\b/i.test(l)) ?? lines.find((l) => !/^warning\b/i.test(l)) ?? lines[0] ?? '';
  return said.slice(0, MAX_PROBLEM_CHARS);
}
