// sendMessage: the checks run in the documented order, and nothing is
// written until every check has passed.
import { budgetRefusal } from './budgets';
import { queueEnvelopes, rootThread, threadIdOf, type Thread } from './compose';
import { MAX_CONTENT_CHARS, MAX_SESSION_DESCRIPTION_CHARS, RATE_WINDOW_MS } from './constants';
import { findChannelEnvelope } from './envelopes';
import { peerLine } from './framing';
import { countMessage, describeStreakPause, pauseRefusal } from './loop-guard';
import { heldIn, pendingInChannel } from './held-mail';
import { refuse, succeed, type Refusal } from './reasons';
import { resolveRecipients } from './recipients';
import { backlogRefusal } from './retention';
import { noteRequestTraffic } from './requests';
import { recordSeen, seenWithin, sweepSeen } from './seen-recent';
import { handOverClock, isClockRunning } from './timer-clock';
import { awaySinceText, retentionDays } from './away';
import { JUDGE_BY_LEASE, presenceOf } from './presence';
import { findChannel, isNonBlank, memberOf, normalizeChannelName, ownValue } from './validate';
import type { Channel, EngineCtx, Member, MessageType, State, ToolResult } from './types';

/** Message types a member may send; `system` is kept for the engine's own notices. */
export const SENDER_MESSAGE_TYPES: readonly MessageType[] = ['review_request', 'review_response', 'manual'];

export interface SendMessageInput {
  channel: string;
  session_id: string;
  content: string;
  type?: string | null;
  reply_to?: string | null;
  to?: string | null;
  broadcast?: boolean;
  session_description?: string | null;
}

function checkMessageType(type: string | null | undefined): MessageType | Refusal {
  if (type === undefined || type === null) return 'manual';
  if (type === 'system') return refuse('invalid_message_type', 'The system message type is reserved for OpenComms notices.');
  if ((SENDER_MESSAGE_TYPES as readonly string[]).includes(type)) return type as MessageType;
  return refuse('invalid_message_type', `Unknown message type "${type}". Valid types: ${SENDER_MESSAGE_TYPES.join(', ')}.`);
}

function takeRateSlot(channel: Channel, now: number): Refusal | null {
  // A window that starts in the future (a clock that moved back, a machine
  // whose clock runs ahead) cannot be measured here: a new one starts, rather
  // than one that would last until this clock caught up.
  const age = now - channel.rate.window_start;
  if (age > RATE_WINDOW_MS || age < 0) channel.rate = { window_start: now, count: 0 };
  channel.rate.count += 1;
  if (channel.rate.count > channel.rate_limit) {
    return refuse('rate_limited', `Rate limit reached on "${channel.name}" (${channel.rate_limit} messages per minute).`);
  }
  return null;
}

/** The thread a reply joins; the parent must be a message of this same channel. */
function threadFor(state: State, channel: Channel, replyTo: string | null | undefined, ctx: EngineCtx): Thread | Refusal {
  if (replyTo === undefined || replyTo === null || replyTo.trim() === '') return rootThread(ctx);
  const parentId = replyTo.trim();
  const parent = findChannelEnvelope(state, channel.id, parentId, ctx.history);
  if (!parent) {
    return refuse('invalid_reply_to', `reply_to "${parentId}" is not a message of channel "${channel.name}".`);
  }
  const thread: Thread = {
    reply_to: parentId,
    root_message_id: parent.root_message_id ?? parent.message_id,
    hop_count: parent.hop_count + 1,
    correlation_id: parent.correlation_id,
    thread_id: threadIdOf(parent),
  };
  if (thread.hop_count > channel.max_hops) {
    return refuse('hop_limit', `This reply would pass the maximum hop count (${channel.max_hops}) of "${channel.name}".`);
  }
  return thread;
}

function cleanDescription(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const text = peerLine(raw, MAX_SESSION_DESCRIPTION_CHARS);
  return text === '' ? null : text;
}

/** What a sender is told about recipients whose session has ended: their mail waits, and until when. */
function describeAway(away: readonly Member[], retentionMs: number): string {
  const who = away.map((m) => `${m.role} (${m.session_id}) is away since ${awaySinceText(m)}`).join('; ');
  const days = retentionDays(retentionMs);
  return `${who}. The mail waits and is delivered when their session resumes (or they pull); a member away for more than ${days} day(s) leaves the channel and you are told what was not delivered.`;
}

/** Queues one envelope per recipient after the full set of checks. */
export function sendMessage(state: State, input: SendMessageInput, ctx: EngineCtx): ToolResult {
  const now = ctx.now();
  const channel = typeof input.channel === 'string' ? findChannel(state, input.channel) : undefined;
  if (!channel) return refuse('channel_not_found', `Channel "${normalizeChannelName(String(input.channel ?? ''))}" does not exist.`);
  const sender = memberOf(channel, input.session_id);
  if (!sender) return refuse('not_member', `You are not a member of channel "${channel.name}".`);
  if (channel.lifecycle !== 'active') return refuse('not_active', `Channel "${channel.name}" is ${channel.lifecycle}; nothing can be sent on it.`);
  const paused = pauseRefusal(channel, sender.session_id);
  if (paused) return paused;
  const budget = budgetRefusal(channel, now);
  if (budget) return budget;
  if (!isNonBlank(input.content)) return refuse('content_required', 'content is required.');
  if (input.content.length > MAX_CONTENT_CHARS) {
    return refuse('content_too_large', `content is too large (at most ${MAX_CONTENT_CHARS} characters).`);
  }
  const type = checkMessageType(input.type);
  if (typeof type !== 'string') return type;
  const recipients = resolveRecipients(channel, sender, input.to, input.broadcast === true);
  if ('ok' in recipients) return recipients;
  const rate = takeRateSlot(channel, now);
  if (rate) return rate;
  sweepSeen(channel, now);
  const contentHash = ctx.hash32(input.content);
  const ownSeen = ownValue(channel.seen_recent, sender.session_id);
  if (ownSeen !== undefined && seenWithin(ownSeen, contentHash, now, channel.stale_event_ms)) {
    return refuse('duplicate', 'Duplicate message content: you sent the same text on this channel moments ago.');
  }
  const thread = threadFor(state, channel, input.reply_to, ctx);
  if ('ok' in thread) return thread;
  const backlog = backlogRefusal(state, input.content, recipients.length);
  if (backlog) return backlog;

  // processed_correlations was write-only in the reference; it is kept on
  // disk for compatibility but no longer grows, since nothing reads it.
  recordSeen(channel, sender.session_id, contentHash, now);
  const envelopes = queueEnvelopes(state, channel, sender, recipients, { message_type: type, content: input.content, thread }, ctx);
  noteRequestTraffic(channel, sender, envelopes);
  const description = cleanDescription(input.session_description);
  const recordedDescription = description !== null && !isNonBlank(channel.description);
  if (recordedDescription) channel.description = description;
  // The chess clock follows the conversation only once someone has started it.
  if (isClockRunning(channel.timer)) handOverClock(channel.timer, recipients[0]!.session_id, now);
  const guard = countMessage(channel, sender.session_id, now);

  const first = recipients[0]!;
  const data: Record<string, unknown> = {
    message_ids: envelopes.map((e) => e.message_id),
    thread_id: threadIdOf(envelopes[0]!),
    recipients: recipients.map((m) => m.session_id),
    delivery_status: 'pending',
  };
  if (recordedDescription) data.session_description = description;
  // The presence judgement (presenceOf), as status and watch show it; tidy already set the marks from it.
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  const away = recipients.map((m) => ({ m, judged: presenceOf(state, m.session_id, now, isAlive) }))
    .filter(({ judged }) => !judged.present).map(({ m, judged }) => ({ ...m, stale: true, stale_at: judged.away_since }));
  if (away.length > 0) data.away = away.map((m) => ({ member: m.session_id, role: m.role, since: m.stale_at }));
  if (guard === 'paused') Object.assign(data, { paused: true, pause_reason: 'agent_streak' });
  if (guard === 'lifted') data.resumed = true;
  const queued = recipients.length === 1
    ? `Message queued for ${first.role} (${first.session_id}).`
    : `Message queued for ${recipients.length} members.`;
  const notes = [queued];
  if (away.length > 0) notes.push(describeAway(away, channel.away_retention_ms));
  // The sender learns of the pause in the reply that caused it, so its agent can tell its user at once.
  if (guard === 'paused') {
    const held = heldIn(channel, pendingInChannel(state, channel));
    data.held = [held];
    notes.push(`${describeStreakPause(channel)} Nothing more is sent or delivered on it until then. ${held.text}`);
  }
  if (guard === 'lifted') notes.push(`This lifted the loop-guard pause of "${channel.name}".`);
  return succeed(notes.join(' '), data);
}
