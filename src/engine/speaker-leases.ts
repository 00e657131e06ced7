// Speaker leases (our addition): which process speaks as a member through
// OPENCOMMS_MEMBER_ID. Such a process links no host session, so without a
// record a new session would see that member's pin as unclaimed, adopt it,
// and two processes would speak as one member. A server whose override names
// a pin of its project records itself here, under the member id; adoption
// passes over a pin with a live speaker. Taken and renewed only inside
// locked mutations, like every lease.
import { isBelievableTime } from './times';
import { ownValue } from './validate';
import type { ProcessCheck, SpeakerLease as Lease, State } from './types';

/** How long a speaker lease holds where its holder's pid cannot be checked (another machine). */
export const SPEAKER_LEASE_MS = 24 * 3600_000;

/**
 * How a change judges speaker leases at `now`: on the machine that applies
 * it, whether the holder's pid runs (`isProcessAlive`); elsewhere, until the
 * lease's `until`; and never when that `until` lies too far ahead to believe.
 */
export function speakerJudge(now: number, isProcessAlive: ProcessCheck | undefined): (lease: Lease) => boolean {
  return (lease) => {
    const runs = isProcessAlive?.({ pid: lease.pid, machine: lease.host, start: null, kind: 'server', renewed_at: now, until: lease.until });
    return (runs ?? now <= lease.until) && isBelievableTime(lease.until, now, SPEAKER_LEASE_MS);
  };
}

/**
 * Whether a live process speaks as `memberId` through OPENCOMMS_MEMBER_ID.
 * `isAlive` decides alone (on this machine, its pid; elsewhere, its
 * `until`), so an idle server keeps its member for as long as it runs.
 */
export function isSpokenFor(state: State, memberId: string, isAlive: (lease: Lease) => boolean): boolean {
  const lease = state.speaker_leases ? ownValue(state.speaker_leases, memberId) : undefined;
  return lease !== undefined && isAlive(lease);
}

/**
 * Records `lease` as the speaker of `memberId` unless another live process
 * holds it (one speaker on record is enough to keep the pin claimed), or the
 * same holder's lease still has more than half its time. Returns whether the
 * state changed. Dead holders' leases are dropped on the way.
 */
export function claimSpeaker(state: State, memberId: string, lease: Lease, isAlive: (lease: Lease) => boolean): boolean {
  const leases = state.speaker_leases ?? {};
  let changed = false;
  for (const [id, other] of Object.entries(leases)) {
    if (other.token === lease.token || isAlive(other)) continue;
    delete leases[id];
    changed = true;
  }
  const held = ownValue(leases, memberId);
  const isFresh = held !== undefined && held.token === lease.token && held.until > lease.until - SPEAKER_LEASE_MS / 2;
  if (held === undefined || (held.token === lease.token && !isFresh)) {
    leases[memberId] = { ...lease };
    changed = true;
  }
  if (Object.keys(leases).length > 0) state.speaker_leases = leases;
  else delete state.speaker_leases;
  return changed;
}
