// What a store's self-check reports (doctor prints it): one finding per
// thing that must hold, each saying what it saw and what to do.
import type { State } from '../engine/types';
import type { StoreJson } from './describe';
import { StoreFault } from '../files/faults';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
  fixed?: boolean;
  /** The reason code of a store finding (store_auth_failed, store_forbidden, …). */
  reason?: string;
}

export interface StoreCheckOptions {
  /** doctor --fix: repair what is safe to repair (modes, an abandoned lock, leftovers). */
  fix: boolean;
  /** Where OPENCOMMS_STORE_CA points, to name it in the TLS line. */
  caPath?: string;
}

export interface StoreCheckReport {
  checks: Check[];
  /** The state as loaded, for the members check; undefined when it could not be read or did not load. */
  state: State | undefined;
  /** The store checked, as `doctor --json` names it. */
  store: StoreJson;
}

/**
 * Runs one check. A check that cannot even look (a file where a folder
 * should be, a folder where a file should be, no permission) is itself a
 * finding, never a crash: doctor exists for exactly those broken set-ups.
 */
export function guardCheck(name: string, run: () => Check | Check[]): Check[] {
  try {
    const result = run();
    return Array.isArray(result) ? result : [result];
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return [{ name, status: 'fail', message: `could not check (${detail}); fix or move what it names, then run doctor again` }];
  }
}

/** A text someone else wrote (a lock stamp's host, a config's project id), safe to print: never raw. */
export function printableLabel(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}

/** A fault as a finding: the reason code first, then the sentence that says what to check (never a password). */
export function faultCheck(name: string, fault: StoreFault): Check {
  return { name, status: 'fail', reason: fault.code, message: `${fault.code}: ${fault.message}` };
}
