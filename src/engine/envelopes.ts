// Where envelopes live and in what order. Live mail is in state.messages;
// finished mail may still be there (same mutation, or a file the store has
// not re-saved yet) or already in history. Everything that reads a channel's
// messages goes through channelEnvelopes so both places are always seen.
import { FINISHED_STATUSES } from './types';
import { ownValue } from './validate';
import type { DeliveryStatus, Envelope, HistoryRecord, HistoryView, State } from './types';

/** True for delivered, failed, rejected and stale. */
export function isFinished(status: DeliveryStatus): boolean {
  return FINISHED_STATUSES.includes(status);
}

/** True for pending and in_flight: mail someone still has to receive. */
export function isLive(envelope: Envelope): boolean {
  return !isFinished(envelope.delivery_status);
}

/**
 * Send order: by seq when both envelopes carry one, else by timestamp
 * (envelopes written by the reference have no seq). The copies of one
 * broadcast share both, so message_id breaks the tie: the order must not
 * depend on where each copy happens to be kept (state or history), or a
 * `before` cursor would repeat one copy and skip another between pages.
 */
export function compareSendOrder(a: Envelope, b: Envelope): number {
  const bySend = typeof a.seq === 'number' && typeof b.seq === 'number' ? a.seq - b.seq : a.timestamp - b.timestamp;
  if (bySend !== 0) return bySend;
  return a.message_id < b.message_id ? -1 : a.message_id > b.message_id ? 1 : 0;
}

function toRecord(state: State, envelope: Envelope): HistoryRecord {
  return { ...envelope, delivered_to: [...(ownValue(state.delivered_to, envelope.message_id) ?? [])] };
}

/**
 * All envelopes of a channel, oldest first: live ones from state.messages
 * plus finished ones from history, one per message_id, state.messages
 * winning because it holds the newer copy.
 */
export function channelEnvelopes(state: State, channelId: string, history: HistoryView): HistoryRecord[] {
  const byId = new Map<string, HistoryRecord>();
  for (const record of history.list(channelId)) byId.set(record.message_id, record);
  for (const envelope of Object.values(state.messages)) {
    if (envelope.channel_id === channelId) byId.set(envelope.message_id, toRecord(state, envelope));
  }
  return [...byId.values()].sort(compareSendOrder);
}

/** One envelope of a channel, live or finished, or undefined. */
export function findChannelEnvelope(
  state: State,
  channelId: string,
  messageId: string,
  history: HistoryView,
): HistoryRecord | undefined {
  const live = ownValue(state.messages, messageId);
  if (live) return live.channel_id === channelId ? toRecord(state, live) : undefined;
  const found = history.find(channelId, messageId);
  return found && found.channel_id === channelId ? found : undefined;
}

/** Removes every occurrence of the ids from a recipient's queue; drops the queue when empty. */
export function removeFromQueue(state: State, recipient: string, ids: ReadonlySet<string>): void {
  const queue = ownValue(state.queues, recipient);
  if (!queue) return;
  const kept = queue.filter((id) => !ids.has(id));
  if (kept.length === 0) delete state.queues[recipient];
  else state.queues[recipient] = kept;
}

/** Ends an envelope's life with the given status and takes it out of its queue. */
export function finishEnvelope(state: State, envelope: Envelope, status: DeliveryStatus, now: number | null = null): void {
  envelope.delivery_status = status;
  envelope.delivery_owner = null;
  if (status !== 'delivered') envelope.delivered_at = null;
  else envelope.delivered_at = now;
  removeFromQueue(state, envelope.recipient_session_id, new Set([envelope.message_id]));
}

/**
 * Puts pending envelopes back into their recipient's queue at the place
 * their send order gives them, so FIFO holds however the envelopes return.
 */
export function insertInSendOrder(state: State, recipient: string, envelopes: readonly Envelope[]): void {
  const queue = [...(ownValue(state.queues, recipient) ?? [])];
  const present = new Set(queue);
  for (const envelope of [...envelopes].sort(compareSendOrder)) {
    if (present.has(envelope.message_id)) continue;
    let at = queue.findIndex((id) => {
      const other = ownValue(state.messages, id);
      return other !== undefined && compareSendOrder(envelope, other) < 0;
    });
    if (at < 0) at = queue.length;
    queue.splice(at, 0, envelope.message_id);
    present.add(envelope.message_id);
  }
  if (queue.length > 0) state.queues[recipient] = queue;
}

/** Appends an id to a recipient's queue. */
export function enqueueEnvelope(state: State, recipient: string, messageId: string): void {
  const queue = ownValue(state.queues, recipient) ?? [];
  queue.push(messageId);
  state.queues[recipient] = queue;
}

/** Records that an envelope was handed to a recipient. */
export function noteDeliveredTo(state: State, messageId: string, recipient: string): void {
  const list = ownValue(state.delivered_to, messageId) ?? [];
  if (!list.includes(recipient)) list.push(recipient);
  state.delivered_to[messageId] = list;
}

/** Takes the next send sequence number. */
export function takeSeq(state: State): number {
  const seq = typeof state.next_seq === 'number' && Number.isFinite(state.next_seq) ? state.next_seq : 1;
  state.next_seq = seq + 1;
  return seq;
}

/** Pending envelopes queued for a recipient, optionally only those of one channel. */
export function pendingFor(state: State, recipient: string, channelId?: string): Envelope[] {
  const out: Envelope[] = [];
  for (const id of ownValue(state.queues, recipient) ?? []) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.delivery_status !== 'pending' || envelope.recipient_session_id !== recipient) continue;
    if (channelId !== undefined && envelope.channel_id !== channelId) continue;
    out.push(envelope);
  }
  return out;
}
