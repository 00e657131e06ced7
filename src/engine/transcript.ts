// The transcript a person reads (`opencomms log`): the messages of a period,
// in send order across channels, each with its sender, reply chain and path,
// and one summary per channel. Pure: the period's bounds come in as numbers.
import { reservationCounts } from './reservation-log';
import { firstAnswers, messagePath, type PathStep } from './arrival';
import { channelEnvelopes } from './envelopes';
import { isPersonMemberId, type PersonTerminal } from './person';
import { refuse, succeed } from './reasons';
import { findChannel } from './validate';
import type { Channel, HistoryRecord, HistoryView, State, ToolResult } from './types';

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

/** Whether a time lies in the period: at or after since (when given) and not after now. */
export function isInPeriod(at: number | null | undefined, input: TranscriptInput): boolean {
  return typeof at === 'number' && (input.since === null || at >= input.since) && at <= input.now;
}

/** Whether a message's path ends in trouble (failed, rejected, stale): a problem of its channel. */
export function isProblemPath(path: readonly PathStep[]): boolean {
  const last = path[path.length - 1]!.step === 'answered' ? path[path.length - 2] : path[path.length - 1];
  return last !== undefined && ['failed', 'rejected', 'stale'].includes(last.step);
}

/** What the reader of a channel's messages counted for its period line. */
export interface PeriodCounts {
  messages: number;
  /** Messages of the period whose path ended failed, rejected or stale. */
  failures: number;
}

/** One channel's period line, from the counts of its messages and what the state records. */
export function channelPeriodOf(state: State, channel: Channel, counts: PeriodCounts, input: TranscriptInput): ChannelPeriod {
  const tasks = { done: 0, claimed: 0, asked: 0 };
  for (const task of Object.values(state.board?.tasks ?? {})) {
    if (task.channel === null || findChannel(state, task.channel)?.id !== channel.id) continue;
    for (const entry of task.log) {
      if (!isInPeriod(entry.at, input)) continue;
      if (entry.what === 'done' || entry.what === 'claimed' || entry.what === 'asked') tasks[entry.what] += 1;
    }
  }
  const errors = state.errors.filter((e) => e.channel_id === channel.id && isInPeriod(e.at, input)).length;
  return {
    channel: channel.name,
    channel_id: channel.id,
    messages: counts.messages,
    open_review_requests: (channel.open_requests ?? []).length,
    tasks,
    reservations: reservationCounts(channel, (at) => isInPeriod(at, input), input.now),
    problems: counts.failures + errors,
  };
}

/** One message as the transcript shows it; `answer` is its first answer by its recipient (firstAnswers), if any. */
export function transcriptMessageOf(channel: Channel, e: HistoryRecord, answer?: { message_id: string; timestamp: number }): TranscriptMessage {
  return {
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
    path: messagePath(e, answer),
    ...(e.person_terminal ? { person_terminal: e.person_terminal } : {}),
  };
}

function messagesOf(state: State, channel: Channel, history: HistoryView, input: TranscriptInput): TranscriptMessage[] {
  const envelopes = channelEnvelopes(state, channel.id, history);
  const answers = firstAnswers(envelopes);
  return envelopes.filter((e) => input.since === null || e.timestamp >= input.since)
    .map((e) => transcriptMessageOf(channel, e, answers.get(e.message_id)));
}

/**
 * The channels a transcript covers, by name: the one named (by name or id),
 * or every active one. Refuses `not_found` for a channel that does not exist.
 */
export function transcriptChannels(state: State, wanted: string | undefined): Channel[] | ToolResult {
  if (wanted !== undefined) {
    const found = findChannel(state, wanted);
    return found ? [found] : refuse('not_found', `There is no channel "${wanted}" in this project: opencomms status lists them.`);
  }
  return Object.values(state.channels).filter((c) => c.lifecycle === 'active').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The transcript of a period, whole: `data.channels` (one ChannelPeriod
 * each, by name) and `data.messages` (send order across channels). For a
 * history that fits in memory (tests, small tools); `opencomms log` pages
 * through the history instead (cli/log-index.ts) and gives the same answer.
 * Refuses `not_found` for a channel that does not exist.
 */
export function transcriptOf(state: State, history: HistoryView, input: TranscriptInput): ToolResult {
  const channels = transcriptChannels(state, input.channel);
  if (!Array.isArray(channels)) return channels;
  const periods: ChannelPeriod[] = [];
  const all: TranscriptMessage[] = [];
  for (const channel of channels) {
    const messages = messagesOf(state, channel, history, input);
    periods.push(channelPeriodOf(state, channel, { messages: messages.length, failures: messages.filter((m) => isProblemPath(m.path)).length }, input));
    all.push(...messages);
  }
  // Each channel is already in send order (seq); a stable sort by time
  // interleaves the channels and keeps that order for sends of one millisecond.
  all.sort((a, b) => a.at - b.at);
  return succeed(`${all.length} message(s) on ${periods.length} channel(s).`, { channels: periods, messages: all });
}
