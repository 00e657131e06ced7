// Waiter leases (our addition): at most one `opencomms hook --wait` process
// waits for a given member at a time. Claude Code starts the asyncRewake Stop
// hook after every turn, and an earlier waiter may still be running; two
// waiters would wake the agent twice for the same mail. The lease lives in
// state.wait_leases, keyed by member id, and is taken, renewed and released
// only inside locked mutations.
import { activeLease, extendLease, releaseLease, takeLease } from './leases';
import type { State, WaitLease } from './types';

/** The waiter lease on `memberId` that still binds at `now`, or undefined when no live waiter holds it. */
export function activeWaitLease(
  state: State,
  memberId: string,
  now: number,
  isHolderAlive: (lease: WaitLease) => boolean,
): WaitLease | undefined {
  return activeLease(state, 'wait_leases', memberId, now, isHolderAlive);
}

/** Takes the waiter lease unless a live holder with another token has it (see takeLease). */
export function takeWaitLease(
  state: State,
  memberId: string,
  lease: WaitLease,
  now: number,
  isHolderAlive: (lease: WaitLease) => boolean,
): boolean {
  return takeLease(state, 'wait_leases', memberId, lease, now, isHolderAlive);
}

/**
 * Gives the lease to `lease` whoever holds it: the waiter of the latest turn
 * supersedes an earlier one on the same machine, which sees its token gone
 * and ends (its timeout would otherwise leave the member unwatched early).
 */
export function replaceWaitLease(state: State, memberId: string, lease: WaitLease): void {
  const leases = state.wait_leases ?? {};
  leases[memberId] = { ...lease };
  state.wait_leases = leases;
}

/** Moves the lease's expiry to `until` while it is still the one with `token`; false when it was lost. */
export function renewWaitLease(state: State, memberId: string, token: string, until: number): boolean {
  return extendLease(state, 'wait_leases', memberId, token, until);
}

/** Releases the lease on `memberId` only if it is still the one with `token`. */
export function releaseWaitLease(state: State, memberId: string, token: string): boolean {
  return releaseLease(state, 'wait_leases', memberId, token);
}
