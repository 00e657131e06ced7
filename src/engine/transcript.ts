// The transcript a person reads (`opencomms log`): the messages of a period,
// in send order across channels, each with its sender, reply chain and path,
// and one summary per channel. Pure: the period's bounds come in as numbers.
import { firstAnswers, messagePath, type PathStep } from './arrival';
import { channelEnvelopes } from './envelopes';
import { isPersonMemberId, type PersonTerminal } from './person';
import { refuse, succeed } from './reasons';
import { findChannel } from './validate';
import type { Channel, HistoryView, State, ToolResult } from './types';

/** Who sent or received a message, as the transcript names them. */
export interface TranscriptParty {
  role: string;
  member: string;
  /** The host of the member while it is still on the channel; null once it left. */
  host: string | null;
  kind: 'person' | 'agent';
}

/** One message of the transcript. Content, roles and ids are peer text: the printer makes them harmless. */
export interface TranscriptMessage {
  channel: string;
  channel_id: string;
  message_id: string;
  at: number;
  type: string;
  from: TranscriptParty;
  to: TranscriptParty;
  reply_to: string | null;
  thread_id: string | null;
  content: string;
  path: PathStep[];
  person_terminal?: PersonTerminal;
}

/** One channel's period at a glance. */
export interface ChannelPeriod {
  channel: string;
  channel_id: string;
  messages: number;
  open_review_requests: number;
  tasks: { done: number; claimed: number; asked: number };
  reservations: { taken: number; lapsed: number };
  /** Mail that failed, was rejected or went stale, and errors recorded for the channel, in the period. */
  problems: number;
}

export interface TranscriptInput {
  /** A channel name or id; every channel when absent. */
  channel?: string;
  /** The period's start (ms since the epoch); the whole history when null. */
  since: number | null;
  now: number;
}

function partyOf(channel: Channel, memberId: string, role: string): TranscriptParty {
  const member = channel.members.find((m) => m.session_id === memberId);
  return { role, member: memberId, host: member?.host ?? null, kind: isPersonMemberId(memberId) ? 'person' : 'agent' };
}

function isInPeriod(at: number | null | undefined, input: TranscriptInput): boolean {
  return typeof at === 'number' && (input.since === null || at >= input.since) && at <= input.now;
}

function summarise(state: State, channel: Channel, messages: readonly TranscriptMessage[], input: TranscriptInput): ChannelPeriod {
  const tasks = { done: 0, claimed: 0, asked: 0 };
  for (const task of Object.values(state.board?.tasks ?? {})) {
    if (task.channel === null || findChannel(state, task.channel)?.id !== channel.id) continue;
    for (const entry of task.log) {
      if (!isInPeriod(entry.at, input)) continue;
      if (entry.what === 'done' || entry.what === 'claimed' || entry.what === 'asked') tasks[entry.what] += 1;
    }
  }
  const reservations = channel.reservations ?? [];
  const failures = messages.filter((m) => ['failed', 'rejected', 'stale'].includes(m.path[m.path.length - 1]!.step)).length;
  const errors = state.errors.filter((e) => e.channel_id === channel.id && isInPeriod(e.at, input)).length;
  return {
    channel: channel.name,
    channel_id: channel.id,
    messages: messages.length,
    open_review_requests: (channel.open_requests ?? []).length,
    tasks,
    reservations: {
      taken: reservations.filter((r) => isInPeriod(r.created_at, input)).length,
      lapsed: reservations.filter((r) => isInPeriod(r.expires_at, input)).length,
    },
    problems: failures + errors,
  };
}

function messagesOf(state: State, channel: Channel, history: HistoryView, input: TranscriptInput): TranscriptMessage[] {
  const envelopes = channelEnvelopes(state, channel.id, history);
  const answers = firstAnswers(envelopes);
  const messages: TranscriptMessage[] = [];
  for (const e of envelopes) {
    if (input.since !== null && e.timestamp < input.since) continue;
    messages.push({
      channel: channel.name,
      channel_id: channel.id,
      message_id: e.message_id,
      at: e.timestamp,
      type: e.message_type,
      from: partyOf(channel, e.sender_session_id, e.sender_role),
      to: partyOf(channel, e.recipient_session_id, e.recipient_role),
      reply_to: e.reply_to,
      thread_id: e.thread_id ?? e.root_message_id ?? null,
      content: e.content,
      path: messagePath(e, answers.get(e.message_id)),
      ...(e.person_terminal ? { person_terminal: e.person_terminal } : {}),
    });
  }
  return messages;
}

/**
 * The transcript of a period: `data.channels` (one ChannelPeriod each, by
 * name) and `data.messages` (send order across channels). Refuses
 * `not_found` for a channel that does not exist.
 */
export function transcriptOf(state: State, history: HistoryView, input: TranscriptInput): ToolResult {
  let channels = Object.values(state.channels).filter((c) => c.lifecycle === 'active');
  if (input.channel !== undefined) {
    const wanted = findChannel(state, input.channel);
    if (!wanted) return refuse('not_found', `There is no channel "${input.channel}" in this project: opencomms status lists them.`);
    channels = [wanted];
  }
  channels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const periods: ChannelPeriod[] = [];
  const all: TranscriptMessage[] = [];
  for (const channel of channels) {
    const messages = messagesOf(state, channel, history, input);
    periods.push(summarise(state, channel, messages, input));
    all.push(...messages);
  }
  // Each channel is already in send order (seq); a stable sort by time
  // interleaves the channels and keeps that order for sends of one millisecond.
  all.sort((a, b) => a.at - b.at);
  return succeed(`${all.length} message(s) on ${periods.length} channel(s).`, { channels: periods, messages: all });
}
