// What a member may see about the project: their channels, pending counts,
// the errors that concern them, and a channel's message history.
import { boardCounts, tasksOf } from './task-board';
import { firstAnswers, messagePath } from './arrival';
import { threadIdOf } from './compose';
import { channelEnvelopes, isLive } from './envelopes';
import { frameMessage, peerLine, UNTRUSTED_NOTICE } from './framing';
import { refuse, succeed } from './reasons';
import { loopGuardView } from './loop-guard';
import { describeHeld, heldIn, pendingInChannel, type HeldMail } from './held-mail';
import { JUDGE_BY_LEASE, presenceOf } from './presence';
import { frameHolderText } from './reservation-conflicts';
import { liveReservations, reservationId } from './reservations';
import { requestsOf } from './requests';
import { lastSeenByMember } from './session-links';
import { timerReport } from './timer';
import { unwokenMailOf } from './unwoken';
import { addToTotal, findChannel, pageLimit, requireMembership } from './validate';
import type { Channel, EngineCtx, Envelope, ErrorEntry, State, ToolResult } from './types';

/** How many waiting messages status lists with their path. */
const MAX_STATUS_PATHS = 50;

export interface StatusInput {
  channel?: string | null;
  /** The caller; null gives the operator's full view (CLI only, never a tool). */
  session_id: string | null;
}

function describeChannel(state: State, channel: Channel, ctx: EngineCtx, isMemberView: boolean): Record<string, unknown> {
  const seen = lastSeenByMember(state);
  const now = ctx.now();
  // Presence and reservations are judged as the hooks judge them (presenceOf, isLiveReservation).
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  const presence = new Map(channel.members.map((m) => [m.session_id, presenceOf(state, m.session_id, now, isAlive)]));
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
    // The loop guard: its limit, its count, and why the channel is paused (agent_streak, member, or null).
    ...loopGuardView(channel),
    // A paused channel's mail: how much waits, who paused it, who lifts it (held-mail).
    held: channel.paused ? heldIn(channel, pendingInChannel(state, channel)) : null,
    // Peer-written (opencomms_send's session_description): one neutral line.
    description: channel.description === null ? null : peerLine(channel.description),
    parent_channel_id: channel.parent_channel_id,
    max_members: channel.max_members,
    max_hops: channel.max_hops,
    rate_limit: channel.rate_limit,
    budgets: { ...channel.budgets },
    delivered_total: channel.delivered_total,
    members: channel.members.map((m) => ({
      session_id: m.session_id,
      role: m.role,
      stale: !presence.get(m.session_id)!.present,
      away_since: presence.get(m.session_id)!.away_since,
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
    // A member's model reads the holder's reason: framed, like any peer text (the operator's view keeps it plain).
    reservations: liveReservations(state, channel, now, isAlive).map((r) => ({
      ...r,
      id: reservationId(channel, r),
      holder_away_since: presence.get(r.member_id)?.away_since ?? null,
      reason: !isMemberView || r.reason === null ? r.reason
        : frameHolderText({ held_path: r.path, holder: r.member_id, role: r.role, reason: r.reason }, ctx.nonce())!,
    })),
  };
}

function isVisibleError(entry: ErrorEntry, memberId: string, channelIds: ReadonlySet<string>): boolean {
  if (entry.channel_id === undefined && entry.member_id === undefined) return true;
  return (entry.channel_id !== undefined && channelIds.has(entry.channel_id)) || entry.member_id === memberId;
}

/** Status of the caller's channels (or of one of them); counts only pending mail. */
export function channelStatus(state: State, input: StatusInput, ctx: EngineCtx): ToolResult {
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
  const described = channels.map((c) => describeChannel(state, c, ctx, me !== null));
  const held = described.map((c) => c.held as HeldMail | null).filter((h): h is HeldMail => h !== null);
  const board = boardCounts(state);
  const yours = me === null ? {} : { yours: tasksOf(state).filter((t) => t.claimed_by === me && (t.status === 'claimed' || t.status === 'asked')).map((t) => t.id) };
  return succeed(held.length === 0 ? 'OpenComms status.' : `OpenComms status. ${describeHeld(held)}`, {
    channels: described,
    held,
    // The project's one board, whoever asks (INTERFACE section 8).
    board: { ready: board.ready, claimed: board.claimed, asked: board.asked, blocked: board.blocked, ...yours },
    live_messages: live.length,
    pending_messages: pending.length,
    your_pending: me === null ? null : pending.filter((e) => e.recipient_session_id === me).length,
    ...(me === null ? {} : requestsOf(channels, me)),
    errors: me === null ? [...state.errors] : state.errors.filter((e) => isVisibleError(e, me, ids)),
    // Members whose door rang for their mail without waking them, after its last try (engine/unwoken).
    unwoken: unwokenMailOf(pending),
    // Each waiting message's path so far (queued, rung through a host door, in flight): the caller's own, newest last.
    mail_paths: live.filter((e) => me === null || e.sender_session_id === me || e.recipient_session_id === me)
      .slice(-MAX_STATUS_PATHS)
      .map((e) => ({
        message_id: e.message_id, channel: channels.find((c) => c.id === e.channel_id)?.name ?? e.channel_id,
        from_role: e.sender_role, to_role: e.recipient_role, to: e.recipient_session_id, path: messagePath(e),
      })),
  });
}

export interface HistoryInput {
  channel: string;
  session_id: string;
  limit?: number | null;
  /** A message_id: return only messages older than it. */
  before?: string | null;
  /** Case-insensitive words that must all appear (in the content or the sender's role). */
  query?: string | null;
  /** Only messages of this thread (a thread_id, as send and history report it). */
  thread?: string | null;
  /** Older messages of the channel's saved archives (its resume ancestry), oldest first; searched too. */
  archived?: readonly Envelope[];
}

/** Whether an envelope matches every word of a search. */
function matchesWords(envelope: Envelope, words: readonly string[]): boolean {
  if (words.length === 0) return true;
  const text = `${envelope.content}\n${envelope.sender_role}`.toLowerCase();
  return words.every((word) => text.includes(word));
}

/**
 * A channel's messages, newest first, framed, paged with `before`. Members
 * only. With `query` or `thread` only the matching ones, from the live
 * channel and from its saved archives; each hit framed like any message.
 */
export function channelHistory(state: State, input: HistoryInput, ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const { channel } = found;
  const words = typeof input.query === 'string' ? input.query.toLowerCase().split(/\s+/).filter((w) => w !== '') : [];
  const thread = typeof input.thread === 'string' && input.thread.trim() !== '' ? input.thread.trim() : undefined;
  const isSearch = words.length > 0 || thread !== undefined;
  const live = channelEnvelopes(state, channel.id, ctx.history);
  const known = new Set(live.map((e) => e.message_id));
  const older = isSearch ? (input.archived ?? []).filter((e) => !known.has(e.message_id)) : [];
  const newestFirst = [...older, ...live].reverse();
  const isMatch = (e: Envelope): boolean => (thread === undefined || threadIdOf(e) === thread) && matchesWords(e, words);
  const before = typeof input.before === 'string' && input.before.trim() !== '' ? input.before.trim() : undefined;
  // One pass, newest first, that stops as soon as the page and one more match are found.
  const limit = pageLimit(input.limit);
  const page: Envelope[] = [];
  let isPastBefore = before === undefined;
  let hasMore = false;
  for (const e of newestFirst) {
    if (!isPastBefore) {
      isPastBefore = e.message_id === before && isMatch(e);
      continue;
    }
    if (!isMatch(e)) continue;
    if (page.length === limit) {
      hasMore = true;
      break;
    }
    page.push(e);
  }
  if (!isPastBefore) {
    return refuse('not_found', `before "${before}" is not a message of channel "${channel.name}"${isSearch ? ' that matches this search' : ''}.`);
  }
  const answers = firstAnswers(live);
  return succeed(`${page.length} message(s) from "${channel.name}"${isSearch ? ' matching the search' : ''}.`, {
    messages: page.map((e) => ({
      message_id: e.message_id,
      sender_role: e.sender_role,
      sender_session_id: e.sender_session_id,
      recipient_role: e.recipient_role,
      recipient_session_id: e.recipient_session_id,
      message_type: e.message_type,
      timestamp: e.timestamp,
      reply_to: e.reply_to,
      thread_id: threadIdOf(e),
      hop_count: e.hop_count,
      delivery_status: e.delivery_status,
      // How it went so far: queued, rung through a host door, in context via which path, answered (engine/arrival).
      path: messagePath(e, answers.get(e.message_id)),
      framed: frameMessage(e, channel.name, ctx.nonce()),
    })),
    has_more: hasMore,
    next_before: hasMore && page.length > 0 ? page[page.length - 1]!.message_id : null,
    untrusted_notice: UNTRUSTED_NOTICE,
  });
}
