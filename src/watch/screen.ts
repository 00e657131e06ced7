// The full-screen view for a person at a terminal: redrawn whole on every
// change, because a project's state is small and a full redraw cannot drift
// out of step with it the way partial updates can.
import { compareSendOrder, deliveryPathOf, loopGuardView, reservationId } from '../engine';
import type { Channel, Envelope, Reservation } from '../engine';
import { clock, printable } from './format';
import type { WatchView } from './view';

export const HIDE_CURSOR = '\u001b[?25l';
export const SHOW_CURSOR = '\u001b[?25h';
/** Cursor home, then erase the screen: the next frame starts at the top left. */
export const CLEAR_SCREEN = '\u001b[H\u001b[2J';

const RECENT_MAIL = 10;
/** At most this many tasks are listed on the screen; the counts cover the rest. */
const MAX_BOARD_LINES = 8;
const RECENT_ERRORS = 5;

export interface ScreenInput {
  project: string;
  view: WatchView;
  /** Plain descriptions of the latest events, oldest first. */
  recentEvents: readonly string[];
  at: number;
  columns: number;
  rows: number;
  /** The person member of whoever watches: their waiting mail is shown first. */
  person?: string;
  /** The key (selectableItems) of the row the person's keys act on. */
  selected?: string;
  /** Lines the keys add at the bottom: a prompt, the last action's outcome, the key help. */
  footer?: readonly string[];
  /** Lines shown above the footer (a message's text, text-panel.ts), made for the width and at most the lines given. */
  panel?: (columns: number, maxLines: number) => string[];
  /** How the person starts this program: the commands the screen suggests start with it (`opencomms` when absent). */
  command?: string;
}

/** A row the person's keys can act on: a channel, a reservation, a message. */
export type WatchItem =
  | { key: string; kind: 'channel'; channel: Channel }
  | { key: string; kind: 'reservation'; channel: Channel; reservation: Reservation; id: string }
  | { key: string; kind: 'mail'; envelope: Envelope; channel: Channel | undefined };

/** The person's waiting mail (pending or in flight to them), oldest first. */
export function mailForPerson(view: WatchView, person: string | undefined): Envelope[] {
  if (person === undefined) return [];
  return [...view.mail.values()]
    .filter((e) => e.recipient_session_id === person && (e.delivery_status === 'pending' || e.delivery_status === 'in_flight'))
    .sort(compareSendOrder);
}

function liveReservationsOf(view: WatchView, channel: Channel): Reservation[] {
  return (channel.reservations ?? []).filter((r) => r.expires_at > (view.now ?? 0));
}

function recentMail(view: WatchView): Envelope[] {
  return [...view.mail.values()].sort(compareSendOrder).slice(-RECENT_MAIL);
}

/** Every row the keys can select, in the order the screen shows them (the person's mail, channels, recent mail). */
export function selectableItems(view: WatchView, person?: string): WatchItem[] {
  const items: WatchItem[] = [];
  const mailItem = (envelope: Envelope): WatchItem => ({ key: `mail:${envelope.message_id}`, kind: 'mail', envelope, channel: view.channels.get(envelope.channel_id) });
  const seen = new Set<string>();
  for (const e of mailForPerson(view, person)) {
    items.push(mailItem(e));
    seen.add(e.message_id);
  }
  for (const channel of view.channels.values()) {
    items.push({ key: `channel:${channel.id}`, kind: 'channel', channel });
    for (const reservation of liveReservationsOf(view, channel)) {
      const id = reservationId(channel, reservation);
      items.push({ key: `rsv:${channel.id}:${id}`, kind: 'reservation', channel, reservation, id });
    }
  }
  for (const e of recentMail(view)) if (!seen.has(e.message_id)) items.push(mailItem(e));
  return items;
}

/** Why a channel is paused, as a person reads it. */
export function pauseNote(channel: Channel): string {
  if (!channel.paused) return '';
  const guard = loopGuardView(channel);
  return guard.paused_reason === 'agent_streak'
    ? ` [paused: waiting for a person, ${guard.max_agent_streak} agent messages in a row (loop guard)]`
    : ' [paused]';
}

// The selected row gets a '>' in its first column.
function markedLine(line: string, key: string, selected: string | undefined): string {
  if (key !== selected) return line;
  return line.startsWith(' ') ? `>${line.slice(1)}` : `> ${line}`;
}

// East Asian Wide and Fullwidth characters (UAX #11), as [first, last] code
// points: each takes two terminal columns. Compact on purpose: the common
// blocks (Hangul, CJK, kana, fullwidth forms, emoji), not every scattered one.
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x23e9, 0x23ec], [0x23f0, 0x23f0], [0x23f3, 0x23f3],
  [0x25fd, 0x25fe], [0x2614, 0x2615], [0x2648, 0x2653], [0x267f, 0x267f], [0x2693, 0x2693], [0x26a1, 0x26a1],
  [0x26aa, 0x26ab], [0x26bd, 0x26be], [0x26c4, 0x26c5], [0x26ce, 0x26ce], [0x26d4, 0x26d4], [0x26ea, 0x26ea],
  [0x26f2, 0x26f3], [0x26f5, 0x26f5], [0x26fa, 0x26fa], [0x26fd, 0x26fd], [0x2705, 0x2705], [0x270a, 0x270b],
  [0x2728, 0x2728], [0x274c, 0x274c], [0x274e, 0x274e], [0x2753, 0x2755], [0x2757, 0x2757], [0x2795, 0x2797],
  [0x27b0, 0x27b0], [0x27bf, 0x27bf], [0x2b1b, 0x2b1c], [0x2b50, 0x2b50], [0x2b55, 0x2b55],
  [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf], [0xa960, 0xa97f],
  [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f], [0xff00, 0xff60], [0xffe0, 0xffe6],
  [0x16fe0, 0x18cff], [0x1b000, 0x1b2ff], [0x1f004, 0x1f004], [0x1f0cf, 0x1f0cf], [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a], [0x1f200, 0x1f251], [0x1f300, 0x1f64f], [0x1f680, 0x1f6ff], [0x1f7e0, 0x1f7eb],
  [0x1f90c, 0x1f9ff], [0x1fa70, 0x1faff], [0x20000, 0x2fffd], [0x30000, 0x3fffd],
];
// Combining marks, format characters and Hangul medial/final jamo take no column of their own.
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\u1160-\u11ff]$/u;

function columnsOfChar(ch: string): number {
  if (ZERO_WIDTH.test(ch)) return 0;
  const code = ch.codePointAt(0) ?? 0;
  return WIDE_RANGES.some(([first, last]) => code >= first && code <= last) ? 2 : 1;
}

/** How many terminal columns `text` takes. */
function columnsOf(text: string): number {
  let width = 0;
  for (const ch of text) width += columnsOfChar(ch);
  return width;
}

/** The longest start of `line` that fits in `width` terminal columns; never splits a surrogate pair. */
export function cutToColumns(line: string, width: number): string {
  let used = 0;
  let end = 0;
  for (const ch of line) {
    const w = columnsOfChar(ch);
    if (used + w > width) break;
    used += w;
    end += ch.length;
  }
  return line.slice(0, end);
}

function padColumns(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - columnsOf(text)));
}

function countsOf(view: WatchView, channel: Channel): { pending: Map<string, number>; inFlight: Map<string, number> } {
  const pending = new Map<string, number>();
  const inFlight = new Map<string, number>();
  for (const e of view.mail.values()) {
    if (e.channel_id !== channel.id) continue;
    const bucket = e.delivery_status === 'pending' ? pending : e.delivery_status === 'in_flight' ? inFlight : undefined;
    bucket?.set(e.recipient_session_id, (bucket.get(e.recipient_session_id) ?? 0) + 1);
  }
  return { pending, inFlight };
}

function channelLines(view: WatchView, channel: Channel, selected?: string): string[] {
  const lines = [markedLine(`channel ${printable(channel.name)} (${printable(channel.id)})${pauseNote(channel)}`, `channel:${channel.id}`, selected)];
  const { pending, inFlight } = countsOf(view, channel);
  for (const m of channel.members) {
    const flying = inFlight.get(m.session_id) ?? 0;
    lines.push(
      `  ${padColumns(printable(m.role, 24), 16)} ${padColumns(printable(m.session_id), 20)} host ${printable(m.host, 24)}, ${m.delivery_mode}` +
        `${m.stale ? `, away since ${m.stale_at === null ? '?' : clock(m.stale_at)}` : ''}, ${pending.get(m.session_id) ?? 0} pending${flying > 0 ? `, ${flying} in flight` : ''}` +
        `${view.lastSeen?.has(m.session_id) ? `, seen ${clock(view.lastSeen.get(m.session_id)!)}` : ''}`,
    );
  }
  for (const r of liveReservationsOf(view, channel)) {
    lines.push(markedLine(`  reserved ${printable(r.path, 60)} by ${printable(r.role, 24)}, ${r.exclusive ? 'exclusive' : 'shared'} until ${clock(r.expires_at)}`,
      `rsv:${channel.id}:${reservationId(channel, r)}`, selected));
  }
  return lines;
}

function mailLine(view: WatchView, e: Envelope, selected?: string): string {
  const channel = view.channels.get(e.channel_id)?.name ?? e.channel_id;
  const via = e.delivery_status === 'delivered' ? deliveryPathOf(e) : null;
  const how = via ? ` by ${via}` : '';
  return markedLine(`  ${clock(e.timestamp)} ${printable(channel, 24)}: ${printable(e.sender_role, 24)} -> ${printable(e.recipient_role, 24)} ` +
    `${e.message_type} ${e.delivery_status}${how}`, `mail:${e.message_id}`, selected);
}

// The person's waiting mail, first on the screen: who wrote, where, what kind; never the content (opencomms read commits it).
function personLines(view: WatchView, input: ScreenInput): string[] {
  const waiting = mailForPerson(view, input.person);
  if (waiting.length === 0) return [];
  const lines = [`*** MAIL FOR YOU (${printable(input.person!, 64)}): ${waiting.length} waiting; read it with: ${input.command ?? 'opencomms'} read ***`];
  for (const e of waiting.slice(-RECENT_MAIL)) {
    const channel = view.channels.get(e.channel_id)?.name ?? e.channel_id;
    lines.push(markedLine(`  ${clock(e.timestamp)} ${printable(channel, 24)}: from ${printable(e.sender_role, 24)} (${printable(e.sender_session_id, 40)}) `
      + `${e.message_type} ${printable(e.message_id, 40)}`, `mail:${e.message_id}`, input.selected));
  }
  return [...lines, ''];
}

/** The task board under the channels: its counts, then its tasks (ready first), each on one line. */
function boardLines(view: WatchView, at: number, command: string): string[] {
  const board = view.board;
  if (!board) return [];
  const { counts } = board;
  const lines = ['', `task board: ${counts.ready} ready, ${counts.claimed} claimed, ${counts.asked} asked, ${counts.blocked} blocked (${command} task)`];
  for (const { task, ready, away_since: away } of board.tasks.slice(0, MAX_BOARD_LINES)) {
    const held = task.claimed_by === null ? '' : ` by ${printable(task.claimed_by, 40)} for ${Math.max(0, Math.floor((at - (task.claimed_at ?? at)) / 60_000))} min${away === null ? '' : ', away'}`;
    const state = task.status === 'open' ? (ready ? 'ready' : 'blocked') : task.status;
    lines.push(`  ${task.id} ${state}${held} p${task.priority} ${printable(task.title, 80)}${task.status === 'asked' ? ` [asks you: ${command} task show / answer]` : ''}`);
  }
  if (board.tasks.length > MAX_BOARD_LINES) lines.push(`  … and ${board.tasks.length - MAX_BOARD_LINES} more (${command} task list)`);
  return lines;
}

/** A titled list of lines, oldest first. */
interface Section {
  title: string;
  entries: string[];
  /** Shown when the list is empty (and kept then); undefined drops the section instead. */
  empty?: string;
}

/**
 * Fits the lists into `room` lines by dropping their oldest entries: always
 * from the list that has the most, so each keeps its newest lines as long as
 * possible. A list emptied this way goes, title and all.
 */
function fitSections(sections: Section[], room: number): string[] {
  const kept = sections.map((section) => ({ ...section, entries: [...section.entries] }));
  const heightOf = (list: Section[]): number => list.reduce((sum, section) => {
    if (section.entries.length === 0 && section.empty === undefined) return sum;
    return sum + 2 + Math.max(1, section.entries.length); // the blank line, the title, the entries
  }, 0);
  while (heightOf(kept) > room) {
    const longest = kept.reduce((best, section) => (section.entries.length > best.entries.length ? section : best));
    if (longest.entries.length === 0) break;
    longest.entries.shift();
    if (longest.entries.length === 0) longest.empty = undefined;
  }
  const lines: string[] = [];
  for (const section of kept) {
    if (section.entries.length === 0 && section.empty === undefined) continue;
    lines.push('', section.title, ...(section.entries.length > 0 ? section.entries : [section.empty!]));
  }
  return lines;
}

/**
 * One frame, starting with the clear-screen sequence, each line cut to the
 * terminal's width and the frame to its height. In a short terminal the
 * oldest mail, errors and events go first; the channel table, the current
 * state, is cut only when it alone is too tall.
 */
export function renderScreen(input: ScreenInput): string {
  const { view } = input;
  const top = [`OpenComms watch  ${printable(input.project, 200)}  (updated ${clock(input.at)}, Ctrl-C quits, ? keys)`, ''];
  top.push(...personLines(view, input));
  if (view.channels.size === 0) top.push('No channels yet. An agent creates one with opencomms_create.');
  for (const channel of view.channels.values()) top.push(...channelLines(view, channel, input.selected));
  top.push(...boardLines(view, input.at, input.command ?? 'opencomms'));

  const sections: Section[] = [
    { title: 'recent mail', entries: recentMail(view).map((e) => mailLine(view, e, input.selected)), empty: '  (none)' },
    { title: 'recent errors', entries: view.errors.slice(-RECENT_ERRORS).map((e) => `  ${clock(e.at)} ${printable(e.message, 300)}`) },
    { title: 'recent events', entries: input.recentEvents.map((text) => `  ${text}`) },
  ];
  const width = Math.max(20, input.columns);
  const footer = input.footer ?? [];
  const panel = input.panel?.(width, Math.max(3, Math.floor(input.rows / 2))) ?? [];
  const height = Math.max(5, input.rows - 1 - footer.length - panel.length);
  const lines = [...top, ...fitSections(sections, Math.max(0, height - top.length))].slice(0, height);
  lines.push(...panel.map((line) => printable(line, 2_000)));
  // The footer (a prompt, an outcome) stays on screen however tall the rest is.
  if (footer.length > 0) lines.push(...footer.map((line) => printable(line, 400)));
  // Cut by columns, not UTF-16 units: a wide character takes two, and a line
  // wider than the terminal wraps, pushing the frame past its height.
  return CLEAR_SCREEN + lines.map((l) => cutToColumns(l, width)).join('\n') + '\n';
}
