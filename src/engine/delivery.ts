// The delivery state machine:
//   pending --drainQueue--> in_flight (owner and lease recorded)
//   in_flight --commitDelivery--> delivered
//   in_flight --requeueFailedDelivery / sweepInFlight--> pending (FIFO kept)
//                 or failed once MAX_DELIVERY_ATTEMPTS handovers were made
//   in_flight --returnUnsentDelivery--> pending (the handover is undone, not counted)
//   pending --too old for a pushed member--> stale
//   pending or in_flight --recipient left the channel, or channel gone--> rejected
import { budgetRefusal } from './budgets';
import { MAX_DELIVERY_ATTEMPTS, MAX_DELIVERY_LEASE_MS } from './constants';
import { compareSendOrder, finishEnvelope, insertInSendOrder, noteDeliveredTo } from './envelopes';
import { isBelievableTime } from './times';
import { channelById, findChannel, memberOf, ownValue } from './validate';
import type { Channel, DeliveryMethod, DeliveryOwner, DeliveryPath, Envelope, State } from './types';

export interface DrainOptions {
  /** Only this channel's mail (name or id); other mail stays queued untouched. */
  channel?: string;
  /** Hand over at most this many envelopes. */
  limit?: number;
  owner: DeliveryOwner;
  now: number;
  /**
   * Skip the per-recipient cooldown. Explicit pulls set this: the reader
   * asked for the mail, and the cooldown only exists to space out
   * unsolicited pushes into a host session.
   */
  ignoreCooldown?: boolean;
  /**
   * Hand over mail of paused channels too. Only a person's read sets this: a
   * pause holds agents' mail, and the person deciding whether to lift it
   * must be able to read what came in.
   */
  includePaused?: boolean;
}

// A cooldown is never longer than the channel's delivery_cooldown_ms. One
// that ends later than that (and the clock slack) from now was written by a
// clock running ahead or by hand (times.ts isBelievableTime) and is ignored,
// instead of holding mail until it ages out.
function cooldownEnd(channel: Channel, recipient: string, now: number): number {
  const until = ownValue(channel.cooldown_until, recipient) ?? 0;
  return isBelievableTime(until, now, channel.delivery_cooldown_ms) ? until : 0;
}

function isAgedOut(channel: Channel, envelope: Envelope, now: number): boolean {
  const member = memberOf(channel, envelope.recipient_session_id);
  const policy = member?.stale_policy;
  if (policy?.mode === 'none') return false;
  const windowMs = typeof policy?.window_ms === 'number' && Number.isFinite(policy.window_ms) ? policy.window_ms : channel.stale_event_ms;
  return now - envelope.timestamp > windowMs;
}

/**
 * Marks the recipient's pending mail in these channels that has outlived its
 * stale window as `stale`, by the drain's own rule (paused channels, and
 * channels the recipient has left, are left to the drain). A spawn plan runs
 * this before it measures a batch: otherwise the drain would skip an aged-out
 * envelope the size check counted and take a later one it never measured.
 */
export function expireAgedOut(state: State, recipient: string, channelIds: readonly string[], now: number): string[] {
  const expired: Envelope[] = [];
  for (const id of ownValue(state.queues, recipient) ?? []) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.recipient_session_id !== recipient || envelope.delivery_status !== 'pending') continue;
    if (!channelIds.includes(envelope.channel_id)) continue;
    const channel = channelById(state, envelope.channel_id);
    if (!channel || channel.paused || !memberOf(channel, recipient)) continue;
    if (isAgedOut(channel, envelope, now)) expired.push(envelope);
  }
  for (const envelope of expired) finishEnvelope(state, envelope, 'stale');
  return expired.map((envelope) => envelope.message_id);
}

/**
 * Hands a recipient's waiting mail to a delivery owner, oldest first.
 * Within the cooldown of a channel its whole batch waits; once the
 * cooldown is over everything waiting goes in one batch, so the cooldown
 * delays only the first message, never each message in turn.
 */
export function drainQueue(state: State, recipient: string, options: DrainOptions): Envelope[] {
  const { now, owner } = options;
  const only = options.channel === undefined ? undefined : findChannel(state, options.channel);
  if (options.channel !== undefined && !only) return [];
  const limit = typeof options.limit === 'number' && options.limit > 0 ? Math.floor(options.limit) : Number.POSITIVE_INFINITY;
  const handed: Envelope[] = [];
  const kept: string[] = [];
  const touched = new Set<Channel>();
  for (const id of ownValue(state.queues, recipient) ?? []) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.recipient_session_id !== recipient || envelope.delivery_status !== 'pending') continue;
    const channel = channelById(state, envelope.channel_id);
    if (!channel || !memberOf(channel, recipient)) {
      envelope.delivery_status = 'rejected';
      envelope.delivery_owner = null;
      continue;
    }
    const cooling = !options.ignoreCooldown && now < cooldownEnd(channel, recipient, now);
    if ((only && channel !== only) || (channel.paused && !options.includePaused) || cooling) {
      kept.push(id);
      continue;
    }
    if (isAgedOut(channel, envelope, now)) {
      envelope.delivery_status = 'stale';
      continue;
    }
    if (handed.length >= limit || budgetRefusal(channel, now)) {
      kept.push(id);
      continue;
    }
    envelope.delivery_status = 'in_flight';
    envelope.attempts += 1;
    envelope.delivery_owner = { ...owner };
    channel.delivered_total += 1;
    noteDeliveredTo(state, id, recipient);
    touched.add(channel);
    handed.push(envelope);
  }
  for (const channel of touched) channel.cooldown_until[recipient] = now + channel.delivery_cooldown_ms;
  if (kept.length > 0) state.queues[recipient] = kept;
  else delete state.queues[recipient];
  return handed;
}

/** Milliseconds until a push to this recipient may start (0 when it may start now). */
export function cooldownRemainingMs(state: State, recipient: string, now: number): number {
  let wait = 0;
  for (const channel of Object.values(state.channels)) {
    const until = cooldownEnd(channel, recipient, now);
    if (until > now) wait = Math.max(wait, until - now);
  }
  return wait;
}

function sameOwner(a: DeliveryOwner | null | undefined, b: DeliveryOwner): boolean {
  return !!a && a.pid === b.pid && a.host === b.host;
}

// The very owner record one drain wrote. A process that drains the same mail
// again after a sweep writes a new lease, so its earlier attempt no longer matches.
function isSameDrain(a: DeliveryOwner | null | undefined, b: DeliveryOwner): boolean {
  return sameOwner(a, b) && a?.lease_until === b.lease_until;
}

/** The path a delivery method implies when the caller names none. */
const PATH_OF_METHOD: Record<DeliveryMethod, DeliveryPath> = { pull: 'pull', spawn_push: 'spawn', push: 'plugin' };

/** How a finished envelope was handed over: its recorded path, else what its method implies, else null. */
export function deliveryPathOf(envelope: Envelope): DeliveryPath | null {
  if (envelope.delivered_via) return envelope.delivered_via;
  return envelope.delivery_method ? PATH_OF_METHOD[envelope.delivery_method] : null;
}

/**
 * Marks handed-over envelopes as delivered. Ids that are not in flight to
 * this recipient are ignored, so finished mail is never changed again;
 * with `owner`, only envelopes that owner holds are committed. `via` names
 * the path (a hook commits by 'pull' but via 'hook'); by default the one the
 * method implies.
 */
export function commitDelivery(
  state: State,
  recipient: string,
  ids: readonly string[],
  method: DeliveryMethod,
  now: number,
  owner?: DeliveryOwner,
  via: DeliveryPath = PATH_OF_METHOD[method],
): string[] {
  const committed: string[] = [];
  for (const id of ids) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.recipient_session_id !== recipient || envelope.delivery_status !== 'in_flight') continue;
    if (owner && !sameOwner(envelope.delivery_owner, owner)) continue;
    finishEnvelope(state, envelope, 'delivered', now);
    envelope.delivery_method = method;
    envelope.delivered_via = via;
    committed.push(id);
  }
  return committed;
}

/** What happened to envelopes that came back from a failed or abandoned delivery. */
export interface RequeueOutcome {
  requeued: string[];
  failed: string[];
  rejected: string[];
}

function returnToQueue(state: State, envelopes: readonly Envelope[], mayDeadLetter = true): RequeueOutcome {
  const outcome: RequeueOutcome = { requeued: [], failed: [], rejected: [] };
  const back = new Map<string, Envelope[]>();
  for (const envelope of [...envelopes].sort(compareSendOrder)) {
    const channel = channelById(state, envelope.channel_id);
    if (!channel || !memberOf(channel, envelope.recipient_session_id)) {
      finishEnvelope(state, envelope, 'rejected');
      outcome.rejected.push(envelope.message_id);
    } else if (mayDeadLetter && envelope.attempts >= MAX_DELIVERY_ATTEMPTS) {
      finishEnvelope(state, envelope, 'failed');
      outcome.failed.push(envelope.message_id);
    } else {
      envelope.delivery_status = 'pending';
      envelope.delivered_at = null;
      envelope.delivery_owner = null;
      const list = back.get(envelope.recipient_session_id) ?? [];
      list.push(envelope);
      back.set(envelope.recipient_session_id, list);
      outcome.requeued.push(envelope.message_id);
    }
  }
  for (const [recipient, list] of back) insertInSendOrder(state, recipient, list);
  return outcome;
}

/**
 * Puts envelopes whose delivery failed back in the queue in send order,
 * or dead-letters them (failed) after MAX_DELIVERY_ATTEMPTS handovers.
 * Only envelopes still in flight to this recipient under `owner`, the owner
 * record the failed drain wrote (pid, host and lease), are touched: after a
 * sweep and a new drain, the mail belongs to its new owner (PROTOCOL 7.1).
 */
export function requeueFailedDelivery(state: State, recipient: string, ids: readonly string[], owner: DeliveryOwner): RequeueOutcome {
  const envelopes: Envelope[] = [];
  for (const id of new Set(ids)) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.recipient_session_id !== recipient || envelope.delivery_status !== 'in_flight') continue;
    if (isSameDrain(envelope.delivery_owner, owner)) envelopes.push(envelope);
  }
  return returnToQueue(state, envelopes);
}

/**
 * Gives back mail whose handover never reached the host: the reply that
 * carried it was cancelled or could not be written. Nothing failed on the
 * host's side, so the drain is undone rather than counted: `attempts` and the
 * channel's `delivered_total` go back down, and the envelope returns to
 * pending in send order without ever being dead-lettered. As with
 * requeueFailedDelivery, only envelopes still in flight under the very owner
 * record that drain wrote are touched (PROTOCOL 5.3).
 */
export function returnUnsentDelivery(state: State, recipient: string, ids: readonly string[], owner: DeliveryOwner): RequeueOutcome {
  const envelopes: Envelope[] = [];
  for (const id of new Set(ids)) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.recipient_session_id !== recipient || envelope.delivery_status !== 'in_flight') continue;
    if (!isSameDrain(envelope.delivery_owner, owner)) continue;
    envelope.attempts = Math.max(0, envelope.attempts - 1);
    const channel = channelById(state, envelope.channel_id);
    if (channel) channel.delivered_total = Math.max(0, channel.delivered_total - 1);
    envelopes.push(envelope);
  }
  return returnToQueue(state, envelopes, false);
}

/**
 * Whether an in-flight envelope's delivery is abandoned at `now`: it has no
 * owner (written by the reference), its owner is dead, or the owner's lease
 * has passed or ends later than MAX_DELIVERY_LEASE_MS (and the clock
 * slack) from now, which no lease is taken for. A lease still binds at the
 * very millisecond `lease_until` (PROTOCOL 5.3); the sweep and anyone
 * predicting it must use this one rule.
 */
export function isAbandonedDelivery(envelope: Envelope, now: number, isOwnerAlive: (owner: DeliveryOwner) => boolean): boolean {
  if (envelope.delivery_status !== 'in_flight') return false;
  const owner = envelope.delivery_owner;
  return !owner || now > owner.lease_until || !isBelievableTime(owner.lease_until, now, MAX_DELIVERY_LEASE_MS) || !isOwnerAlive(owner);
}

/**
 * Recovers in-flight envelopes whose delivery was abandoned (isAbandonedDelivery).
 * A delivery a live owner still holds within its lease is left alone.
 * Recovered mail counts toward the attempt cap like any failure.
 */
export function sweepInFlight(state: State, isOwnerAlive: (owner: DeliveryOwner) => boolean, now: number): RequeueOutcome {
  const abandoned = Object.values(state.messages).filter((envelope) => isAbandonedDelivery(envelope, now, isOwnerAlive));
  return returnToQueue(state, abandoned);
}

/** Recipients with at least one pending envelope in their queue. */
export function pendingRecipients(state: State): string[] {
  return Object.keys(state.queues).filter((recipient) => (state.queues[recipient] ?? []).some((id) => {
    const envelope = ownValue(state.messages, id);
    return envelope !== undefined && envelope.delivery_status === 'pending' && envelope.recipient_session_id === recipient;
  }));
}
