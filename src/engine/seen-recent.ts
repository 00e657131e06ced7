// The duplicate-send index of a channel, kept as one string per sender so
// that loading state.json builds a few strings instead of one property per
// recent send. Each record is fixed width: the 32 hex of the content hash,
// then the send time in base 36, zero-padded to 11 characters. Records are
// appended, so they are usually oldest first, but nothing relies on it.
import type { Channel } from './types';

export const SEEN_HASH_CHARS = 32;
export const SEEN_TIME_CHARS = 11;
export const SEEN_RECORD_CHARS = SEEN_HASH_CHARS + SEEN_TIME_CHARS;

/** Matches whole records only; a value is valid when removing every match leaves nothing. */
const RECORDS = /[0-9a-f]{32}[0-9a-z]{11}/g;
/** A reference-format seen_content key: the sender id, ':', then 32 hex. */
const REFERENCE_KEY = /^([^]*):([0-9a-f]{32})$/;

/** Whether an epoch-ms value fits the 11-character time field. */
export function isSeenTime(ms: number): boolean {
  return Number.isFinite(ms) && ms >= 0 && ms <= Number.MAX_SAFE_INTEGER;
}

/**
 * The time field for `ms`. A fraction is rounded up: against whole-ms clocks
 * the record then expires exactly when the exact value would.
 */
export function encodeSeenTime(ms: number): string {
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.ceil(ms))).toString(36).padStart(SEEN_TIME_CHARS, '0');
}

function timeAt(records: string, offset: number): number {
  return parseInt(records.slice(offset + SEEN_HASH_CHARS, offset + SEEN_RECORD_CHARS), 36);
}

/** Whether a stored value is a well-formed run of records (one regex pass, no per-character loop). */
export function isSeenRecords(value: unknown): value is string {
  return typeof value === 'string' && value.length % SEEN_RECORD_CHARS === 0 && value.replace(RECORDS, '') === '';
}

/** Splits a reference `"<sender>:<hash32>"` key; null when it is not one. */
export function splitSeenKey(key: string): { sender: string; hash: string } | null {
  const match = REFERENCE_KEY.exec(key);
  return match ? { sender: match[1]!, hash: match[2]! } : null;
}

/** Builds a record string from (hash, time) pairs, oldest first. */
export function buildSeenRecords(entries: { hash: string; at: number }[]): string {
  return [...entries].sort((a, b) => a.at - b.at).map((e) => e.hash + encodeSeenTime(e.at)).join('');
}

/** The (hash, time) pairs of a record string. */
export function seenEntries(records: string): { hash: string; at: number }[] {
  const entries: { hash: string; at: number }[] = [];
  for (let at = 0; at < records.length; at += SEEN_RECORD_CHARS) {
    entries.push({ hash: records.slice(at, at + SEEN_HASH_CHARS), at: timeAt(records, at) });
  }
  return entries;
}

/**
 * Whether `hash` was recorded less than `windowMs` from `now`, either way: a
 * record stamped later than now (a clock that moved back, a machine running
 * ahead) counts only while it is within the window too, so it cannot refuse
 * the same text until this clock catches up.
 */
export function seenWithin(records: string, hash: string, now: number, windowMs: number): boolean {
  for (let i = records.indexOf(hash); i !== -1; i = records.indexOf(hash, i + 1)) {
    if (i % SEEN_RECORD_CHARS === 0 && Math.abs(now - timeAt(records, i)) < windowMs) return true;
  }
  return false;
}

/** Drops every record at least `windowMs` old; returns the same string when nothing went. */
export function dropExpiredRecords(records: string, now: number, windowMs: number): string {
  // Whole-ms times t with now - t >= windowMs are those with t <= floor(now - windowMs);
  // fixed-width base 36 sorts as text in the same order as the numbers it holds.
  const newestExpired = Math.floor(now - windowMs);
  if (!(newestExpired >= 0)) return records;
  const limit = encodeSeenTime(newestExpired);
  let kept = '';
  let runStart = 0;
  for (let at = 0; at < records.length; at += SEEN_RECORD_CHARS) {
    if (records.slice(at + SEEN_HASH_CHARS, at + SEEN_RECORD_CHARS) <= limit) {
      kept += records.slice(runStart, at);
      runStart = at + SEEN_RECORD_CHARS;
    }
  }
  return runStart === 0 ? records : kept + records.slice(runStart);
}

/** Sweeps expired records from every sender of the channel; a sender left with none is removed. */
export function sweepSeen(channel: Channel, now: number): void {
  for (const [sender, records] of Object.entries(channel.seen_recent)) {
    const kept = dropExpiredRecords(records, now, channel.stale_event_ms);
    if (kept === '') delete channel.seen_recent[sender];
    else if (kept !== records) channel.seen_recent[sender] = kept;
  }
}

/** Appends one send to the sender's records. */
export function recordSeen(channel: Channel, sender: string, hash: string, now: number): void {
  const previous = Object.prototype.hasOwnProperty.call(channel.seen_recent, sender) ? channel.seen_recent[sender]! : '';
  channel.seen_recent[sender] = previous + hash + encodeSeenTime(now);
}
