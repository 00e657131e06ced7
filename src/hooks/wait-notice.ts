// The one line `hook --wait` prints on stderr to wake an idle agent: who
// wrote, in which channel, how many messages wait, and that opencomms_pull
// reads them. Never the content: the notice reaches the model outside the
// untrusted framing that pull applies, so it carries only names the engine
// validated, and even those are clipped and stripped of anything unusual.
import { budgetRefusal, type Envelope, type State } from '../engine';

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

function listOf(items: string[]): string {
  const shown = items.slice(0, MAX_LISTED);
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/**
 * The member's pending mail a drain would hand over now, by the same rule as
 * countDeliverable (channel present, not paused, within budget, still a
 * member), grouped by channel name in queue order.
 */
function deliverableByChannel(state: State, memberId: string, now: number): Map<string, Envelope[]> {
  const byChannel = new Map<string, Envelope[]>();
  for (const id of state.queues[memberId] ?? []) {
    const envelope = Object.prototype.hasOwnProperty.call(state.messages, id) ? state.messages[id] : undefined;
    if (!envelope || envelope.recipient_session_id !== memberId || envelope.delivery_status !== 'pending') continue;
    const channel = Object.values(state.channels).find((c) => c.id === envelope.channel_id);
    if (!channel || channel.paused || budgetRefusal(channel, now)) continue;
    if (!channel.members.some((m) => m.session_id === memberId)) continue;
    byChannel.set(channel.name, [...(byChannel.get(channel.name) ?? []), envelope]);
  }
  return byChannel;
}

function sendersOf(envelopes: Envelope[]): string {
  const senders = [...new Set(envelopes.map((e) => `${clip(e.sender_role)} (${clip(e.sender_session_id)})`))];
  return listOf(senders);
}

/** What waits for `memberId` now, or undefined when nothing does. */
export function waitingMail(state: State, memberId: string, now: number): WaitingMail | undefined {
  const byChannel = deliverableByChannel(state, memberId, now);
  let count = 0;
  for (const list of byChannel.values()) count += list.length;
  if (count === 0) return undefined;
  const plural = count === 1 ? '' : 's';
  const them = count === 1 ? 'it' : 'them';
  const where = [...byChannel].map(([name, list]) => `${list.length} in channel "${clip(name)}" from ${sendersOf(list)}`);
  return {
    count,
    notice: `OpenComms: ${count} new message${plural} waiting for you (${listOf(where)}); call opencomms_pull to read ${them}.`,
  };
}
