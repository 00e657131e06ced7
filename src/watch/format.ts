// One event as one line: JSON for programs, plain text for people. Names,
// roles, member ids and error texts are peer- or host-written, so the plain form drops
// control characters: a role must not be able to move a terminal's cursor.
import { isDateTime } from '../engine';
import type { WatchEvent } from './events';

// C0, DEL and C1 controls, and the bidi marks, embeddings, overrides and
// isolates (U+200E-U+200F, U+202A-U+202E, U+2066-U+2069): those reorder what
// follows them on a bidi-aware terminal, so a peer could disguise a line.
const TERMINAL_CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text safe to put on a terminal: no control or bidi formatting characters, at most `max` characters. */
export function printable(text: string, max = 120): string {
  const clean = text.replace(TERMINAL_CONTROL, ' ');
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

/** The line a --json watch prints for an event: the event, then when it was seen. */
export function jsonLine(event: WatchEvent | WatchStart, at: number): string {
  return JSON.stringify({ ...event, at });
}

/** What --json prints first, once the watch is up, so readers know nothing before it is missed. */
export interface WatchStart {
  event: 'watching';
  project: string;
  channels: number;
  pending: number;
  /** Where the state is: "file" (the project's .opencomms), or the Redis URL and project. */
  store?: string;
}

/** The time of day (UTC, hh:mm:ss) of a time, or "--:--:--" for a number a Date cannot hold. */
export function clock(at: number): string {
  // Counted from the end: years past 9999 print with six digits and a sign.
  return isDateTime(at) ? new Date(at).toISOString().slice(-13, -5) : '--:--:--';
}

/** The event in words, without a time stamp. */
export function describeEvent(event: WatchEvent | WatchStart): string {
  switch (event.event) {
    case 'watching':
      return `watching ${printable(event.project, 400)}: ${event.channels} channel(s), ${event.pending} pending${event.store === undefined || event.store === 'file' ? '' : ` (store ${printable(event.store, 400)})`}`;
    case 'created':
    case 'paused':
    case 'resumed':
    case 'removed':
      return `channel ${printable(event.channel)} ${event.event}`;
    case 'joined':
    case 'left':
    case 'kicked':
      return `${printable(event.role)} (${printable(event.member_id)}) ${event.event === 'kicked' ? 'was kicked from' : event.event} ` +
        `${printable(event.channel)}${event.event === 'joined' ? ` (host ${printable(event.host)}, ${event.delivery_mode})` : ''}`;
    case 'member_stale':
      return `${printable(event.role)} (${printable(event.member_id)}) went stale on ${printable(event.channel)}`;
    case 'member_active':
      return `${printable(event.role)} (${printable(event.member_id)}) is active again on ${printable(event.channel)}`;
    case 'sent':
      return `${printable(event.channel)}: ${printable(event.from_role)} -> ${printable(event.to_role)} sent ${event.message_type} ${printable(event.message_id)}`;
    case 'delivered':
      return `${printable(event.channel)}: ${printable(event.message_id)} delivered to ${printable(event.to_role)}${event.delivered_via ? ` by ${event.delivered_via}` : ''}`;
    case 'failed':
    case 'rejected':
    case 'stale':
      return `${printable(event.channel)}: ${printable(event.message_id)} to ${printable(event.to_role)} ${event.event}`;
    case 'error':
      return `error: ${printable(event.message, 300)}`;
  }
}

/** The plain line a non-TTY watch prints for an event. */
export function plainLine(event: WatchEvent | WatchStart, at: number): string {
  return `${clock(at)} ${describeEvent(event)}`;
}
