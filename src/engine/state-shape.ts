// Validation and backfill of one envelope or history record read from disk
// (channels: channel-shape.ts, members: member-shape.ts). A wrong type is a
// rejection; a missing field with a known default is filled in and noted.
import { fill, isFiniteNumber, isObj, numberOrNull, rejectShape, requireType, ShapeError, stringOrNull } from './shape-checks';
import type { DeliveryMethod, DeliveryPath, DeliveryStatus, Envelope, HistoryRecord, MessageType } from './types';

export const MESSAGE_TYPES: readonly MessageType[] = ['review_request', 'review_response', 'manual', 'system'];
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'in_flight', 'delivered', 'failed', 'rejected', 'stale'];
const DELIVERY_METHODS: readonly DeliveryMethod[] = ['push', 'spawn_push', 'pull'];
export const DELIVERY_PATHS: readonly DeliveryPath[] = ['hook', 'doorbell', 'spawn', 'plugin', 'pull', 'inbox', 'codex_queue'];
export const HOST_DOORS: readonly string[] = ['inbox', 'codex_queue'];

/** Validates and completes one envelope stored under `key`. */
export function checkEnvelope(key: string, raw: unknown, notes: string[]): Envelope {
  const where = `message "${key}"`;
  if (!isObj(raw)) rejectShape(`${where} is not an object`);
  const e = raw;
  if (e.message_id !== key) rejectShape(`${where} is stored under a different message_id`);
  for (const field of ['channel_id', 'sender_session_id', 'sender_role', 'recipient_session_id', 'recipient_role', 'content', 'correlation_id']) {
    requireType(typeof e[field] === 'string', where, field, 'a string');
  }
  if (e.recipient_session_id === '__proto__') rejectShape(`${where} has a forbidden recipient`);
  requireType(isFiniteNumber(e.timestamp), where, 'timestamp', 'a number');
  requireType(MESSAGE_TYPES.includes(e.message_type as MessageType), where, 'message_type', `one of ${MESSAGE_TYPES.join(', ')}`);
  requireType(DELIVERY_STATUSES.includes(e.delivery_status as DeliveryStatus), where, 'delivery_status', `one of ${DELIVERY_STATUSES.join(', ')}`);
  stringOrNull(e, 'reply_to', where, notes);
  stringOrNull(e, 'root_message_id', where, notes);
  fill(e, 'hop_count', 0, where, notes);
  requireType(Number.isInteger(e.hop_count) && (e.hop_count as number) >= 0, where, 'hop_count', 'a non-negative integer');
  numberOrNull(e, 'delivered_at', where, notes);
  fill(e, 'attempts', 0, where, notes);
  requireType(Number.isInteger(e.attempts) && (e.attempts as number) >= 0, where, 'attempts', 'a non-negative integer');
  fill(e, 'delivery_method', null, where, notes);
  requireType(e.delivery_method === null || DELIVERY_METHODS.includes(e.delivery_method as DeliveryMethod), where, 'delivery_method', 'a delivery method or null');
  // Our addition, read by nothing that decides: a value a newer version may add is dropped, not refused.
  if (e.delivered_via !== undefined && !DELIVERY_PATHS.includes(e.delivered_via as DeliveryPath)) {
    delete e.delivered_via;
    notes.push(`${where}: delivered_via dropped (not a known delivery path)`);
  }
  if ((e.rung_via !== undefined && !HOST_DOORS.includes(e.rung_via as string)) || (e.rung_at !== undefined && !isFiniteNumber(e.rung_at))) {
    delete e.rung_via;
    delete e.rung_at;
    notes.push(`${where}: rung_via/rung_at dropped (not a known door and a time)`);
  }
  if (e.delivery_owner !== undefined && e.delivery_owner !== null) {
    const o = e.delivery_owner;
    requireType(isObj(o) && isFiniteNumber(o.pid) && typeof o.host === 'string' && isFiniteNumber(o.lease_until), where, 'delivery_owner', '{pid, host, lease_until}');
  }
  if (e.thread_id !== undefined && typeof e.thread_id !== 'string') {
    delete e.thread_id;
    notes.push(`${where}: thread_id dropped (not a string)`);
  }
  // The next seq is one more than the highest, so each must stay an exact
  // integer; one that is not is dropped (the envelope then orders by time).
  if (e.seq !== undefined && !(Number.isSafeInteger(e.seq) && (e.seq as number) >= 0 && (e.seq as number) < Number.MAX_SAFE_INTEGER)) {
    delete e.seq;
    notes.push(`${where}: seq dropped (not a non-negative safe integer)`);
  }
  return e as unknown as Envelope;
}

/**
 * Validates one history record (an archived message or a line of a history
 * log): a complete envelope, plus who received it. `delivered_to` is optional
 * (absent or malformed means nobody); non-string entries are dropped.
 */
export function checkHistoryRecord(raw: unknown, where: string, notes: string[]): HistoryRecord {
  const record = isObj(raw) ? raw : {};
  if (typeof record.message_id !== 'string') rejectShape(`${where}: message_id must be a string`);
  const envelope = checkEnvelope(record.message_id, raw, notes);
  const deliveredTo = Array.isArray(record.delivered_to) ? record.delivered_to.filter((x): x is string => typeof x === 'string') : [];
  return { ...envelope, delivered_to: deliveredTo };
}

/** A checked history record, or undefined when the value is not one. */
export function parseHistoryRecord(value: unknown): HistoryRecord | undefined {
  try {
    return checkHistoryRecord(value, 'history record', []);
  } catch (err) {
    if (err instanceof ShapeError) return undefined;
    throw err;
  }
}
