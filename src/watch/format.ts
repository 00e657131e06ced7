// One event as one line: JSON for programs, plain text for people. Names,
// roles, member ids and error texts are peer- or host-written, so the plain form drops
// control characters: a role must not be able to move a terminal's cursor.
import { isDateTime } from '../engine';
import type { WatchEvent } from './events';

// C0, DEL and C1 controls, the bidi marks, embeddings, overrides and
// isolates (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069): those
// reorder what follows them on a bidi-aware terminal, so a peer could
// disguise a line; and the line and paragraph separators (U+2028, U+2029),
// which some terminals and viewers break a line at.
const TERMINAL_CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/g;

/** Text safe to put on a terminal: no control or bidi formatting characters, at most `max` characters. */
export function printable(text: string, max = 120): string {
  const clean = text.replace(TERMINAL_CONTROL, ' ');
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

// Everything a reader may take as a line break, so a message's lines are ours to indent.
const BLOCK_LINE_BREAKS = /\r\n|[\r\u000b\u000c\u0085\u2028\u2029]/g;
// The same controls and bidi marks, except TAB and LF, which a block keeps.
const BLOCK_CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A peer-written text of several lines (a message's content) made safe for a
 * terminal: line breaks of every kind become LF, every other control
 * character and bidi formatting character becomes U+FFFD, so nothing in it
 * can move the cursor, change colours or reorder what a person reads.
 */
export function printableBlock(text: string): string {
  return text.replace(BLOCK_LINE_BREAKS, '\n').replace(BLOCK_CONTROL, '\uFFFD');
}

// What JSON.stringify leaves raw and a terminal would still act on: DEL, C1, bidi marks, line and paragraph separators.
const JSON_RAW_CONTROL = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** JSON text with every character that could drive a terminal written as a \\u escape: the same value, harmless to print. */
export function terminalSafeJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(JSON_RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
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

/** The event in words, without a time stamp; a command it suggests starts with `command`. */
export function describeEvent(event: WatchEvent | WatchStart, command = 'opencomms'): string {
  switch (event.event) {
    case 'watching':
      return `watching ${printable(event.project, 400)}: ${event.channels} channel(s), ${event.pending} pending${event.store === undefined || event.store === 'file' ? '' : ` (store ${printable(event.store, 400)})`}`;
    case 'paused':
      return event.reason === 'agent_streak'
        ? `channel ${printable(event.channel)} paused itself: too many agent messages in a row, waiting for a person (${command} resume or say)`
        : `channel ${printable(event.channel)} paused`;
    case 'created':
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
    case 'person_action':
      return `${printable(event.person_id, 64)} ${printable(event.action, 32)}${event.channel === null ? '' : ` on ${printable(event.channel)}`}: ${printable(event.detail, 200)}`
        + ` [terminal ${printable(event.tty, 64)}${event.session_leader === null ? '' : `, session of ${printable(event.session_leader, 80)}`}]`;
    case 'task':
      return `task ${printable(event.task_id, 16)} ${event.status}${event.by === null ? '' : ` by ${printable(event.by, 64)}`}${event.status === 'asked' ? `: it asks you (${command} task show, then answer)` : ''}`;
  }
}

/** The plain line a non-TTY watch prints for an event. */
export function plainLine(event: WatchEvent | WatchStart, at: number, command?: string): string {
  return `${clock(at)} ${describeEvent(event, command)}`;
}
