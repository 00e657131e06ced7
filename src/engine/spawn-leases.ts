// Spawn-delivery leases (our addition): at most one process resumes a given
// member's host session at a time. The lease lives in state.spawn_leases,
// keyed by member id, and is taken and released only inside locked
// mutations, together with the drain and the commit or requeue it guards.
//
// Why a lease on top of the envelope owners: an in_flight owner protects the
// envelopes it holds, but mail that arrives while a spawn runs is pending,
// and without the lease another process would drain it and resume the same
// host session a second time while the first resume is still running.
import { addError } from './error-log';
import { activeLease, extendLease, releaseLease, takeLease, type Lease } from './leases';
import { memberOf } from './validate';
import type { DeliveryOwner, ErrorEntry, Member, SpawnLease, State } from './types';

/** Spawn liveness is judged like an in-flight owner's: the same pid check on the same host. */
function holderAlive(isOwnerAlive: (owner: DeliveryOwner) => boolean): (lease: Lease) => boolean {
  return (lease) => isOwnerAlive({ pid: lease.pid, host: lease.host, lease_until: lease.until });
}

/** The spawn lease held on `memberId` that still binds at `now`, or undefined when the member is free. */
export function activeSpawnLease(
  state: State,
  memberId: string,
  now: number,
  isOwnerAlive: (owner: DeliveryOwner) => boolean,
): SpawnLease | undefined {
  return activeLease(state, 'spawn_leases', memberId, now, holderAlive(isOwnerAlive));
}

/** Takes the spawn lease unless another live holder has it (see takeLease). */
export function takeSpawnLease(
  state: State,
  memberId: string,
  lease: SpawnLease,
  now: number,
  isOwnerAlive: (owner: DeliveryOwner) => boolean,
): boolean {
  return takeLease(state, 'spawn_leases', memberId, lease, now, holderAlive(isOwnerAlive));
}

/** Releases the lease on `memberId` only if it is still the one with `token`. */
export function releaseSpawnLease(state: State, memberId: string, token: string): boolean {
  return releaseLease(state, 'spawn_leases', memberId, token);
}

/**
 * Keeps the lease with `token` until `until`. After a failed spawn the
 * holder keeps it as a back-off: no process resumes that member again
 * before the retry is due, yet if the holder dies the lease frees at once.
 */
export function extendSpawnLease(state: State, memberId: string, token: string, until: number): boolean {
  return extendLease(state, 'spawn_leases', memberId, token, until);
}

/** One spawn_push membership of a member: the channel it holds and the host session it resumes. */
export interface SpawnMembership {
  channelId: string;
  member: Member;
}

/** The channels in which `memberId` asked to be delivered by resuming a host session (delivery_mode spawn_push). */
export function spawnMemberships(state: State, memberId: string): SpawnMembership[] {
  const found: SpawnMembership[] = [];
  for (const channel of Object.values(state.channels)) {
    const member = memberOf(channel, memberId);
    if (member && member.delivery_mode === 'spawn_push') found.push({ channelId: channel.id, member });
  }
  return found;
}

/**
 * Records an error scoped to one member, unless the newest entry for that
 * member already says the same thing: a refusal that repeats on every
 * state change must not fill the log (or wake every watcher again).
 */
export function recordMemberError(state: State, memberId: string, at: number, message: string): boolean {
  for (let i = state.errors.length - 1; i >= 0; i -= 1) {
    const entry: ErrorEntry = state.errors[i]!;
    if (entry.member_id !== memberId) continue;
    if (entry.message === message) return false;
    break;
  }
  addError(state, at, message, memberId);
  return true;
}
