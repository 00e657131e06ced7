// Faults are I/O failures and bugs: thrown, never returned, each with a string
// `code` the dispatch boundary can log. The original error rides in `cause`.
import type { Reason } from '../engine/reasons';

/**
 * The reasons a store fault can carry: the store's own share of the engine's
 * one list (engine/reasons.ts), never a list of its own.
 */
export type StoreFaultCode = Extract<Reason, 'lock_timeout' | 'state_unwritable' | `store_${string}`>;

/** An I/O fault raised by the store. `code` is the contract; the message names the file involved. */
export class StoreFault extends Error {
  readonly code: StoreFaultCode;
  /** Set when the message itself says what to do (a refused entry under .opencomms/), so no generic advice is added. */
  readonly hasFix: boolean;

  constructor(code: StoreFaultCode, message: string, cause?: unknown, hasFix = false) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'StoreFault';
    this.code = code;
    this.hasFix = hasFix;
  }
}

/** Wraps any error thrown while touching `path` as a `state_unwritable` fault (a fault passes through unchanged). */
export function unwritable(action: string, path: string, err: unknown): StoreFault {
  if (err instanceof StoreFault) return err;
  const errno = (err as { code?: unknown } | null)?.code;
  const suffix = typeof errno === 'string' ? ` (${errno})` : '';
  return new StoreFault('state_unwritable', `cannot ${action} ${path}${suffix}`, err);
}
