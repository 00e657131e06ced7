// The full-screen view for a person at a terminal: redrawn whole on every
// change, because a project's state is small and a full redraw cannot drift
// out of step with it the way partial updates can.
import { compareSendOrder } from '../engine';
import type { Channel, Envelope } from '../engine';
import { clock, printable } from './format';
import type { WatchView } from './view';

export const HIDE_CURSOR = '\u001b[?25l';
export const SHOW_CURSOR = '\u001b[?25h';
/** Cursor home, then erase the screen: the next frame starts at the top left. */
export const CLEAR_SCREEN = '\u001b[H\u001b[2J';

const RECENT_MAIL = 10;
const RECENT_ERRORS = 5;

export interface ScreenInput {
  project: string;
  view: WatchView;
  /** Plain descriptions of the latest events, oldest first. */
  recentEvents: readonly string[];
  at: number;
  columns: number;
  rows: number;
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

function channelLines(view: WatchView, channel: Channel): string[] {
  const lines = [`channel ${printable(channel.name)} (${channel.id})${channel.paused ? ' [paused]' : ''}`];
  const { pending, inFlight } = countsOf(view, channel);
  for (const m of channel.members) {
    const flying = inFlight.get(m.session_id) ?? 0;
    lines.push(
      `  ${printable(m.role, 24).padEnd(16)} ${m.session_id.padEnd(20)} host ${printable(m.host, 24)}, ${m.delivery_mode}` +
        `${m.stale ? ', STALE' : ''}, ${pending.get(m.session_id) ?? 0} pending${flying > 0 ? `, ${flying} in flight` : ''}`,
    );
  }
  return lines;
}

function mailLine(view: WatchView, e: Envelope): string {
  const channel = view.channels.get(e.channel_id)?.name ?? e.channel_id;
  const how = e.delivery_method && e.delivery_status === 'delivered' ? ` by ${e.delivery_method}` : '';
  return `  ${clock(e.timestamp)} ${printable(channel, 24)}: ${printable(e.sender_role, 24)} -> ${printable(e.recipient_role, 24)} ` +
    `${e.message_type} ${e.delivery_status}${how}`;
}

/** One frame, starting with the clear-screen sequence, each line cut to the terminal's width and the frame to its height. */
export function renderScreen(input: ScreenInput): string {
  const { view } = input;
  const lines = [`OpenComms watch  ${printable(input.project, 200)}  (updated ${clock(input.at)}, Ctrl-C quits)`, ''];
  if (view.channels.size === 0) lines.push('No channels yet. An agent creates one with opencomms_create.');
  for (const channel of view.channels.values()) lines.push(...channelLines(view, channel));

  const recent = [...view.mail.values()].sort(compareSendOrder).slice(-RECENT_MAIL);
  lines.push('', 'recent mail');
  if (recent.length === 0) lines.push('  (none)');
  for (const e of recent) lines.push(mailLine(view, e));

  const errors = view.errors.slice(-RECENT_ERRORS);
  if (errors.length > 0) {
    lines.push('', 'recent errors');
    for (const e of errors) lines.push(`  ${clock(e.at)} ${printable(e.message, 300)}`);
  }
  if (input.recentEvents.length > 0) {
    lines.push('', 'recent events');
    for (const text of input.recentEvents) lines.push(`  ${text}`);
  }
  const width = Math.max(20, input.columns);
  const height = Math.max(5, input.rows - 1);
  return CLEAR_SCREEN + lines.slice(0, height).map((l) => l.slice(0, width)).join('\n') + '\n';
}
