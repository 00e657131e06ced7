// The people view's events, found by comparing two consecutive views. Pure:
// the caller stamps the time and decides how to print.
import { compareSendOrder, deliveryPathOf, FINISHED_STATUSES, isKickNoticeOf } from '../engine';
import type { Channel, DeliveryStatus, Envelope, ErrorEntry, Member, PersonAction } from '../engine';
import type { WatchView } from './view';

export type ChannelEventName = 'created' | 'paused' | 'resumed' | 'removed';
export type MemberEventName = 'joined' | 'left' | 'kicked' | 'member_stale' | 'member_active';
export type MailEventName = 'sent' | 'delivered' | 'failed' | 'rejected' | 'stale';

export interface ChannelEvent {
  event: ChannelEventName;
  channel: string;
  channel_id: string;
  /** On `paused`: `agent_streak` when the loop guard paused it to wait for a person, else `member`. */
  reason?: string;
}

export interface MemberEvent {
  event: MemberEventName;
  channel: string;
  channel_id: string;
  member_id: string;
  role: string;
  host: string;
  delivery_mode: string;
}

/** Never the content: the view is for watching traffic, and content is peer-written. */
export interface MailEvent {
  event: MailEventName;
  channel: string;
  channel_id: string;
  message_id: string;
  message_type: string;
  from_id: string;
  from_role: string;
  to_id: string;
  to_role: string;
  delivery_method: string | null;
  /** How delivered mail was handed over: hook, doorbell, spawn, plugin or pull (null until delivered). */
  delivered_via: string | null;
}

export interface ErrorEvent {
  event: 'error';
  message: string;
  error_at: number;
  channel_id: string | null;
  member_id: string | null;
}

/** A task that changed state on the board (never its text: titles are peer-written). */
export interface TaskEvent {
  event: 'task';
  task_id: string;
  status: string;
  channel: string | null;
  by: string | null;
}

/** A person action (say, read, pause, resume, release) with the terminal it came from, so one the person did not make is seen. */
export interface PersonActionEvent {
  event: 'person_action';
  action: string;
  person_id: string;
  channel: string | null;
  detail: string;
  tty: string;
  session_leader: string | null;
  action_at: number;
}

export type WatchEvent = ChannelEvent | MemberEvent | MailEvent | ErrorEvent | PersonActionEvent | TaskEvent;

const FINISHED = new Set<DeliveryStatus>(FINISHED_STATUSES);

function channelEvent(event: ChannelEventName, channel: Channel): ChannelEvent {
  return { event, channel: channel.name, channel_id: channel.id };
}

function memberEvent(event: MemberEventName, channel: Channel, member: Member): MemberEvent {
  return {
    event, channel: channel.name, channel_id: channel.id, member_id: member.session_id,
    role: member.role, host: member.host, delivery_mode: member.delivery_mode,
  };
}

function mailEvent(event: MailEventName, envelope: Envelope, channelName: string): MailEvent {
  return {
    event, channel: channelName, channel_id: envelope.channel_id, message_id: envelope.message_id,
    message_type: envelope.message_type, from_id: envelope.sender_session_id, from_role: envelope.sender_role,
    to_id: envelope.recipient_session_id, to_role: envelope.recipient_role, delivery_method: envelope.delivery_method,
    delivered_via: envelope.delivery_status === 'delivered' ? deliveryPathOf(envelope) : null,
  };
}

// The engine's kick leaves no flag on the roster, only a system notice to the
// remaining members; the engine says how to recognise it (isKickNoticeOf).
// A kick that left nobody to notify shows as 'left'.

function diffMembers(prev: Channel, next: Channel, newMail: readonly Envelope[]): MemberEvent[] {
  const events: MemberEvent[] = [];
  const before = new Map(prev.members.map((m) => [m.session_id, m] as const));
  const after = new Map(next.members.map((m) => [m.session_id, m] as const));
  for (const member of next.members) {
    const old = before.get(member.session_id);
    if (!old) events.push(memberEvent('joined', next, member));
    else if (!old.stale && member.stale) events.push(memberEvent('member_stale', next, member));
    else if (old.stale && !member.stale) events.push(memberEvent('member_active', next, member));
  }
  for (const member of prev.members) {
    if (after.has(member.session_id)) continue;
    const isKicked = newMail.some((e) => e.channel_id === next.id && isKickNoticeOf(e, member));
    events.push(memberEvent(isKicked ? 'kicked' : 'left', next, member));
  }
  return events;
}

function errorKey(entry: ErrorEntry): string {
  return `${entry.at}\u0000${entry.message}`;
}

function personActionKey(a: PersonAction): string {
  return [a.at, a.person_id, a.action, a.channel ?? '', a.detail, a.terminal.tty].join('\u0000');
}

function personActionEvents(prev: WatchView, next: WatchView): PersonActionEvent[] {
  const known = new Set((prev.personActions ?? []).map(personActionKey));
  return (next.personActions ?? []).filter((a) => !known.has(personActionKey(a))).map((a) => ({
    event: 'person_action', action: a.action, person_id: a.person_id, channel: a.channel, detail: a.detail,
    tty: a.terminal.tty, session_leader: a.terminal.session_leader, action_at: a.at,
  }));
}

/**
 * Everything that happened between two views, in a reading order: channels
 * created and their members, mail, departures, pauses, person actions,
 * removals, errors.
 * Mail that was sent and finished between the two views gives both events.
 */
export function diffViews(prev: WatchView, next: WatchView): WatchEvent[] {
  const newMail: Envelope[] = [];
  const mail: MailEvent[] = [];
  // Sort only what changed: the history behind a view can hold thousands.
  const changed = [...next.mail.values()].filter((e) => prev.mail.get(e.message_id)?.delivery_status !== e.delivery_status);
  for (const envelope of changed.sort(compareSendOrder)) {
    const old = prev.mail.get(envelope.message_id);
    const name = next.channels.get(envelope.channel_id)?.name ?? envelope.channel_id;
    const status = envelope.delivery_status;
    if (!old) {
      newMail.push(envelope);
      mail.push(mailEvent('sent', envelope, name));
    }
    if (FINISHED.has(status) && old?.delivery_status !== status) mail.push(mailEvent(status as MailEventName, envelope, name));
  }

  const created: WatchEvent[] = [];
  const departures: WatchEvent[] = [];
  const switches: WatchEvent[] = [];
  const removed: WatchEvent[] = [];
  for (const channel of next.channels.values()) {
    const old = prev.channels.get(channel.id);
    if (!old) {
      created.push(channelEvent('created', channel));
      for (const member of channel.members) created.push(memberEvent('joined', channel, member));
      continue;
    }
    const members = diffMembers(old, channel, newMail);
    created.push(...members.filter((e) => e.event !== 'left' && e.event !== 'kicked'));
    departures.push(...members.filter((e) => e.event === 'left' || e.event === 'kicked'));
    if (!old.paused && channel.paused) switches.push({ ...channelEvent('paused', channel), reason: channel.paused_reason ?? 'member' });
    if (old.paused && !channel.paused) switches.push(channelEvent('resumed', channel));
  }
  for (const channel of prev.channels.values()) {
    if (!next.channels.has(channel.id)) removed.push(channelEvent('removed', channel));
  }

  const known = new Set(prev.errors.map(errorKey));
  const errors: ErrorEvent[] = next.errors
    .filter((e) => !known.has(errorKey(e)))
    .map((e) => ({ event: 'error', message: e.message, error_at: e.at, channel_id: e.channel_id ?? null, member_id: e.member_id ?? null }));

  const before = new Map((prev.board?.tasks ?? []).map(({ task }) => [task.id, task.status] as const));
  const tasks: TaskEvent[] = (next.board?.tasks ?? [])
    .filter(({ task }) => before.get(task.id) !== task.status)
    .map(({ task }) => ({ event: 'task', task_id: task.id, status: task.status, channel: task.channel, by: task.log.at(-1)?.by ?? null }));
  return [...created, ...mail, ...departures, ...switches, ...personActionEvents(prev, next), ...removed, ...errors, ...tasks];
}
