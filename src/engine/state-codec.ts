// Turning state.json text into a checked State and back, plus the one-time
// v1 migration. The store owns files, locks and markers; this owns meaning.
import { checkBoard } from './task-shape';
import { DEFAULT_STALE_EVENT_MS, LEGACY_HOST_ID, MAX_ERRORS } from './constants';
import { insertInSendOrder, isLive } from './envelopes';
import { capabilitiesForMode } from './members';
import { checkPersonActions } from './person-log';
import { checkChannel } from './channel-shape';
import { checkKeys, isFiniteNumber, isObj, isStringArray, rejectShape, ShapeError, type Obj } from './shape-checks';
import { checkEnvelope, HOST_DOORS } from './state-shape';
import { isDateTime } from './times';
import { upgradedLinkKey } from './session-links';
import { checkQuarantine } from './quarantine';
import { isValidHostLabel } from './validate';
import { SCHEMA_VERSION } from './types';
import type { Channel, Envelope, ErrorEntry, Presence, PresenceProcess, SessionLink, State } from './types';
import type { Lease, LeaseField } from './leases';

/** A state with nothing in it. */
export function emptyState(): State {
  return { schema_version: 2, channels: {}, messages: {}, queues: {}, delivered_to: {}, errors: [], next_seq: 1 };
}

/** Compact JSON, no indentation: the file is read by programs, and smaller is faster to rewrite. */
export function serializeState(state: State): string {
  return JSON.stringify(state);
}

function checkStringArrays(root: Obj, key: 'queues' | 'delivered_to'): Record<string, string[]> {
  const value = root[key];
  if (value === undefined) return {};
  if (!isObj(value)) rejectShape(`${key} is not an object`);
  checkKeys(value, key);
  for (const [k, list] of Object.entries(value)) {
    if (!isStringArray(list)) rejectShape(`${key}["${k}"] is not a string array`);
  }
  return value as Record<string, string[]>;
}

function checkErrors(root: Obj, notes: string[]): ErrorEntry[] {
  if (root.errors === undefined) return [];
  if (!Array.isArray(root.errors)) rejectShape('errors is not an array');
  const kept = root.errors.filter((e): e is ErrorEntry => isObj(e)
    && isDateTime(e.at) && typeof e.message === 'string'
    && (e.channel_id === undefined || typeof e.channel_id === 'string')
    && (e.member_id === undefined || typeof e.member_id === 'string'));
  if (kept.length !== root.errors.length) notes.push(`errors: dropped ${root.errors.length - kept.length} malformed entries`);
  return kept.slice(-MAX_ERRORS);
}

/**
 * Leases (spawn_leases, wait_leases, speaker_leases) are soft claims: a malformed entry is
 * dropped (its member becomes free), a map that is not an object is a rejection.
 */
function checkLeases(root: Obj, field: LeaseField, notes: string[]): Record<string, Lease> | undefined {
  const value = root[field];
  if (value === undefined) return undefined;
  if (!isObj(value)) rejectShape(`${field} is not an object`);
  checkKeys(value, field);
  const kept: Record<string, Lease> = {};
  for (const [memberId, lease] of Object.entries(value)) {
    if (isObj(lease) && Number.isSafeInteger(lease.pid) && typeof lease.host === 'string'
      && typeof lease.token === 'string' && typeof lease.until === 'number' && Number.isFinite(lease.until)) {
      kept[memberId] = { pid: lease.pid as number, host: lease.host, token: lease.token, until: lease.until };
    } else {
      notes.push(`${field}["${memberId}"]: dropped a malformed lease`);
    }
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * Session links are soft too: a malformed link is dropped (that session is
 * given a fresh member next time, and its old member keeps its mail for
 * `pin` or OPENCOMMS_MEMBER_ID to reach), a map that is not an object is a rejection.
 */
function checkSessionLinks(root: Obj, notes: string[]): Record<string, SessionLink> | undefined {
  const value = root.session_links;
  if (value === undefined) return undefined;
  if (!isObj(value)) rejectShape('session_links is not an object');
  checkKeys(value, 'session_links');
  const kept: Record<string, SessionLink> = {};
  for (const [key, link] of Object.entries(value)) {
    if (isObj(link) && isValidHostLabel(link.member_id) && typeof link.host === 'string' && isFiniteNumber(link.created_at) && isFiniteNumber(link.last_seen)) {
      kept[key] = { member_id: link.member_id, host: link.host, created_at: link.created_at, last_seen: link.last_seen };
    } else {
      notes.push(`session_links["${key}"]: dropped a malformed link`);
    }
  }
  upgradeLinkKeys(kept);
  return Object.keys(kept).length > 0 ? kept : undefined;
}

const PRESENCE_KINDS: readonly string[] = ['server', 'waiter', 'plugin'];

function isPresenceProcess(p: unknown): p is PresenceProcess {
  return isObj(p) && Number.isSafeInteger(p.pid) && typeof p.machine === 'string' && (p.start === null || Number.isSafeInteger(p.start))
    && typeof p.kind === 'string' && PRESENCE_KINDS.includes(p.kind) && isFiniteNumber(p.renewed_at) && isFiniteNumber(p.until);
}

/**
 * Presence records are soft like leases: a malformed process is dropped (its
 * member may look away until its process renews), a malformed record goes,
 * a map that is not an object is a rejection.
 */
function checkPresence(root: Obj, notes: string[]): Record<string, Presence> | undefined {
  const value = root.presence;
  if (value === undefined) return undefined;
  if (!isObj(value)) rejectShape('presence is not an object');
  checkKeys(value, 'presence');
  const kept: Record<string, Presence> = {};
  for (const [memberId, record] of Object.entries(value)) {
    if (!isObj(record) || !Array.isArray(record.processes) || !(record.left_at === null || isFiniteNumber(record.left_at))) {
      notes.push(`presence["${memberId}"]: dropped a malformed record`);
      continue;
    }
    const processes = record.processes.filter(isPresenceProcess).map((p) => ({
      pid: p.pid, machine: p.machine, start: p.start, kind: p.kind, renewed_at: p.renewed_at, until: p.until,
      ...(HOST_DOORS.includes(p.door as string) ? { door: p.door } : {}),
    }));
    if (processes.length !== record.processes.length) notes.push(`presence["${memberId}"]: dropped ${record.processes.length - processes.length} malformed process(es)`);
    kept[memberId] = { processes, left_at: record.left_at as number | null };
    if (isFiniteNumber(record.ended_at)) kept[memberId]!.ended_at = record.ended_at;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * Links written before they were keyed by host (`sid:<id>`) are moved under
 * the host their link names; one whose new key is taken already, or whose
 * host is no valid label, is dropped (its session gets a member again on its
 * next call). No note: this is a change of form, not a repair.
 */
function upgradeLinkKeys(links: Record<string, SessionLink>): void {
  for (const [key, link] of Object.entries(links)) {
    const upgraded = upgradedLinkKey(key, link.host);
    if (upgraded === undefined && !/^(sid|proc):/.test(key)) continue;
    delete links[key];
    if (upgraded !== undefined && !Object.prototype.hasOwnProperty.call(links, upgraded)) links[upgraded] = link;
  }
}

/**
 * Makes queues agree with envelopes: each pending envelope sits exactly
 * once, in its recipient's queue, in send order; nothing else is queued.
 */
function reconcileQueues(state: State, notes: string[]): void {
  const queued = new Set<string>();
  for (const [recipient, list] of Object.entries(state.queues)) {
    const clean: string[] = [];
    for (const id of list) {
      const envelope = Object.prototype.hasOwnProperty.call(state.messages, id) ? state.messages[id] : undefined;
      if (!envelope || envelope.delivery_status !== 'pending' || envelope.recipient_session_id !== recipient || queued.has(id)) continue;
      clean.push(id);
      queued.add(id);
    }
    if (clean.length !== list.length) notes.push(`queues["${recipient}"]: dropped ${list.length - clean.length} entries that are not pending mail for that member`);
    if (clean.length > 0) state.queues[recipient] = clean;
    else delete state.queues[recipient];
  }
  const orphans = Object.values(state.messages).filter((e) => e.delivery_status === 'pending' && !queued.has(e.message_id));
  if (orphans.length > 0) notes.push(`queues: re-queued ${orphans.length} pending envelopes that were in no queue`);
  const byRecipient = new Map<string, Envelope[]>();
  for (const envelope of orphans) {
    byRecipient.set(envelope.recipient_session_id, [...(byRecipient.get(envelope.recipient_session_id) ?? []), envelope]);
  }
  for (const [recipient, list] of byRecipient) insertInSendOrder(state, recipient, list);
}

function backfillDeliveredTotal(channel: Channel, raw: Obj, state: State, notes: string[]): void {
  if (typeof raw.delivered_total === 'number' && Number.isFinite(raw.delivered_total)) return;
  channel.delivered_total = Object.values(state.messages)
    .filter((e) => e.channel_id === channel.id && (e.delivery_status === 'delivered' || e.delivery_status === 'in_flight')).length;
  notes.push(`channel "${channel.name}": delivered_total recounted`);
}

function checkRoot(root: unknown, now: number, expectedSchema: number, legacy: boolean): { state: State; notes: string[] } {
  const notes: string[] = [];
  if (!isObj(root)) rejectShape('state root is not an object');
  if (root.schema_version !== expectedSchema) rejectShape(`schema_version mismatch: expected ${expectedSchema}, got ${String(root.schema_version)}`);
  if (!isObj(root.channels)) rejectShape('channels is not an object');
  if (!isObj(root.messages)) rejectShape('messages is not an object');
  checkKeys(root.channels, 'channels');
  checkKeys(root.messages, 'messages');
  const messages: Record<string, Envelope> = {};
  for (const [key, raw] of Object.entries(root.messages)) messages[key] = checkEnvelope(key, raw, notes);
  const state: State = {
    schema_version: 2,
    channels: {},
    messages,
    queues: checkStringArrays(root, 'queues'),
    delivered_to: checkStringArrays(root, 'delivered_to'),
    errors: checkErrors(root, notes),
  };
  const leases = checkLeases(root, 'spawn_leases', notes);
  if (leases) state.spawn_leases = leases;
  const waitLeases = checkLeases(root, 'wait_leases', notes);
  if (waitLeases) state.wait_leases = waitLeases;
  const speakerLeases = checkLeases(root, 'speaker_leases', notes);
  if (speakerLeases) state.speaker_leases = speakerLeases;
  const links = checkSessionLinks(root, notes);
  if (links) state.session_links = links;
  const presence = checkPresence(root, notes);
  if (presence) state.presence = presence;
  const quarantine = checkQuarantine(root, now, notes);
  if (quarantine) state.quarantine = quarantine;
  const channelIds = new Set<string>();
  for (const [key, raw] of Object.entries(root.channels)) {
    const channel = checkChannel(key, raw, now, notes, legacy);
    if (channelIds.has(channel.id)) rejectShape(`channel id "${channel.id}" is used twice`);
    channelIds.add(channel.id);
    backfillDeliveredTotal(channel, raw as Obj, state, notes);
    state.channels[key] = channel;
  }
  let highest = 0;
  for (const e of Object.values(messages)) if (typeof e.seq === 'number' && e.seq > highest) highest = e.seq;
  const floor = highest + 1;
  const next = root.next_seq;
  state.next_seq = typeof next === 'number' && Number.isSafeInteger(next) && next >= floor ? next : floor;
  const personActions = checkPersonActions(root, notes);
  if (personActions) state.person_actions = personActions;
  const board = checkBoard(root, now, notes);
  if (board) state.board = board;
  reconcileQueues(state, notes);
  return { state, notes };
}

/** Parses and checks state.json text; every field the engine relies on is validated. */
export function parseState(text: string, now: number): { ok: true; state: State; notes: string[] } | { ok: false; reason: string } {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `state file is not valid JSON: ${(err as Error).message}` };
  }
  try {
    const { state, notes } = checkRoot(root, now, SCHEMA_VERSION, false);
    return { ok: true, state, notes };
  } catch (err) {
    if (err instanceof ShapeError) return { ok: false, reason: err.message };
    throw err;
  }
}

/**
 * The state of `text` when parseState(text) gave no notes and serializeState
 * of its result is `text` again. Then validation changed nothing: every value
 * it keeps came from the JSON or is a plain JSON value it filled in (never
 * undefined, never a non-finite number), and the serialization proves that
 * nothing was filled, dropped or reordered. So JSON.parse alone rebuilds that
 * same state, fresh. Without notes parseState does not read its clock, so the
 * same text always gives the same state.
 */
export function reparseState(text: string): State {
  return JSON.parse(text) as State;
}

function isPlaceholderState(state: State): boolean {
  return Object.values(state.messages).length === 0
    && Object.values(state.queues).every((q) => q.length === 0)
    && Object.values(state.delivered_to).every((d) => d.length === 0)
    && Object.values(state.channels).every((c) => c.lifecycle === 'active' && c.members.length === 0);
}

/**
 * Converts a v1 (.opencode-comms) state file to v2. Members become pushed
 * members of the legacy host. With `placeholder` (a v2 state holding only
 * empty channels), its channels are kept where the names do not collide;
 * a v2 state with anything real in it is refused, because it wins.
 */
export function migrateV1(legacyText: string, now: number, placeholder?: State): { ok: true; state: State } | { ok: false; reason: string } {
  if (placeholder && !isPlaceholderState(placeholder)) return { ok: false, reason: 'a v2 state with real content exists; it wins over the v1 file' };
  let root: unknown;
  try {
    root = JSON.parse(legacyText);
  } catch (err) {
    return { ok: false, reason: `legacy state file is not valid JSON: ${(err as Error).message}` };
  }
  let state: State;
  try {
    state = checkRoot(root, now, 1, true).state;
  } catch (err) {
    if (err instanceof ShapeError) return { ok: false, reason: `Legacy state rejected (${err.message}); original left untouched` };
    throw err;
  }
  for (const channel of Object.values(state.channels)) {
    for (const member of channel.members) {
      member.host = LEGACY_HOST_ID;
      member.surface = 'cli';
      member.delivery_mode = 'push';
      member.host_session_id = member.session_id;
      member.stale_policy = { mode: 'window', window_ms: DEFAULT_STALE_EVENT_MS };
      member.endpoint_capabilities = capabilitiesForMode('push');
    }
  }
  if (placeholder) {
    for (const [name, channel] of Object.entries(placeholder.channels)) {
      if (!Object.prototype.hasOwnProperty.call(state.channels, name)) state.channels[name] = channel;
    }
    state.errors.push(...placeholder.errors);
  }
  const live = Object.values(state.messages).filter(isLive).length;
  state.errors.push({ at: now, message: `Migrated the v1 state (.opencode-comms) to v2: ${Object.keys(state.channels).length} channels, ${live} undelivered messages. A backup was made; the v1 file was left in place.` });
  state.errors = state.errors.slice(-MAX_ERRORS);
  return { ok: true, state };
}
