// Helpers for the `hook --wait` tests: waiting for the state file to reach a
// condition (driven by the state watcher, never by sleeping) and running
// runHook with the wait-only options the shared helper does not pass.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { watchStateDir } from '../../src/local/state-dir-watch';
import type { State } from '../../src/engine/index';
import { runHook, type HookOptions } from '../../src/hooks/index';
import { openStore } from '../../src/store/index';
import { STATE_DIR_NAME } from '../../src/local/state-dir';

export const BOUND_MS = 10_000;

/** Resolves with the state once `check` holds for it; re-checked on every change to state.json; rejects after `timeoutMs`. */
export function untilState(project: string, what: string, check: (state: State) => boolean, timeoutMs = BOUND_MS): Promise<State> {
  const store = openStore({ projectDir: project });
  return new Promise((resolve, reject) => {
    const watcher = watchStateDir(join(project, STATE_DIR_NAME), { pollMs: 200 });
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`timed out waiting for ${what}; state: ${JSON.stringify(store.snapshot())}`));
    }, timeoutMs);
    const attempt = (): void => {
      const state = store.snapshot();
      if (!check(state)) return;
      clearTimeout(timer);
      watcher.close();
      resolve(state);
    };
    watcher.onChange(attempt);
    attempt();
  });
}

/** The waiter lease on `memberId` in `state`, if any. */
export function leaseOf(state: State, memberId: string) {
  return state.wait_leases?.[memberId];
}

/** Rejects when `promise` has not settled within `ms`, so no test waits unbounded. */
export function bounded<T>(promise: Promise<T>, what: string, ms = BOUND_MS): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
    }),
  ]);
}

export interface WaitRun {
  code: number;
  out: string;
  warnings: string[];
}

/** runHook --wait in this process with the event as stdin and any extra HookOptions (parentPid, onSignal). */
export async function runWait(project: string, event: Record<string, unknown>, extra: Partial<HookOptions> = {}): Promise<WaitRun> {
  let out = '';
  const warnings: string[] = [];
  const code = await runHook({
    explicitProjectDir: project, cwd: tmpdir(), env: {}, input: JSON.stringify(event), wait: true,
    write: (text) => { out += text; }, warn: (text) => warnings.push(text), ...extra,
  });
  return { code, out, warnings };
}
