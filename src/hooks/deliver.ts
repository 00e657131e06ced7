// Handing a member's mail to a host through a hook, in two locked steps:
//   1. sweep abandoned deliveries, drain what fits the cap to in_flight
//      (owned by this process, with a lease) and frame it;
//   2. after the answer is written, commit it as delivered; if the answer
//      could not be written, give it back unsent (the host never saw it, so
//      the handover is undone rather than counted as a failed attempt):
//      delivery/handover.ts, the settle the tools and `opencomms read` share.
// A crash between the steps leaves in_flight mail owned by a dead pid, which
// the next hook or pull sweeps back into the queue (at-least-once, never lost).
import {
  channelNameOf, clearStale, drainQueue, frameMessage, isAbandonedDelivery, sweepInFlight,
  type DeliveryOwner, type EngineCtx, type State,
} from '../engine';
import { deliverableMail } from '../engine/wait-notice';
import { isHolderRunning } from '../process/liveness';
import { handoverOwner } from '../delivery/handover';
import { batchText, fitBatch, HOOK_TEXT_MAX_CHARS, oversizeText } from './answer';

/** How long this process's claim on in-flight mail holds against other processes' sweeps. */
const HOOK_LEASE_MS = 30_000;

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

/** What the first locked step produced for the answer. */
export interface PreparedDelivery {
  /** Ids now in flight to the member, owned by `owner`; empty when only a notice goes out. */
  ids: string[];
  /** The answer text, or null when there is nothing to say. */
  text: string | null;
}

/**
 * Step 1, run inside store.mutate: clears the member's stale mark, sweeps
 * abandoned in-flight mail, and drains as many whole messages as fit the cap.
 * What would be drained is found by draining a copy first, so the real drain
 * (with that count as its limit) hands over exactly the messages framed.
 */
export function prepareDelivery(
  state: State,
  memberId: string,
  owner: DeliveryOwner,
  isStop: boolean,
  ctx: EngineCtx,
  capChars = HOOK_TEXT_MAX_CHARS,
): PreparedDelivery {
  const now = ctx.now();
  clearStale(state, memberId);
  sweepInFlight(state, (holder) => isHolderRunning(holder), now);
  // The hook runs at a boundary the host chose, like an explicit pull, so
  // the push cooldown (which spaces out unsolicited pushes) does not apply.
  const drainOptions = { owner, now, ignoreCooldown: true };
  const preview = drainQueue(structuredClone(state), memberId, drainOptions);
  if (preview.length === 0) return { ids: [], text: null };
  const fitted = fitBatch(preview.length, (i) => frameMessage(preview[i]!, channelNameOf(state, preview[i]!), ctx.nonce()), isStop, capChars);
  if (fitted.frames.length === 0) {
    const first = preview[0]!;
    const size = frameMessage(first, channelNameOf(state, first), ctx.nonce()).length;
    return { ids: [], text: oversizeText(channelNameOf(state, first), size, preview.length, isStop) };
  }
  // Same state, same clock, same owner: the real drain hands over exactly the
  // first `limit` messages of the preview, so the frames already made fit them.
  const handed = drainQueue(state, memberId, { ...drainOptions, limit: fitted.frames.length });
  return { ids: handed.map((e) => e.message_id), text: batchText(fitted.frames, preview.length - handed.length, isStop) };
}
