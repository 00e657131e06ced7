// The text of one message, shown in the watch view under the rows when the
// person asks for it (the `v` key): a header of our own naming the message,
// then its lines, made harmless (printableBlock) and wrapped to the
// terminal's width, each behind a bar so no line of it can pass for one of
// the view's. Showing the text changes nothing: a message waiting for the
// person stays waiting until `opencomms read` takes it.
import type { Envelope } from '../engine';
import { clock, printable, printableBlock } from './format';
import { cutToColumns } from './screen';
import type { WatchView } from './view';

/** What every line of the text starts with. */
export const TEXT_BAR = '  | ';
/** Columns a tab becomes: a terminal's own tab stops would move the rest of the line. */
const TAB = '  ';

/** `line` as lines of at most `width` columns; an empty line stays one empty line. */
export function wrapToColumns(line: string, width: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > 0) {
    let piece = cutToColumns(rest, Math.max(1, width));
    // A character wider than the whole width still takes a line of its own.
    if (piece === '') piece = String.fromCodePoint(rest.codePointAt(0)!);
    out.push(piece);
    rest = rest.slice(piece.length);
  }
  return out.length > 0 ? out : [''];
}

export interface TextPanelInput {
  view: WatchView;
  envelope: Envelope;
  /** The terminal's width, in columns. */
  columns: number;
  /** The most lines the panel may take, header and notes included. */
  maxLines: number;
  /** How the person starts this program, for the command that shows the rest. */
  command: string;
  person?: string;
}

/** The panel's lines: the header, the text (cut to `maxLines`, saying how much was left out), an end line. */
export function textPanel(input: TextPanelInput): string[] {
  const { envelope: e, view } = input;
  const channel = view.channels.get(e.channel_id)?.name ?? e.channel_id;
  const waiting = e.recipient_session_id === input.person && (e.delivery_status === 'pending' || e.delivery_status === 'in_flight');
  const header = `text of ${printable(e.message_type, 32)} ${printable(e.message_id, 40)}, ${clock(e.timestamp)} on ${printable(channel, 40)}: `
    + `${printable(e.sender_role, 24)} (${printable(e.sender_session_id, 40)}) -> ${printable(e.recipient_role, 24)} (${printable(e.recipient_session_id, 40)}), `
    + `${e.delivery_status}${waiting ? `; still waiting for you until ${input.command} read takes it` : ''}`;
  const width = Math.max(10, input.columns - TEXT_BAR.length);
  const body = printableBlock(e.content).replace(/\t/g, TAB).split('\n').flatMap((line) => wrapToColumns(line, width));
  // The header and the end line are ours, wrapped to the width too: what a cut would drop (whether it still waits, where the rest is) matters.
  const wrap = (line: string): string[] => wrapToColumns(line, Math.max(10, input.columns));
  const head = wrap(header);
  const more = (n: number): string => `  (${n} more line(s): ${input.command} log ${printable(channel, 40)} shows it whole; v or Esc hides it)`;
  const room = Math.max(1, input.maxLines - head.length - (body.length <= input.maxLines - head.length - 1 ? 1 : wrap(more(body.length)).length));
  const shown = body.slice(0, room);
  const end = wrap(body.length <= room ? '  (end of the text; v or Esc hides it)' : more(body.length - shown.length));
  return [...head, ...shown.map((line) => `${TEXT_BAR}${line}`), ...end];
}
