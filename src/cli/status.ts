// `opencomms status`: the operator's full view of a project, read lock-free.
import * as engine from '../engine';
import { openStore, type StoreDescription, type StoreSelection } from '../store';
import { printable } from '../watch/format';
import { asInvoked } from './invocation';

export interface StatusOptions {
  projectDir: string;
  json: boolean;
  write: (text: string) => void;
  /** The store to read; the project's files when absent. */
  selection?: StoreSelection;
  /** How the person starts this program (cli/invocation): the commands status suggests are in that form. */
  command?: string;
}

interface MemberView {
  session_id: string; role: string; stale: boolean; host: string; delivery_mode: string;
  away_since?: number | null; last_seen?: number | null;
}
interface ReservationView { path: string; member_id: string; role: string; exclusive: boolean; reason: string | null; expires_at: number }
interface ChannelView {
  name: string; id: string; paused: boolean; paused_reason?: string | null; max_agent_streak?: number; members: MemberView[]; queue_lengths?: Record<string, number>; reservations?: ReservationView[];
  held?: { text: string } | null;
}

interface MailPath { message_id: string; channel: string; from_role: string; to_role: string; path: engine.PathStep[] }

/** Prints a project's status, read as it is now (a network store is asked over the network). */
export function runStatus(options: StatusOptions): Promise<number> {
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  const view = (state: engine.State, ctx: engine.EngineCtx): engine.ToolResult => engine.channelStatus(state, { session_id: null }, ctx);
  return store.readLatest(view).then(
    (result) => printStatus(options, result, store.describe()),
  ).finally(() => store.close());
}

/** Why a channel is paused: a loop-guard pause says that it waits for a person, and how many agent messages did it. */
function pauseText(channel: ChannelView, command: string): string {
  if (!channel.paused) return '';
  if (channel.paused_reason !== 'agent_streak') return ' [paused]';
  return ` [paused: waiting for a person, ${channel.max_agent_streak} agent messages in a row (loop guard); ${command} say or ${command} resume lifts it]`;
}

function printStatus(options: StatusOptions, result: engine.ToolResult, store: StoreDescription): number {
  if (options.json) {
    options.write(`${JSON.stringify({ project: options.projectDir, store: store.json, ...result }, null, 2)}\n`);
    return result.ok ? 0 : 1;
  }
  const data = (result.data ?? {}) as { channels?: ChannelView[]; pending_messages?: number; errors?: { at: number; message: string }[] };
  const command = options.command ?? 'opencomms';
  const lines = [`OpenComms project ${options.projectDir}`];
  lines.push(`store: ${store.line}`);
  const channels = data.channels ?? [];
  if (channels.length === 0) lines.push('No channels yet. An agent creates one with opencomms_create.');
  for (const channel of channels) {
    // Names, ids, roles, hosts and error texts may have been written by a peer
    // or by hand: each goes through printable, so none can drive the terminal.
    lines.push(`channel ${printable(channel.name)} (${printable(channel.id)})${pauseText(channel, command)}`);
    // Held mail, in the words a pull and the tripping send use (engine held-mail).
    if (channel.held) lines.push(`  held: ${asInvoked(printable(channel.held.text, 600), command)}`);
    for (const member of channel.members) {
      const pending = (channel.queue_lengths && engine.ownValue(channel.queue_lengths, member.session_id)) ?? 0;
      lines.push(
        `  ${printable(member.role, 32).padEnd(16)} ${printable(member.session_id, 64)}  host ${printable(member.host, 64)}, ${member.delivery_mode}` +
          `${member.stale ? `, away since ${member.away_since ? engine.formatIsoTime(member.away_since) : 'an unknown time'}` : ''}, ${pending} pending` +
          `${member.last_seen ? `, last seen ${engine.formatIsoTime(member.last_seen)}` : ''}`,
      );
    }
    for (const r of channel.reservations ?? []) {
      lines.push(`  reserved ${printable(r.path, 120)} by ${printable(r.role, 32)} (${printable(r.member_id, 64)}), ${r.exclusive ? 'exclusive' : 'shared'}`
        + ` until ${engine.formatIsoTime(r.expires_at)}${r.reason ? `: ${printable(r.reason, 120)}` : ''}`);
    }
  }
  const board = result.data?.board as engine.BoardCounts | undefined;
  if (board) lines.push(`task board: ${board.ready} ready, ${board.claimed} claimed, ${board.asked} asked of a person, ${board.blocked} blocked (${command} task)`);
  lines.push(`pending messages: ${data.pending_messages ?? 0}`);
  // Each waiting message's path so far: queued, rung through a host door, in flight.
  for (const m of (result.data?.mail_paths ?? []) as MailPath[]) {
    const steps = m.path.map((s) => `${s.step}${s.via ? ` via ${s.via}` : ''}${s.at ? ` ${engine.formatIsoTime(s.at)}` : ''}`);
    lines.push(`  ${printable(m.message_id, 64)} ${printable(m.from_role, 32)} → ${printable(m.to_role, 32)} on ${printable(m.channel)}: ${steps.join(', ')}`);
  }
  // Mail its door rang for, the bounded times, without waking the member: said until the mail is taken.
  for (const u of (result.data?.unwoken ?? []) as engine.UnwokenMail[]) {
    lines.push(`  not woken: ${printable(engine.unwokenLine(u, engine.formatIsoTime(u.last_rung_at)), 400)}`);
  }
  const errors = data.errors ?? [];
  if (errors.length > 0) {
    lines.push('recent errors:');
    for (const e of errors.slice(-10)) lines.push(`  ${engine.formatIsoTime(e.at)} ${printable(e.message, 300)}`);
  }
  options.write(`${lines.join('\n')}\n`);
  return 0;
}
