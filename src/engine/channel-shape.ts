// Field-by-field validation and backfill of one channel read from disk. The
// numeric safeguards are always restored, because a missing hop cap or rate
// limit silently disables them; lists only notices depend on are dropped
// entry by entry rather than refused.
import { isReservationLogEntry } from './reservation-log';
import {
  CHANNEL_ID_PATTERN, DEFAULT_DELIVERY_COOLDOWN_MS, DEFAULT_MAX_HOPS, DEFAULT_MAX_MEMBERS,
  DEFAULT_RATE_LIMIT, DEFAULT_STALE_EVENT_MS, DEFAULT_AWAY_RETENTION_MS, MIN_AWAY_RETENTION_MS, MAX_AWAY_RETENTION_MS, MAX_MAX_HOPS, MAX_MEMBERS_CEILING, MAX_RATE_LIMIT,
  MIN_MAX_HOPS, MIN_MEMBERS, MIN_RATE_LIMIT,
} from './constants';
import { checkLoopGuard } from './loop-guard';
import { checkMember } from './member-shape';
import { buildSeenRecords, isSeenRecords, isSeenTime, seenEntries, splitSeenKey } from './seen-recent';
import {
  checkKeys, fill, isFiniteNumber, isObj, isStringArray, numberOrNull, numberRecord, rejectShape, requireType, safeguard, softArray, stringOrNull, type Obj,
} from './shape-checks';
import { emptyTimer } from './timer-clock';
import { ownValue } from './validate';
import type { Channel, ChannelTimer, Member } from './types';

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
  softArray(c, 'reservation_log', where, notes, isReservationLogEntry);
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
