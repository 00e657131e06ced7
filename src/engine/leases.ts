// Leases (our addition): a claim by one process on one member, kept in the
// state under the member id, taken, renewed and released only inside locked
// mutations. Spawn delivery and `hook --wait` each keep their own map; the
// rules are the same for both, so they live here once.
import { MAX_DELIVERY_LEASE_MS } from './constants';
import { SPEAKER_LEASE_MS } from './speaker-leases';
import { isBelievableTime } from './times';
import { ownValue } from './validate';
import type { State } from './types';

/** A claim by process `pid` on `host`, identified by `token`, binding until `until` (epoch ms). */
export interface Lease {
  pid: number;
  host: string;
  token: string;
  until: number;
}

/** The state fields that hold leases, keyed by member id. */
export type LeaseField = 'spawn_leases' | 'wait_leases' | 'speaker_leases';

// The longest each kind of lease is ever taken for: one ending later than
// this from now (plus the clock slack) was written by a clock far ahead or by
// hand, and binds no more (times.ts isBelievableTime).
const LEASE_LIFETIME_MS: Record<LeaseField, number> = {
  spawn_leases: MAX_DELIVERY_LEASE_MS,
  wait_leases: MAX_DELIVERY_LEASE_MS,
  speaker_leases: SPEAKER_LEASE_MS,
};

function leaseOf(state: State, field: LeaseField, memberId: string): Lease | undefined {
  const leases = state[field];
  return leases ? ownValue(leases, memberId) : undefined;
}

/** The lease on `memberId` that still binds at `now`: not expired (nor ending beyond its kind's lifetime), and its holder alive. */
export function activeLease(
  state: State,
  field: LeaseField,
  memberId: string,
  now: number,
  isHolderAlive: (lease: Lease) => boolean,
): Lease | undefined {
  const lease = leaseOf(state, field, memberId);
  if (!lease || now > lease.until || !isBelievableTime(lease.until, now, LEASE_LIFETIME_MS[field])) return undefined;
  return isHolderAlive(lease) ? lease : undefined;
}

/**
 * Takes the lease on `memberId` unless a live holder with another token has
 * it. An expired lease, or one whose holder died, is overwritten. Returns
 * false and changes nothing when the member is taken.
 */
export function takeLease(
  state: State,
  field: LeaseField,
  memberId: string,
  lease: Lease,
  now: number,
  isHolderAlive: (lease: Lease) => boolean,
): boolean {
  const held = activeLease(state, field, memberId, now, isHolderAlive);
  if (held && held.token !== lease.token) return false;
  const leases = state[field] ?? {};
  leases[memberId] = { ...lease };
  state[field] = leases;
  return true;
}

/** Moves the expiry of the lease with `token` to `until`; false when that lease was lost. */
export function extendLease(state: State, field: LeaseField, memberId: string, token: string, until: number): boolean {
  const lease = leaseOf(state, field, memberId);
  if (!lease || lease.token !== token) return false;
  lease.until = until;
  return true;
}

/** Releases the lease on `memberId` only while it is still the one with `token`; a lease taken over since is left alone. */
export function releaseLease(state: State, field: LeaseField, memberId: string, token: string): boolean {
  const leases = state[field];
  const lease = leaseOf(state, field, memberId);
  if (!leases || !lease || lease.token !== token) return false;
  delete leases[memberId];
  // An empty map is dropped, so a project that never used it keeps the reference's file shape.
  if (Object.keys(leases).length === 0) delete state[field];
  return true;
}
