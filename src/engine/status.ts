// What a member may see about the project: their channels, pending counts,
// the errors that concern them, and a channel's message history.
import { channelEnvelopes, isLive } from './envelopes';
import { frameMessage, UNTRUSTED_NOTICE } from './framing';
import { refuse, succeed } from './reasons';
import { liveReservations } from './reservations';
import { lastSeenByMember } from './session-links';
import { timerReport } from './timer';
import { addToTotal, findChannel, pageLimit, requireMembership } from './validate';
import type { Channel, EngineCtx, ErrorEntry, State, ToolResult } from './types';

export interface StatusInput {
  channel?: string | null;
  /** The caller; null gives the operator's full view (CLI only, never a tool). */
  session_id: string | null;
}

function describeChannel(state: State, channel: Channel, ctx: EngineCtx): Record<string, unknown> {
  const seen = lastSeenByMember(state);
  const now = ctx.now();
  const queueLengths: Record<string, number> = {};
  const inFlight: Record<string, number> = {};
  for (const member of channel.members) {
    queueLengths[member.session_id] = 0;
    inFlight[member.session_id] = 0;
  }
  let lastMessageAt: number | null = null;
  for (const envelope of Object.values(state.messages)) {
    if (envelope.channel_id !== channel.id) continue;
    lastMessageAt = Math.max(lastMessageAt ?? envelope.timestamp, envelope.timestamp);
    const who = envelope.recipient_session_id;
    if (!Object.prototype.hasOwnProperty.call(queueLengths, who)) continue;
    if (envelope.delivery_status === 'pending') addToTotal(queueLengths, who, 1);
    if (envelope.delivery_status === 'in_flight') addToTotal(inFlight, who, 1);
  }
  const finished = ctx.history.list(channel.id);
  const lastFinished = finished[finished.length - 1];
  if (lastFinished) lastMessageAt = Math.max(lastMessageAt ?? lastFinished.timestamp, lastFinished.timestamp);
  return {
    id: channel.id,
    name: channel.name,
    project_id: channel.project_id,
    worktree: channel.worktree,
    created_at: channel.created_at,
    lifecycle: channel.lifecycle,
    paused: channel.paused,
    description: channel.description,
    parent_channel_id: channel.parent_channel_id,
    max_members: channel.max_members,
    max_hops: channel.max_hops,
    rate_limit: channel.rate_limit,
    budgets: { ...channel.budgets },
    delivered_total: channel.delivered_total,
    members: channel.members.map((m) => ({
      session_id: m.session_id,
      role: m.role,
      stale: m.stale,
      away_since: m.stale ? m.stale_at : null,
      last_seen: seen.get(m.session_id) ?? null,
      joined_at: m.joined_at,
      host: m.host,
      surface: m.surface,
      delivery_mode: m.delivery_mode,
      endpoint_capabilities: m.endpoint_capabilities,
    })),
    coordinator_session_id: channel.members[0]?.session_id ?? null,
    queue_lengths: queueLengths,
    in_flight: inFlight,
    last_message_at: lastMessageAt,
    timer: timerReport(channel, now),
    reservations: liveReservations(channel, now).map((r) => ({ ...r })),
  };
}

function isVisibleError(entry: ErrorEntry, memberId: string, channelIds: ReadonlySet<string>): boolean {
  if (entry.channel_id === undefined && entry.member_id === undefined) return true;
  return (entry.channel_id !== undefined && channelIds.has(entry.channel_id)) || entry.member_id === memberId;
}

/** Status of the caller's channels (or of one of them); counts only pending mail. */
export function status(state: State, input: StatusInput, ctx: EngineCtx): ToolResult {
  const me = input.session_id;
  let channels = Object.values(state.channels);
  if (me !== null) channels = channels.filter((c) => c.members.some((m) => m.session_id === me));
  if (typeof input.channel === 'string' && input.channel.trim() !== '') {
    const wanted = findChannel(state, input.channel);
    channels = channels.filter((c) => c === wanted);
  }
  const ids = new Set(channels.map((c) => c.id));
  const live = Object.values(state.messages).filter((e) => ids.has(e.channel_id) && isLive(e));
  const pending = live.filter((e) => e.delivery_status === 'pending');
  return succeed('OpenComms status.', {
    channels: channels.map((c) => describeChannel(state, c, ctx)),
    live_messages: live.length,
    pending_messages: pending.length,
    your_pending: me === null ? null : pending.filter((e) => e.recipient_session_id === me).length,
    errors: me === null ? [...state.errors] : state.errors.filter((e) => isVisibleError(e, me, ids)),
  });
}

export interface HistoryInput {
  channel: string;
  session_id: string;
  limit?: number | null;
  /** A message_id: return only messages older than it. */
  before?: string | null;
}

/** A channel's messages, newest first, framed, paged with `before`. Members only. */
export function history(state: State, input: HistoryInput, ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const { channel } = found;
  const all = channelEnvelopes(state, channel.id, ctx.history).reverse();
  let start = 0;
  if (typeof input.before === 'string' && input.before.trim() !== '') {
    const at = all.findIndex((e) => e.message_id === input.before!.trim());
    if (at < 0) return refuse('not_found', `before "${input.before.trim()}" is not a message of channel "${channel.name}".`);
    start = at + 1;
  }
  const limit = pageLimit(input.limit);
  const page = all.slice(start, start + limit);
  const hasMore = start + limit < all.length;
  return succeed(`${page.length} message(s) from "${channel.name}".`, {
    messages: page.map((e) => ({
      message_id: e.message_id,
      sender_role: e.sender_role,
      sender_session_id: e.sender_session_id,
      recipient_role: e.recipient_role,
      recipient_session_id: e.recipient_session_id,
      message_type: e.message_type,
      timestamp: e.timestamp,
      reply_to: e.reply_to,
      hop_count: e.hop_count,
      delivery_status: e.delivery_status,
      framed: frameMessage(e, channel.name, ctx.nonce()),
    })),
    has_more: hasMore,
    next_before: hasMore && page.length > 0 ? page[page.length - 1]!.message_id : null,
    untrusted_notice: UNTRUSTED_NOTICE,
  });
}
