// Handing a member's mail to a host through a hook, in two locked steps:
//   1. sweep abandoned deliveries, drain what fits the cap to in_flight
//      (owned by this process, with a lease) and frame it;
//   2. after the answer is written, commit it as delivered; if the answer
//      could not be written, give it back unsent (the host never saw it, so
//      the handover is undone rather than counted as a failed attempt):
//      delivery/handover.ts, the settle the tools and `opencomms read` share.
// A crash between the steps leaves in_flight mail owned by a dead pid, which
// the next hook or pull sweeps back into the queue (at-least-once, never lost).
import { isAbandonedDelivery, type DeliveryOwner, type State } from '../engine';
import { deliverableMail } from '../engine/wait-notice';
import { isHolderRunning } from '../process/liveness';
import { handoverOwner } from '../delivery/handover';

/** How long this process's claim on in-flight mail holds against other processes' sweeps. */
export const HOOK_LEASE_MS = 30_000;

/** This process as the owner of the mail its answer carries. */
export function hookOwner(now: number): DeliveryOwner {
  return handoverOwner(now, HOOK_LEASE_MS);
}

/** The member's channels. Empty when the member is in none (never joined, or removed). */
export function membershipsOf(state: State, memberId: string) {
  return Object.values(state.channels).flatMap((channel) => channel.members.filter((m) => m.session_id === memberId));
}

export { deliverableMail };

/**
 * The lock-free test every hook makes first: is there anything to do for
 * this member? Mail that a drain would hand over, in-flight mail whose
 * delivery was abandoned, or a stale mark to clear. It reads the one
 * snapshot already loaded: no lock, no history, no hashing.
 */
export function needsDelivery(state: State, memberId: string, now: number): boolean {
  if (membershipsOf(state, memberId).some((m) => m.stale)) return true;
  if (deliverableMail(state, memberId, now).length > 0) return true;
  return Object.values(state.messages).some((envelope) => envelope.recipient_session_id === memberId
    && isAbandonedDelivery(envelope, now, (holder) => isHolderRunning(holder)));
}

export { prepareDelivery, type PreparedDelivery } from '../engine/hook-batch';
