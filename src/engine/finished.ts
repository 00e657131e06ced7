// Finished envelopes (delivered, failed, stale, rejected) leave the live state
// for history, so the state stays as small as the undelivered mail. Which
// envelopes go, and as what records, is decided here once; each store only
// writes the records where it keeps history (a log file per channel, or a
// Redis stream) in the same commit that saves the state without them.
import { CHANNEL_ID_PATTERN } from './constants';
import { isFinished } from './envelopes';
import type { HistoryRecord, State } from './types';
import { ownValue } from './validate';

/**
 * Takes every finished envelope out of `state` (messages, delivered_to and
 * queues) and returns them as history records grouped by channel, in the
 * state's order. An envelope whose channel id is malformed stays: no store
 * may build a file name or key from it.
 */
export function takeFinished(state: State): Map<string, HistoryRecord[]> {
  const byChannel = new Map<string, HistoryRecord[]>();
  const movedIds = new Set<string>();
  for (const envelope of Object.values(state.messages)) {
    if (!isFinished(envelope.delivery_status) || !CHANNEL_ID_PATTERN.test(envelope.channel_id)) continue;
    const record: HistoryRecord = { ...envelope, delivered_to: ownValue(state.delivered_to, envelope.message_id) ?? [] };
    const group = byChannel.get(envelope.channel_id);
    if (group) group.push(record);
    else byChannel.set(envelope.channel_id, [record]);
    movedIds.add(envelope.message_id);
  }
  if (movedIds.size === 0) return byChannel;
  for (const id of movedIds) {
    delete state.messages[id];
    delete state.delivered_to[id];
  }
  for (const [recipient, queue] of Object.entries(state.queues)) {
    if (queue.some((id) => movedIds.has(id))) state.queues[recipient] = queue.filter((id) => !movedIds.has(id));
  }
  return byChannel;
}
