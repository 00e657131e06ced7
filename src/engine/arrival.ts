// How mail reaches each host, in one table (docs/delivery.md shows it and a
// test keeps the two equal), and what follows from it: the send reply's
// word per recipient on how and when it will get the message, the record of
// a host door rung for waiting mail, and each message's path as history and
// status show it (queued, rung, in context, answered).
import { awaySinceText } from './away';
import { commitDelivery, deliveryPathOf } from './delivery';
import { presenceOf } from './presence';
import { ownValue } from './validate';
import type { DeliveryOwner, Envelope, HostDoor, Member, ProcessCheck, State } from './types';

/** The hosts the table covers: those with hooks or a plugin of ours. */
export const PATH_HOSTS = ['claude-code', 'codex', 'gemini-cli', 'opencode'] as const;
export type PathHost = (typeof PATH_HOSTS)[number];

/** A session's moment, as the table tells them apart. */
export const TURN_STATES = ['busy', 'finishing', 'idle', 'ended'] as const;
export type TurnState = (typeof TURN_STATES)[number];

/** How a message reaches a session in one host and state: a short code, the path in words, and the delay. */
export interface PathEntry {
  how: 'next_tool_call' | 'turn_end' | 'inbox' | 'codex_queue' | 'next_prompt' | 'plugin' | 'on_resume';
  path: string;
  delay: string;
}

const ON_RESUME: PathEntry = {
  how: 'on_resume',
  path: 'waits; the SessionStart hook brings it in when the session resumes (spawn-push resumes it at once)',
  delay: 'when the session resumes',
};

/**
 * The table. Delays are what was measured with the real hosts where we have
 * a measurement (reference E.9 and issue 27); "not measured" where we do not.
 */
export const deliveryPaths: Readonly<Record<PathHost, Readonly<Record<TurnState, PathEntry>>>> = {
  'claude-code': {
    busy: { how: 'next_tool_call', path: 'PostToolUse hook: in context after its next tool call', delay: '0.31 s after that tool call' },
    finishing: { how: 'turn_end', path: 'Stop hook: the turn goes on with the mail', delay: '0.11 s after the turn ends' },
    idle: { how: 'inbox', path: 'its own server writes a notice into the Claude Code inbox; the model pulls', delay: '0.34 s' },
    ended: ON_RESUME,
  },
  codex: {
    busy: { how: 'next_tool_call', path: 'PostToolUse hook: in context after its next tool call', delay: 'not measured' },
    finishing: { how: 'turn_end', path: 'Stop hook: a follow-up prompt carries the mail', delay: 'not measured' },
    idle: { how: 'codex_queue', path: 'its own server runs `codex queue --thread`; the model pulls', delay: '0.28 s' },
    ended: ON_RESUME,
  },
  'gemini-cli': {
    busy: { how: 'next_tool_call', path: 'AfterTool hook: in context after its next file-writing or shell tool call', delay: 'not measured' },
    finishing: { how: 'turn_end', path: 'AfterAgent hook: a retry turn carries the mail', delay: 'not measured' },
    idle: { how: 'next_prompt', path: 'BeforeAgent hook at its next prompt (no door wakes it)', delay: 'when a person types' },
    // Gemini CLI's sessions are known by their process: a restarted one is a new member.
    ended: { how: 'on_resume', path: 'waits; a new Gemini CLI process is a new member, so only a session of a fixed id (install --member) takes it', delay: 'when that member is back' },
  },
  opencode: {
    busy: { how: 'plugin', path: 'the plugin prompts the session as soon as its turn ends', delay: 'not measured' },
    finishing: { how: 'plugin', path: 'the plugin prompts the session as soon as its turn ends', delay: 'not measured' },
    idle: { how: 'plugin', path: 'the plugin prompts the session at once', delay: 'not measured' },
    ended: { how: 'on_resume', path: 'waits; the plugin delivers it when the session is back', delay: 'when the session is back' },
  },
};

/** The door a host's server rings for an idle session, if the host has one. */
export const DOOR_OF_HOST: Readonly<Partial<Record<string, HostDoor>>> = { 'claude-code': 'inbox', codex: 'codex_queue' };

function isPathHost(host: string): host is PathHost {
  return (PATH_HOSTS as readonly string[]).includes(host);
}

/** What a sender is told about one recipient: how and when it gets the message. */
export interface Arrival {
  member: string;
  role: string;
  host: string;
  how: PathEntry['how'] | 'spawn' | 'next_call' | 'pull';
  /** One sentence, for the reply's message. */
  text: string;
}

/** The doors the member's live processes ring (engine/presence records them). */
function doorsOf(state: State, memberId: string): HostDoor[] {
  const record = state.presence ? ownValue(state.presence, memberId) : undefined;
  return (record?.processes ?? []).map((p) => p.door).filter((d): d is HostDoor => d !== undefined);
}

/**
 * What the state says of how `member` gets a message sent now: all of an
 * arrival but its session's turn, which a hook records in a file on the
 * member's machine (plain JSON: a send change answers with it, and the
 * sender's process finishes it with arrivalOf).
 */
export interface ArrivalFacts {
  member: string;
  role: string;
  host: string;
  /** The member's session's host id, whose turn record says busy, idle or ended; null when none. */
  host_session_id: string | null;
  is_spawn: boolean;
  is_present: boolean;
  /** Since when it is away, as the away line shows it (used when it is not present or its session ended). */
  away_since: string;
  /** The door its host's server rings when idle, and whether a live process of the member rings it. */
  door: HostDoor | null;
  has_door: boolean;
}

/** The facts of `member`'s arrival the state holds, judged at `now`. */
export function arrivalFacts(state: State, member: Member, now: number, isAlive: ProcessCheck): ArrivalFacts {
  const judged = presenceOf(state, member.session_id, now, isAlive);
  const door = DOOR_OF_HOST[member.host] ?? null;
  return {
    member: member.session_id, role: member.role, host: member.host,
    host_session_id: typeof member.host_session_id === 'string' && member.host_session_id !== '' ? member.host_session_id : null,
    is_spawn: member.delivery_mode === 'spawn_push',
    is_present: judged.present,
    away_since: awaySinceText({ ...member, stale_at: judged.away_since ?? member.stale_at }),
    door,
    has_door: door !== null && doorsOf(state, member.session_id).includes(door),
  };
}

/**
 * How the member of `facts` will get a message sent now. `phase` is its
 * session's turn as its hooks last recorded it (undefined: no record here,
 * as on another machine or without hooks).
 */
export function arrivalOf(facts: ArrivalFacts, phase: 'busy' | 'idle' | 'ended' | undefined): Arrival {
  const base = { member: facts.member, role: facts.role, host: facts.host };
  const who = `${facts.role} (${facts.member})`;
  if (facts.is_spawn) {
    return { ...base, how: 'spawn', text: `${who}: by spawn — its session is resumed with the mail, now or when a delivery slot is free.` };
  }
  if (!facts.is_present || phase === 'ended') {
    return { ...base, how: 'on_resume', text: `${who}: when its session resumes (away since ${facts.away_since}).` };
  }
  if (!isPathHost(facts.host)) {
    return { ...base, how: 'pull', text: `${who}: when it calls opencomms_pull (its host ${facts.host} has no hooks of ours).` };
  }
  const door = facts.door;
  if (phase === undefined) {
    if (facts.host === 'opencode') return { ...base, how: 'plugin', text: `${who}: ${deliveryPaths.opencode.idle.path}, or after its running turn.` };
    return facts.has_door && door !== null
      ? { ...base, how: door, text: `${who}: in context at its next tool call when busy; woken through its ${door === 'inbox' ? 'Claude Code inbox' : 'codex queue'} when idle.` }
      : { ...base, how: 'next_call', text: `${who}: in context at its next tool call or prompt (its turn is not known here).` };
  }
  const entry = deliveryPaths[facts.host][phase];
  if (phase === 'idle' && door !== null && !facts.has_door) {
    return { ...base, how: 'next_prompt', text: `${who}: idle, and its server has no door to wake it — at its next prompt.` };
  }
  const when = phase === 'busy' ? 'busy now' : 'idle now';
  return { ...base, how: entry.how, text: `${who}: ${when} — ${entry.path} (${entry.delay}).` };
}

/**
 * How `member` will get a message sent now. `phase` is its session's turn as
 * its hooks last recorded it (undefined: no record here, as on another
 * machine or without hooks).
 */
export function arrivalFor(state: State, member: Member, now: number, isAlive: ProcessCheck, phase: 'busy' | 'idle' | 'ended' | undefined): Arrival {
  return arrivalOf(arrivalFacts(state, member, now, isAlive), phase);
}

/** Marks `ids` (still pending for `memberId`) as rung through `door` at `at`; returns those marked. */
export function markRung(state: State, memberId: string, ids: readonly string[], door: HostDoor, at: number): string[] {
  const marked: string[] = [];
  for (const id of ids) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.recipient_session_id !== memberId || envelope.delivery_status !== 'pending') continue;
    envelope.rung_via = door;
    envelope.rung_at = at;
    marked.push(id);
  }
  return marked;
}

/** Takes back the mark of one ring (`at`) from `ids` that still carry it: the door refused after all. */
export function clearRung(state: State, ids: readonly string[], at: number): void {
  for (const id of ids) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.rung_at !== at) continue;
    delete envelope.rung_via;
    delete envelope.rung_at;
  }
}

/**
 * Commits a pull's handover: mail a host door was rung for is delivered via
 * that door, mail the doorbell announced (`announced`) via the doorbell, the
 * rest via the pull itself.
 */
export function commitPull(state: State, memberId: string, ids: readonly string[], announced: ReadonlySet<string>, now: number, owner: DeliveryOwner): void {
  const doorOf = (id: string): HostDoor | undefined => ownValue(state.messages, id)?.rung_via;
  for (const door of ['inbox', 'codex_queue'] as const) commitDelivery(state, memberId, ids.filter((id) => doorOf(id) === door), 'pull', now, owner, door);
  const rest = ids.filter((id) => doorOf(id) === undefined);
  commitDelivery(state, memberId, rest.filter((id) => announced.has(id)), 'pull', now, owner, 'doorbell');
  commitDelivery(state, memberId, rest.filter((id) => !announced.has(id)), 'pull', now, owner);
}

/** One step of a message's path. */
export interface PathStep {
  step: 'queued' | 'rung' | 'in_flight' | 'delivered' | 'failed' | 'rejected' | 'stale' | 'answered';
  at: number | null;
  via?: string;
  by?: string;
}

/** A message's path so far: queued, rung through a door, in context (via which path) or not, answered. */
export function messagePath(envelope: Envelope, answer?: { message_id: string; timestamp: number }): PathStep[] {
  const steps: PathStep[] = [{ step: 'queued', at: envelope.timestamp }];
  if (envelope.rung_via !== undefined) steps.push({ step: 'rung', at: envelope.rung_at ?? null, via: envelope.rung_via });
  const status = envelope.delivery_status;
  if (status === 'in_flight') steps.push({ step: 'in_flight', at: null });
  else if (status === 'delivered') {
    const via = deliveryPathOf(envelope);
    steps.push({ step: 'delivered', at: envelope.delivered_at, ...(via === null ? {} : { via }) });
  } else if (status !== 'pending') steps.push({ step: status, at: envelope.delivered_at });
  if (answer) steps.push({ step: 'answered', at: answer.timestamp, by: answer.message_id });
  return steps;
}

/** The first reply to each message among `envelopes` (by reply_to), sent by its recipient. */
export function firstAnswers(envelopes: readonly Envelope[]): Map<string, { message_id: string; timestamp: number }> {
  const byId = new Map(envelopes.map((e) => [e.message_id, e] as const));
  const answers = new Map<string, { message_id: string; timestamp: number }>();
  for (const e of envelopes) {
    if (e.reply_to === null) continue;
    const parent = byId.get(e.reply_to);
    if (!parent || parent.recipient_session_id !== e.sender_session_id) continue;
    const known = answers.get(e.reply_to);
    if (!known || e.timestamp < known.timestamp) answers.set(e.reply_to, { message_id: e.message_id, timestamp: e.timestamp });
  }
  return answers;
}
