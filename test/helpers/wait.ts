// The suite's one wait for a condition that no event announces (a tmux pane,
// a file another process makes, a key on a Redis server). Where the product
// offers an event (a reply, a line on stderr, 'exit', an fs.watch), tests wait
// on that instead.
import { setTimeout as delay } from 'node:timers/promises';

export type UntilOptions = {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Look again after this long (default 20 ms). */
  everyMs?: number;
  /** What the failure message shows of the last look (a screen, a file). */
  lastSeen?: () => string;
};

/**
 * Resolves with the first truthy value `probe` returns (it may be async);
 * rejects after `timeoutMs` naming `what` and, with `lastSeen`, the last look.
 */
export async function until<T>(what: string, probe: () => T | Promise<T>, options: UntilOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) {
      const seen = options.lastSeen ? `; last seen:\n${options.lastSeen()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen}`);
    }
    await delay(options.everyMs ?? 20);
  }
}
