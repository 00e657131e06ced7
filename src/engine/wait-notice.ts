// The one line `hook --wait` prints on stderr to wake an idle agent: who
// wrote, in which channel, how many messages wait, and that opencomms_pull
// reads them. Never the content: the notice reaches the model outside the
// untrusted framing that pull applies, so it carries only names the engine
// validated, and even those are clipped and stripped of anything unusual.
import { budgetRefusal } from './budgets';
import { TASK_READY_NOTICE } from './task-types';
import type { Envelope, State } from './types';
import { channelById, ownValue } from './validate';

/** Mail waiting for a member, as the notice describes it. */
export interface WaitingMail {
  count: number;
  notice: string;
}

const MAX_NAME_CHARS = 40;
const MAX_LISTED = 3;

function clip(name: string): string {
  const plain = name.replace(/[^\w .:@/-]/g, '?');
  return plain.length > MAX_NAME_CHARS ? `${plain.slice(0, MAX_NAME_CHARS - 1)}…` : plain;
}

function listInWords(items: string[]): string {
  const shown = items.slice(0, MAX_LISTED);
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/**
 * The member's pending mail a drain would hand over now, in queue order.
 * Mail whose channel is gone or paused, or over budget, is not counted: a
 * later drain or pull tidies it.
 */
export function deliverableMail(state: State, memberId: string, now: number): Envelope[] {
  const out: Envelope[] = [];
  // Own keys only: a member id such as "constructor" must not find Object.prototype's.
  for (const id of ownValue(state.queues, memberId) ?? []) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.recipient_session_id !== memberId || envelope.delivery_status !== 'pending') continue;
    const channel = channelById(state, envelope.channel_id);
    if (!channel || channel.paused || budgetRefusal(channel, now)) continue;
    if (channel.members.some((m) => m.session_id === memberId)) out.push(envelope);
  }
  return out;
}

/** What a drain would hand over now (deliverableMail), grouped by channel name in queue order. */
function deliverableByChannel(state: State, memberId: string, now: number): Map<string, Envelope[]> {
  const names = new Map(Object.values(state.channels).map((c) => [c.id, c.name] as const));
  const byChannel = new Map<string, Envelope[]>();
  for (const envelope of deliverableMail(state, memberId, now)) {
    const name = names.get(envelope.channel_id) ?? envelope.channel_id;
    byChannel.set(name, [...(byChannel.get(name) ?? []), envelope]);
  }
  return byChannel;
}

function sendersOf(envelopes: Envelope[]): string {
  const senders = [...new Set(envelopes.map((e) => `${clip(e.sender_role)} (${clip(e.sender_session_id)})`))];
  return listInWords(senders);
}

/** Whether the board rang `memberId` for work (a task it may take became ready) and it was not told yet. */
function hasWake(state: State, memberId: string): boolean {
  return state.board !== undefined && Object.prototype.hasOwnProperty.call(state.board.wakes, memberId);
}

/** What waits for `memberId` now (mail, or a task ready for it), or undefined when nothing does. */
export function waitingMail(state: State, memberId: string, now: number): WaitingMail | undefined {
  const byChannel = deliverableByChannel(state, memberId, now);
  let count = 0;
  for (const list of byChannel.values()) count += list.length;
  if (count === 0) return hasWake(state, memberId) ? { count: 0, notice: `OpenComms: ${TASK_READY_NOTICE}.` } : undefined;
  const plural = count === 1 ? '' : 's';
  const them = count === 1 ? 'it' : 'them';
  const where = [...byChannel].map(([name, list]) => `${list.length} in channel "${clip(name)}" from ${sendersOf(list)}`);
  const work = hasWake(state, memberId) ? ` Also, ${TASK_READY_NOTICE}.` : '';
  return {
    count,
    notice: `OpenComms: ${count} new message${plural} waiting for you (${listInWords(where)}); call opencomms_pull to read ${them}.${work}`,
  };
}
