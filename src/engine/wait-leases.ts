// Waiter leases (our addition): at most one `opencomms hook --wait` process
// waits for a given member at a time. Claude Code starts the asyncRewake Stop
// hook after every turn, and an earlier waiter may still be running; two
// waiters would wake the agent twice for the same mail. The lease lives in
// state.wait_leases, keyed by member id, and is taken, renewed and released
// only inside locked mutations.
import { ownValue } from './validate';
import type { State, WaitLease } from './types';

/** The waiter lease on `memberId` that still binds at `now`, or undefined when no live waiter holds it. */
export function activeWaitLease(
  state: State,
  memberId: string,
  now: number,
  isHolderAlive: (lease: WaitLease) => boolean,
): WaitLease | undefined {
  const lease = state.wait_leases ? ownValue(state.wait_leases, memberId) : undefined;
  if (!lease || now > lease.until) return undefined;
  return isHolderAlive(lease) ? lease : undefined;
}

/**
 * Takes the waiter lease on `memberId` unless a live holder with another
 * token has it. An expired lease, or one whose holder died (SIGKILL leaves
 * its lease behind), is overwritten. Returns false and changes nothing when
 * the member is taken.
 */
export function takeWaitLease(
  state: State,
  memberId: string,
  lease: WaitLease,
  now: number,
  isHolderAlive: (lease: WaitLease) => boolean,
): boolean {
  const held = activeWaitLease(state, memberId, now, isHolderAlive);
  if (held && held.token !== lease.token) return false;
  state.wait_leases ??= {};
  state.wait_leases[memberId] = { ...lease };
  return true;
}

/** Moves the lease's expiry to `until` while it is still the one with `token`; false when it was lost. */
export function renewWaitLease(state: State, memberId: string, token: string, until: number): boolean {
  const lease = state.wait_leases ? ownValue(state.wait_leases, memberId) : undefined;
  if (!lease || lease.token !== token) return false;
  lease.until = until;
  return true;
}

/** Releases the lease on `memberId` only if it is still the one with `token`; a lease taken over since is left alone. */
export function releaseWaitLease(state: State, memberId: string, token: string): boolean {
  const lease = state.wait_leases ? ownValue(state.wait_leases, memberId) : undefined;
  if (!lease || lease.token !== token) return false;
  delete state.wait_leases![memberId];
  // An empty record is dropped so a project with no waiter keeps the reference's file shape.
  if (Object.keys(state.wait_leases!).length === 0) delete state.wait_leases;
  return true;
}
