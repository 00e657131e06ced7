// Field-by-field validation and backfill of one channel, member or envelope
// read from disk. A wrong type is a rejection; a missing field with a known
// default is filled in and noted. The numeric safeguards are always
// restored, because a missing hop cap or rate limit silently disables them.
import {
  CHANNEL_ID_PATTERN, DEFAULT_DELIVERY_COOLDOWN_MS, DEFAULT_HOST_ID, DEFAULT_MAX_HOPS, DEFAULT_MAX_MEMBERS,
  DEFAULT_RATE_LIMIT, DEFAULT_STALE_EVENT_MS, DEFAULT_AWAY_RETENTION_MS, MIN_AWAY_RETENTION_MS, MAX_AWAY_RETENTION_MS, MAX_MAX_HOPS, MAX_MEMBERS_CEILING, MAX_RATE_LIMIT,
  MIN_MAX_HOPS, MIN_MEMBERS, MIN_RATE_LIMIT,
} from './constants';
import { checkLoopGuard } from './loop-guard';
import { capabilitiesForMode, defaultStalePolicy, DELIVERY_MODES, SURFACES } from './members';
import { buildSeenRecords, isSeenRecords, isSeenTime, seenEntries, splitSeenKey } from './seen-recent';
import { emptyTimer } from './timer-clock';
import { isValidHostLabel, isValidRole, ownValue, repairHostLabel } from './validate';
import type { Channel, ChannelTimer, DeliveryMethod, DeliveryMode, DeliveryPath, DeliveryStatus, Envelope, HistoryRecord, Member, MessageType, Surface } from './types';

/** Thrown inside the codec only; parseState turns it into { ok: false }. */
export class ShapeError extends Error {}

export type Obj = Record<string, unknown>;

export const MESSAGE_TYPES: readonly MessageType[] = ['review_request', 'review_response', 'manual', 'system'];
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'in_flight', 'delivered', 'failed', 'rejected', 'stale'];
const DELIVERY_METHODS: readonly DeliveryMethod[] = ['push', 'spawn_push', 'pull'];
export const DELIVERY_PATHS: readonly DeliveryPath[] = ['hook', 'doorbell', 'spawn', 'plugin', 'pull', 'inbox', 'codex_queue'];
export const HOST_DOORS: readonly string[] = ['inbox', 'codex_queue'];
const CAPABILITY_KEYS = ['push', 'pull', 'resume', 'queue_while_busy', 'interrupt'] as const;

export function rejectShape(message: string): never {
  throw new ShapeError(message);
}

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Rejects keys that would change an object's prototype when written back. */
export function checkKeys(obj: Obj, where: string): void {
  if (Object.prototype.hasOwnProperty.call(obj, '__proto__')) rejectShape(`${where} has a forbidden "__proto__" key`);
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Backfill helper: sets obj[key] to the fallback when absent, noting it. */
function fill(obj: Obj, key: string, fallback: unknown, where: string, notes: string[]): void {
  if (obj[key] === undefined) {
    obj[key] = fallback;
    notes.push(`${where}: ${key} set to its default`);
  }
}

function requireType(holds: boolean, where: string, key: string, expected: string): void {
  if (!holds) rejectShape(`${where}.${key} must be ${expected}`);
}

function stringOrNull(obj: Obj, key: string, where: string, notes: string[]): void {
  fill(obj, key, null, where, notes);
  requireType(obj[key] === null || typeof obj[key] === 'string', where, key, 'a string or null');
}

function numberOrNull(obj: Obj, key: string, where: string, notes: string[]): void {
  fill(obj, key, null, where, notes);
  requireType(obj[key] === null || isFiniteNumber(obj[key]), where, key, 'a number or null');
}

function safeguard(obj: Obj, key: string, fallback: number, min: number, max: number, where: string, notes: string[]): void {
  const value = obj[key];
  if (!isFiniteNumber(value)) {
    obj[key] = fallback;
    notes.push(`${where}: ${key} restored to ${fallback}`);
  } else if (value < min || value > max) {
    obj[key] = Math.min(max, Math.max(min, Math.floor(value)));
    notes.push(`${where}: ${key} clamped to ${obj[key] as number}`);
  }
}

function numberRecord(obj: Obj, key: string, where: string, notes: string[]): void {
  fill(obj, key, {}, where, notes);
  const record = obj[key];
  if (!isObj(record)) rejectShape(`${where}.${key} must be an object`);
  checkKeys(record, `${where}.${key}`);
  for (const [k, v] of Object.entries(record)) {
    if (!isFiniteNumber(v)) {
      delete record[k];
      notes.push(`${where}: dropped a malformed ${key} entry`);
    }
  }
}

/** Folds a reference-format seen_content map into seen_recent, oldest first per sender. */
function convertSeenContent(raw: unknown, recent: Record<string, string>, where: string, notes: string[]): void {
  if (!isObj(raw)) rejectShape(`${where}.seen_content must be an object`);
  checkKeys(raw, `${where}.seen_content`);
  const bySender = new Map<string, { hash: string; at: number }[]>();
  let dropped = 0;
  for (const [key, at] of Object.entries(raw)) {
    const parts = splitSeenKey(key);
    // A time outside [0, 2^53) cannot be stored, and no clock writes one.
    if (!parts || parts.sender === '__proto__' || typeof at !== 'number' || !isSeenTime(at)) {
      dropped += 1;
      continue;
    }
    const list = bySender.get(parts.sender) ?? [];
    list.push({ hash: parts.hash, at });
    bySender.set(parts.sender, list);
  }
  if (dropped > 0) notes.push(`${where}: dropped ${dropped} malformed seen_content entries`);
  for (const [sender, entries] of bySender) {
    const existing = ownValue(recent, sender);
    recent[sender] = buildSeenRecords(existing === undefined ? entries : [...seenEntries(existing), ...entries]);
  }
}

/**
 * The duplicate-send index. Our files carry seen_recent; a reference file
 * carries seen_content, which is converted. A malformed sender value is
 * dropped, a map that is not an object is a rejection.
 */
function checkSeenIndex(c: Obj, where: string, notes: string[]): void {
  if (c.seen_recent === undefined) {
    c.seen_recent = {};
    if (c.seen_content === undefined) notes.push(`${where}: seen_recent set to its default`);
  }
  const recent = c.seen_recent;
  if (!isObj(recent)) rejectShape(`${where}.seen_recent must be an object`);
  checkKeys(recent, `${where}.seen_recent`);
  let dropped = 0;
  for (const [sender, records] of Object.entries(recent)) {
    if (isSeenRecords(records) && records !== '') continue;
    if (records !== '') dropped += 1;
    delete recent[sender];
  }
  if (dropped > 0) notes.push(`${where}: dropped ${dropped} malformed seen_recent entries`);
  if (c.seen_content !== undefined) convertSeenContent(c.seen_content, recent as Record<string, string>, where, notes);
  delete c.seen_content;
}

/** Validates and completes one member; `legacy` relaxes the host fields (v1 files). */
export function checkMember(raw: unknown, where: string, notes: string[], legacy: boolean): Member {
  if (!isObj(raw)) rejectShape(`${where} is not an object`);
  const m = raw;
  requireType(typeof m.session_id === 'string' && m.session_id !== '' && m.session_id !== '__proto__', where, 'session_id', 'a non-empty string');
  requireType(typeof m.role === 'string' && isValidRole(m.role), where, 'role', 'a valid role');
  requireType(typeof m.role_prompt === 'string', where, 'role_prompt', 'a string');
  requireType(isFiniteNumber(m.joined_at), where, 'joined_at', 'a number');
  if (legacy) {
    fill(m, 'host', DEFAULT_HOST_ID, where, notes);
    fill(m, 'surface', 'cli', where, notes);
    fill(m, 'delivery_mode', 'push', where, notes);
  }
  requireType(typeof m.host === 'string', where, 'host', 'a string');
  if (!isValidHostLabel(m.host)) {
    // The label is not repeated in the note: notes are shown as errors, and the label is the problem.
    const length = (m.host as string).length;
    m.host = repairHostLabel(m.host as string);
    notes.push(`${where}: host label of ${length} characters was not a valid label; now "${m.host}"`);
  }
  requireType(SURFACES.includes(m.surface as Surface), where, 'surface', `one of ${SURFACES.join(', ')}`);
  requireType(DELIVERY_MODES.includes(m.delivery_mode as DeliveryMode), where, 'delivery_mode', `one of ${DELIVERY_MODES.join(', ')}`);
  const mode = m.delivery_mode as DeliveryMode;
  fill(m, 'stale', false, where, notes);
  requireType(typeof m.stale === 'boolean', where, 'stale', 'a boolean');
  numberOrNull(m, 'stale_at', where, notes);
  stringOrNull(m, 'host_session_id', where, notes);
  if (m.host_session_source !== undefined && m.host_session_source !== 'host' && m.host_session_source !== 'argument') {
    // Unknown provenance is never trusted to decide whom a hook speaks for.
    m.host_session_source = 'argument';
    notes.push(`${where}: host_session_source was not "host" or "argument"; now "argument"`);
  }
  requireType(m.machine === undefined || typeof m.machine === 'string', where, 'machine', 'a string');
  if (!isObj(m.stale_policy)) {
    requireType(m.stale_policy === undefined || m.stale_policy === null, where, 'stale_policy', 'an object');
    m.stale_policy = defaultStalePolicy(mode);
    notes.push(`${where}: stale_policy restored to its default`);
  } else {
    const policy = m.stale_policy;
    requireType(policy.mode === 'window' || policy.mode === 'none', where, 'stale_policy.mode', '"window" or "none"');
    if (policy.mode === 'window' && !isFiniteNumber(policy.window_ms)) {
      policy.window_ms = DEFAULT_STALE_EVENT_MS;
      notes.push(`${where}: stale_policy.window_ms restored to ${DEFAULT_STALE_EVENT_MS}`);
    }
    if (policy.mode === 'none' && !isFiniteNumber(policy.window_ms)) policy.window_ms = null;
  }
  requireType(m.capabilities === undefined || isObj(m.capabilities), where, 'capabilities', 'an object');
  if (m.endpoint_capabilities === undefined) {
    m.endpoint_capabilities = capabilitiesForMode(mode);
    notes.push(`${where}: endpoint_capabilities derived from delivery_mode`);
  } else {
    const caps = m.endpoint_capabilities;
    requireType(isObj(caps) && CAPABILITY_KEYS.every((k) => typeof caps[k] === 'boolean'), where, 'endpoint_capabilities', 'five booleans');
  }
  return m as unknown as Member;
}

function checkTimer(channel: Obj, where: string, notes: string[]): void {
  if (channel.timer === undefined) {
    channel.timer = emptyTimer();
    notes.push(`${where}: timer set to its default`);
    return;
  }
  if (!isObj(channel.timer)) rejectShape(`${where}.timer must be an object`);
  const timer = channel.timer;
  // A reference-era timer keyed by role is re-keyed by the first member holding that role.
  if (timer.active_member_id === undefined && typeof timer.active_role === 'string') {
    const members = channel.members as Member[];
    const holder = members.find((m) => m.role.toLowerCase() === (timer.active_role as string).toLowerCase());
    timer.active_member_id = holder ? holder.session_id : null;
    notes.push(`${where}: timer re-keyed from role to member id`);
  }
  delete timer.active_role;
  stringOrNull(timer, 'active_member_id', `${where}.timer`, notes);
  numberOrNull(timer, 'segment_started_at', `${where}.timer`, notes);
  numberRecord(timer, 'elapsed_ms', `${where}.timer`, notes);
  numberOrNull(timer, 'limit_ms', `${where}.timer`, notes);
  stringOrNull(timer, 'limit_member_id', `${where}.timer`, notes);
  const t = timer as unknown as ChannelTimer;
  if (t.active_member_id !== null && t.segment_started_at === null) t.active_member_id = null;
}

/** Validates and completes one channel stored under `key`. */
export function checkChannel(key: string, raw: unknown, now: number, notes: string[], legacy: boolean): Channel {
  const where = `channel "${key}"`;
  if (!isObj(raw)) rejectShape(`${where} is not an object`);
  const c = raw;
  for (const field of ['id', 'name', 'project_id', 'worktree']) requireType(typeof c[field] === 'string', where, field, 'a string');
  // History logs and archives are named after the id: one that cannot name a file is refused here,
  // not when a later save or archive would trip on it.
  requireType(CHANNEL_ID_PATTERN.test(c.id as string), where, 'id', '"chn_" and 1-64 letters, digits, _ or -');
  if (c.name !== key) rejectShape(`channel key "${key}" does not match channel name "${String(c.name)}"`);
  const rawMembers = c.members;
  if (!Array.isArray(rawMembers)) rejectShape(`${where}.members must be an array`);
  if (rawMembers.length > MAX_MEMBERS_CEILING) rejectShape(`${where} has more than ${MAX_MEMBERS_CEILING} members`);
  const members = rawMembers.map((m, i) => checkMember(m, `${where}.members[${i}]`, notes, legacy));
  c.members = members;
  const ids = members.map((m) => m.session_id);
  if (new Set(ids).size !== ids.length) rejectShape(`${where} lists a member twice`);
  if (c.lifecycle !== 'active' && c.lifecycle !== 'saved' && c.lifecycle !== 'deleted') {
    if (c.lifecycle !== undefined) notes.push(`${where}: unknown lifecycle replaced by active`);
    c.lifecycle = 'active';
  }
  if (members.length === 0 && c.lifecycle !== 'active') rejectShape(`${where} has no members and is not active`);
  fill(c, 'created_at', now, where, notes);
  requireType(isFiniteNumber(c.created_at), where, 'created_at', 'a number');
  fill(c, 'paused', false, where, notes);
  requireType(typeof c.paused === 'boolean', where, 'paused', 'a boolean');
  numberOrNull(c, 'paused_at', where, notes);
  stringOrNull(c, 'description', where, notes);
  stringOrNull(c, 'parent_channel_id', where, notes);
  safeguard(c, 'max_members', DEFAULT_MAX_MEMBERS, MIN_MEMBERS, MAX_MEMBERS_CEILING, where, notes);
  if (!isObj(c.rate) || !isFiniteNumber(c.rate.window_start) || !isFiniteNumber(c.rate.count)) {
    c.rate = { window_start: now, count: 0 };
    notes.push(`${where}: rate window reset`);
  }
  numberRecord(c, 'cooldown_until', where, notes);
  checkSeenIndex(c, where, notes);
  fill(c, 'processed_correlations', [], where, notes);
  requireType(isStringArray(c.processed_correlations), where, 'processed_correlations', 'a string array');
  safeguard(c, 'max_hops', DEFAULT_MAX_HOPS, MIN_MAX_HOPS, MAX_MAX_HOPS, where, notes);
  safeguard(c, 'rate_limit', DEFAULT_RATE_LIMIT, MIN_RATE_LIMIT, MAX_RATE_LIMIT, where, notes);
  safeguard(c, 'delivery_cooldown_ms', DEFAULT_DELIVERY_COOLDOWN_MS, 0, Number.MAX_SAFE_INTEGER, where, notes);
  safeguard(c, 'stale_event_ms', DEFAULT_STALE_EVENT_MS, 1, Number.MAX_SAFE_INTEGER, where, notes);
  // Written since one member per session; older channels get the default without a note.
  if (c.away_retention_ms === undefined) c.away_retention_ms = DEFAULT_AWAY_RETENTION_MS;
  safeguard(c, 'away_retention_ms', DEFAULT_AWAY_RETENTION_MS, MIN_AWAY_RETENTION_MS, MAX_AWAY_RETENTION_MS, where, notes);
  checkTimer(c, where, notes);
  checkReservations(c, where, notes);
  checkOpenRequests(c, where, notes);
  checkLoopGuard(c, where, notes);
  softArray(c, 'recent_edits', where, notes, (e) => isObj(e) && typeof e.file === 'string' && typeof e.member_id === 'string' && isFiniteNumber(e.at));
  softArray(c, 'collision_notices', where, notes, (e) => isObj(e) && typeof e.file === 'string' && typeof e.pair === 'string' && isFiniteNumber(e.at));
  fill(c, 'budgets', { max_runtime_ms: null, max_delivered_messages: null }, where, notes);
  if (!isObj(c.budgets)) rejectShape(`${where}.budgets must be an object`);
  for (const budget of ['max_runtime_ms', 'max_delivered_messages']) {
    if (!isFiniteNumber(c.budgets[budget])) c.budgets[budget] = null;
  }
  return c as unknown as Channel;
}

// Reservations are soft claims like leases: a malformed one is dropped with a
// note (its path is simply free), a value that is not an array drops them all.
function checkReservations(c: Obj, where: string, notes: string[]): void {
  if (c.reservations === undefined) return;
  if (!Array.isArray(c.reservations)) {
    notes.push(`${where}: reservations dropped (not an array)`);
    delete c.reservations;
    return;
  }
  const kept = c.reservations.filter((r: unknown): boolean => isObj(r) && typeof r.path === 'string' && r.path !== ''
    && typeof r.member_id === 'string' && typeof r.role === 'string' && typeof r.exclusive === 'boolean'
    && (r.reason === null || typeof r.reason === 'string') && isFiniteNumber(r.created_at) && isFiniteNumber(r.expires_at));
  if (kept.length !== c.reservations.length) notes.push(`${where}: dropped ${c.reservations.length - kept.length} malformed reservation(s)`);
  if (kept.length > 0) c.reservations = kept;
  else delete c.reservations;
}

// A list only notices depend on: anything malformed in it is dropped with a note.
function softArray(c: Obj, key: string, where: string, notes: string[], isGood: (entry: unknown) => boolean): void {
  if (c[key] === undefined) return;
  const list = Array.isArray(c[key]) ? (c[key] as unknown[]) : [];
  const kept = list.filter(isGood);
  if (!Array.isArray(c[key]) || kept.length !== list.length) notes.push(`${where}: ${key} had malformed entries, dropped`);
  if (kept.length > 0) c[key] = kept;
  else delete c[key];
}

// Open review requests: a malformed entry is dropped with a note (the request
// is then simply no longer tracked; its messages are untouched).
function checkOpenRequests(c: Obj, where: string, notes: string[]): void {
  if (c.open_requests === undefined) return;
  if (!Array.isArray(c.open_requests)) {
    notes.push(`${where}: open_requests dropped (not an array)`);
    delete c.open_requests;
    return;
  }
  const isIds = (v: unknown): boolean => isStringArray(v);
  const kept = c.open_requests.filter((r: unknown): boolean => isObj(r) && typeof r.request_id === 'string' && typeof r.thread_id === 'string'
    && typeof r.from === 'string' && typeof r.from_role === 'string' && isIds(r.to) && isIds(r.reminded) && isFiniteNumber(r.at));
  if (kept.length !== c.open_requests.length) notes.push(`${where}: dropped ${c.open_requests.length - kept.length} malformed open request(s)`);
  if (kept.length > 0) c.open_requests = kept;
  else delete c.open_requests;
}

/** Validates and completes one envelope stored under `key`. */
export function checkEnvelope(key: string, raw: unknown, notes: string[]): Envelope {
  const where = `message "${key}"`;
  if (!isObj(raw)) rejectShape(`${where} is not an object`);
  const e = raw;
  if (e.message_id !== key) rejectShape(`${where} is stored under a different message_id`);
  for (const field of ['channel_id', 'sender_session_id', 'sender_role', 'recipient_session_id', 'recipient_role', 'content', 'correlation_id']) {
    requireType(typeof e[field] === 'string', where, field, 'a string');
  }
  if (e.recipient_session_id === '__proto__') rejectShape(`${where} has a forbidden recipient`);
  requireType(isFiniteNumber(e.timestamp), where, 'timestamp', 'a number');
  requireType(MESSAGE_TYPES.includes(e.message_type as MessageType), where, 'message_type', `one of ${MESSAGE_TYPES.join(', ')}`);
  requireType(DELIVERY_STATUSES.includes(e.delivery_status as DeliveryStatus), where, 'delivery_status', `one of ${DELIVERY_STATUSES.join(', ')}`);
  stringOrNull(e, 'reply_to', where, notes);
  stringOrNull(e, 'root_message_id', where, notes);
  fill(e, 'hop_count', 0, where, notes);
  requireType(Number.isInteger(e.hop_count) && (e.hop_count as number) >= 0, where, 'hop_count', 'a non-negative integer');
  numberOrNull(e, 'delivered_at', where, notes);
  fill(e, 'attempts', 0, where, notes);
  requireType(Number.isInteger(e.attempts) && (e.attempts as number) >= 0, where, 'attempts', 'a non-negative integer');
  fill(e, 'delivery_method', null, where, notes);
  requireType(e.delivery_method === null || DELIVERY_METHODS.includes(e.delivery_method as DeliveryMethod), where, 'delivery_method', 'a delivery method or null');
  // Our addition, read by nothing that decides: a value a newer version may add is dropped, not refused.
  if (e.delivered_via !== undefined && !DELIVERY_PATHS.includes(e.delivered_via as DeliveryPath)) {
    delete e.delivered_via;
    notes.push(`${where}: delivered_via dropped (not a known delivery path)`);
  }
  if ((e.rung_via !== undefined && !HOST_DOORS.includes(e.rung_via as string)) || (e.rung_at !== undefined && !isFiniteNumber(e.rung_at))) {
    delete e.rung_via;
    delete e.rung_at;
    notes.push(`${where}: rung_via/rung_at dropped (not a known door and a time)`);
  }
  if (e.delivery_owner !== undefined && e.delivery_owner !== null) {
    const o = e.delivery_owner;
    requireType(isObj(o) && isFiniteNumber(o.pid) && typeof o.host === 'string' && isFiniteNumber(o.lease_until), where, 'delivery_owner', '{pid, host, lease_until}');
  }
  if (e.thread_id !== undefined && typeof e.thread_id !== 'string') {
    delete e.thread_id;
    notes.push(`${where}: thread_id dropped (not a string)`);
  }
  // The next seq is one more than the highest, so each must stay an exact
  // integer; one that is not is dropped (the envelope then orders by time).
  if (e.seq !== undefined && !(Number.isSafeInteger(e.seq) && (e.seq as number) >= 0 && (e.seq as number) < Number.MAX_SAFE_INTEGER)) {
    delete e.seq;
    notes.push(`${where}: seq dropped (not a non-negative safe integer)`);
  }
  return e as unknown as Envelope;
}

/**
 * Validates one history record (an archived message or a line of a history
 * log): a complete envelope, plus who received it. `delivered_to` is optional
 * (absent or malformed means nobody); non-string entries are dropped.
 */
export function checkHistoryRecord(raw: unknown, where: string, notes: string[]): HistoryRecord {
  const record = isObj(raw) ? raw : {};
  if (typeof record.message_id !== 'string') rejectShape(`${where}: message_id must be a string`);
  const envelope = checkEnvelope(record.message_id, raw, notes);
  const deliveredTo = Array.isArray(record.delivered_to) ? record.delivered_to.filter((x): x is string => typeof x === 'string') : [];
  return { ...envelope, delivered_to: deliveredTo };
}

/** A checked history record, or undefined when the value is not one. */
export function parseHistoryRecord(value: unknown): HistoryRecord | undefined {
  try {
    return checkHistoryRecord(value, 'history record', []);
  } catch (err) {
    if (err instanceof ShapeError) return undefined;
    throw err;
  }
}
