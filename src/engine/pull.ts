// Reading mail as the recipient: the consuming pull and the read-only inbox.
import { drainQueue, sweepInFlight } from './delivery';
import { pendingFor } from './envelopes';
import { frameBatch, frameMessage, UNTRUSTED_NOTICE } from './framing';
import { describeHeld, heldMailOf } from './held-mail';
import { succeed } from './reasons';
import { channelById, pageLimit, requireMembership } from './validate';
import type { Channel, DeliveryOwner, EngineCtx, Envelope, State, ToolResult } from './types';

export interface PullOptions {
  /** Only this channel's mail; the caller must be a member of it. */
  channel?: string | null;
  limit?: number | null;
  /** Who holds the drained mail until the reply's fate is known: this process, with a lease. */
  owner: DeliveryOwner;
  /** Whether another process's delivery is still alive; default: only leases decide. */
  isOwnerAlive?: (owner: DeliveryOwner) => boolean;
}

/** The name of an envelope's channel, for framing (a placeholder once the channel is gone). */
export function channelNameOf(state: State, envelope: Envelope): string {
  return channelById(state, envelope.channel_id)?.name ?? '(unknown channel)';
}

/** Resolves an optional channel argument to a channel the caller is in. */
function scopeChannel(state: State, recipient: string, channel: string | null | undefined): Channel | undefined | ToolResult {
  if (channel === undefined || channel === null) return undefined;
  const found = requireMembership(state, channel, recipient);
  return 'ok' in found ? found : found.channel;
}

/**
 * The first, locked half of an MCP pull: recover abandoned deliveries, hand
 * the waiting mail to `options.owner` (in_flight) and return it framed. The
 * caller commits it as delivered by 'pull' (commitDelivery with the same
 * owner) once the reply carrying it was written, or gives it back with
 * returnUnsentDelivery when the reply never went out (PROTOCOL 7.1). An
 * explicit pull ignores the delivery cooldown (see DrainOptions).
 */
export function pullMessages(state: State, recipient: string, options: PullOptions, ctx: EngineCtx): ToolResult {
  const scope = scopeChannel(state, recipient, options.channel);
  if (scope && 'ok' in scope) return scope;
  const now = ctx.now();
  sweepInFlight(state, options.isOwnerAlive ?? (() => true), now);
  const handed = drainQueue(state, recipient, {
    channel: scope?.id, limit: pageLimit(options.limit), owner: options.owner, now, ignoreCooldown: true,
  });
  const ids = handed.map((e) => e.message_id);
  const remaining = pendingFor(state, recipient, scope?.id).length;
  // Mail behind a pause is said as held, with who paused and who lifts it (PROTOCOL 5.7).
  const held = heldMailOf(state, recipient, scope?.id);
  const heldText = held.length === 0 ? '' : ` ${describeHeld(held)}`;
  if (ids.length === 0) {
    return succeed(held.length === 0 ? 'No pending messages.' : `Nothing can be delivered now.${heldText}`, {
      messages: [], message_ids: [], remaining, held, untrusted_notice: UNTRUSTED_NOTICE,
    });
  }
  const messages = handed.map((envelope) => {
    const channel = channelNameOf(state, envelope);
    return { channel, message_id: envelope.message_id, framed: frameMessage(envelope, channel, ctx.nonce()) };
  });
  return succeed(`${messages.length} message(s) delivered${remaining > 0 ? `; ${remaining} more waiting` : ''}.${heldText}`, {
    messages,
    message_ids: ids,
    remaining,
    held,
    untrusted_notice: UNTRUSTED_NOTICE,
  });
}

/** Frames envelopes for a push or hook path, naming each message's own channel. */
export function frameForDelivery(state: State, envelopes: readonly Envelope[], ctx: EngineCtx): string {
  return frameBatch(envelopes.map((envelope) => ({ envelope, channelName: channelNameOf(state, envelope) })), () => ctx.nonce());
}

export interface InboxInput {
  channel: string;
  session_id: string;
  limit?: number | null;
}

/** A read-only preview of the caller's pending mail in one channel, framed; nothing is consumed. */
export function inbox(state: State, input: InboxInput, ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const pending = pendingFor(state, input.session_id, found.channel.id);
  const shown = pending.slice(0, pageLimit(input.limit));
  return succeed(pending.length === 0 ? 'No pending messages.' : `${pending.length} pending message(s).`, {
    pending: pending.length,
    messages: shown.map((envelope) => ({
      message_id: envelope.message_id,
      sender_role: envelope.sender_role,
      sender_session_id: envelope.sender_session_id,
      message_type: envelope.message_type,
      timestamp: envelope.timestamp,
      reply_to: envelope.reply_to,
      hop_count: envelope.hop_count,
      delivery_status: envelope.delivery_status,
      framed: frameMessage(envelope, found.channel.name, ctx.nonce()),
    })),
    untrusted_notice: UNTRUSTED_NOTICE,
  });
}
