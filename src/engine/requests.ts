// Open review requests. A `review_request` is open until a `review_response`
// answers it in its thread (from each recipient it was sent to), or until
// its sender closes it by answering the thread with a `review_response` of
// their own. The live state keeps them per channel (a handful), so status
// and the Stop hook know who waits for whom without reading history.
import { threadIdOf } from './compose';
import type { Channel, Envelope, Member, OpenRequest, State } from './types';

/** How many open requests one channel keeps; the oldest go first beyond it. */
export const MAX_OPEN_REQUESTS = 200;

/** Updates the channel's open requests for one send (its envelopes share a thread). */
export function noteRequestTraffic(channel: Channel, sender: Member, envelopes: readonly Envelope[]): void {
  const first = envelopes[0];
  if (!first) return;
  const thread = threadIdOf(first);
  if (first.message_type === 'review_request') {
    const open = channel.open_requests ?? [];
    open.push({
      request_id: first.message_id,
      thread_id: thread,
      from: sender.session_id,
      from_role: sender.role,
      to: envelopes.map((e) => e.recipient_session_id),
      at: first.timestamp,
      reminded: [],
    });
    channel.open_requests = open.slice(-MAX_OPEN_REQUESTS);
    return;
  }
  if (first.message_type !== 'review_response' || !channel.open_requests) return;
  for (const request of channel.open_requests) {
    if (request.thread_id !== thread) continue;
    if (request.from === sender.session_id) request.to = [];
    else request.to = request.to.filter((id) => id !== sender.session_id);
  }
  keepOpen(channel);
}

function keepOpen(channel: Channel): void {
  const open = (channel.open_requests ?? []).filter((r) => r.to.length > 0);
  if (open.length > 0) channel.open_requests = open;
  else delete channel.open_requests;
}

/** Forgets requests of members who left and takes members who left off the ones addressed to them. */
export function pruneRequests(state: State): void {
  for (const channel of Object.values(state.channels)) {
    if (!channel.open_requests) continue;
    const present = new Set(channel.members.map((m) => m.session_id));
    channel.open_requests = channel.open_requests.filter((r) => present.has(r.from));
    for (const request of channel.open_requests) request.to = request.to.filter((id) => present.has(id));
    keepOpen(channel);
  }
}

/** One open request as status shows it. */
export interface RequestView {
  channel: string;
  request_id: string;
  thread_id: string;
  from: string;
  from_role: string;
  to: string[];
  since: number;
}

function viewOf(channel: Channel, r: OpenRequest): RequestView {
  return { channel: channel.name, request_id: r.request_id, thread_id: r.thread_id, from: r.from, from_role: r.from_role, to: [...r.to], since: r.at };
}

/** The open requests addressed to `memberId` and those it sent, oldest first, across the given channels. */
export function requestsOf(channels: readonly Channel[], memberId: string): { waiting_for_you: RequestView[]; you_are_waiting_for: RequestView[] } {
  const forYou: RequestView[] = [];
  const yours: RequestView[] = [];
  for (const channel of channels) {
    for (const r of channel.open_requests ?? []) {
      if (r.to.includes(memberId)) forYou.push(viewOf(channel, r));
      if (r.from === memberId) yours.push(viewOf(channel, r));
    }
  }
  const oldestFirst = (a: RequestView, b: RequestView): number => a.since - b.since;
  return { waiting_for_you: forYou.sort(oldestFirst), you_are_waiting_for: yours.sort(oldestFirst) };
}

/** Whether some open request addressed to `memberId` has not been brought up at its Stop yet. */
export function hasReminderDue(state: State, memberId: string): boolean {
  return Object.values(state.channels).some((c) => c.members.some((m) => m.session_id === memberId)
    && (c.open_requests ?? []).some((r) => r.to.includes(memberId) && !r.reminded.includes(memberId)));
}

/**
 * The requests to bring up at this member's Stop, oldest first. Nothing is
 * marked: the caller marks them (markReminded) once the reminder reached the
 * agent, so a reminder whose answer was never written is given again.
 */
export function dueReminders(state: State, memberId: string): RequestView[] {
  const due: RequestView[] = [];
  for (const channel of Object.values(state.channels)) {
    if (!channel.members.some((m) => m.session_id === memberId)) continue;
    for (const r of channel.open_requests ?? []) {
      if (r.to.includes(memberId) && !r.reminded.includes(memberId)) due.push(viewOf(channel, r));
    }
  }
  return due.sort((a, b) => a.since - b.since);
}

/** Records that `memberId` was reminded of these requests (each is brought up once). */
export function markReminded(state: State, memberId: string, requestIds: readonly string[]): void {
  const ids = new Set(requestIds);
  for (const channel of Object.values(state.channels)) {
    for (const r of channel.open_requests ?? []) {
      if (ids.has(r.request_id) && r.to.includes(memberId) && !r.reminded.includes(memberId)) r.reminded.push(memberId);
    }
  }
}

/** The reminder line a Stop hook gives for open requests. */
export function reminderText(due: readonly RequestView[]): string {
  const items = due.map((r) => `${r.from_role} (${r.from}) on channel "${r.channel}" (message ${r.request_id})`);
  return `[OpenComms: ${due.length} review request(s) addressed to you are still open: ${items.join('; ')}. `
    + 'Answer each with opencomms_send, type review_response, reply_to the request, before you finish.]';
}
