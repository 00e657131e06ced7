// Retention without loss: live mail (pending or in_flight) is never pruned.
// Finished envelopes leave state.json when the store moves them to history;
// what remains is bounded by refusing new sends once the backlog is full.
import { ENVELOPE_OVERHEAD_BYTES, MAX_LIVE_ENVELOPES, MAX_LIVE_STATE_BYTES } from './constants';
import { isLive } from './envelopes';
import { refuse, type Refusal } from './reasons';
import type { State } from './types';

/** The most bytes one UTF-16 unit can take in state.json: a control character or lone surrogate written as a six-character \u escape. */
export const MAX_JSON_BYTES_PER_UNIT = 6;

/**
 * The bytes `text` takes in state.json, as JSON.stringify writes it (quotes
 * excluded): `"` and `\` and the five short escapes (\b \t \n \f \r) take 2,
 * other controls below U+0020 and lone surrogates take 6 (a \u escape with four hex digits), and every
 * other character its UTF-8 length. Counted in one pass, without encoding.
 */
export function jsonStringBytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20) bytes += isShortEscape(unit) ? 2 : 6;
    else if (unit < 0x80) bytes += unit === 0x22 || unit === 0x5c ? 2 : 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit < 0xd800 || unit > 0xdfff) bytes += 3;
    else if (unit <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i += 1;
    } else {
      bytes += 6;
    }
  }
  return bytes;
}

function isShortEscape(unit: number): boolean {
  return unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** One member's count of undelivered envelopes. */
export interface UnreadCount {
  session_id: string;
  role: string;
  unread: number;
}

/** Bytes one envelope adds to state.json: its content exactly, the rest as a fixed allowance. */
export function estimateEnvelopeBytes(content: string): number {
  return ENVELOPE_OVERHEAD_BYTES + jsonStringBytes(content);
}

/** Live envelope count and size in state.json, and who has the most unread mail. */
export function measureBacklog(state: State): { count: number; bytes: number; unreadBy: Map<string, UnreadCount> } {
  let count = 0;
  let bytes = 0;
  const unreadBy = new Map<string, UnreadCount>();
  for (const envelope of Object.values(state.messages)) {
    if (!isLive(envelope)) continue;
    count += 1;
    bytes += estimateEnvelopeBytes(envelope.content);
    const entry = unreadBy.get(envelope.recipient_session_id)
      ?? { session_id: envelope.recipient_session_id, role: envelope.recipient_role, unread: 0 };
    entry.unread += 1;
    unreadBy.set(envelope.recipient_session_id, entry);
  }
  return { count, bytes, unreadBy };
}

/**
 * Refuses a send of `copies` envelopes of this content when the live
 * backlog would pass either cap, naming the members who have not read
 * their mail (most unread first) so someone can act on it.
 */
export function backlogRefusal(
  state: State,
  content: string,
  copies: number,
  limits: { maxEnvelopes: number; maxBytes: number } = { maxEnvelopes: MAX_LIVE_ENVELOPES, maxBytes: MAX_LIVE_STATE_BYTES },
): Refusal | null {
  // No UTF-16 unit takes more than 6 bytes in state.json, so when even that
  // bound fits, the exact measure cannot refuse: the usual send counts
  // envelopes and adds up lengths instead of scanning every live message's text.
  let count = 0;
  let bound = copies * (ENVELOPE_OVERHEAD_BYTES + MAX_JSON_BYTES_PER_UNIT * content.length);
  for (const envelope of Object.values(state.messages)) {
    if (!isLive(envelope)) continue;
    count += 1;
    bound += ENVELOPE_OVERHEAD_BYTES + MAX_JSON_BYTES_PER_UNIT * envelope.content.length;
  }
  if (count + copies <= limits.maxEnvelopes && bound <= limits.maxBytes) return null;
  const backlog = measureBacklog(state);
  const overCount = backlog.count + copies > limits.maxEnvelopes;
  const overBytes = backlog.bytes + copies * estimateEnvelopeBytes(content) > limits.maxBytes;
  if (!overCount && !overBytes) return null;
  const readers = [...backlog.unreadBy.values()].sort((a, b) => b.unread - a.unread).slice(0, 5);
  const names = readers.map((r) => `${r.role} (${r.session_id}): ${r.unread}`).join(', ');
  return refuse('backlog_full',
    `Undelivered mail is at its limit (${backlog.count} envelopes, ${backlog.bytes} bytes). Unread by ${names || 'nobody'}; they need to read their mail before more can be sent.`,
    { live_envelopes: backlog.count, live_bytes: backlog.bytes, unread_by: readers });
}
