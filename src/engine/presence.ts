// Presence (our addition): a member is present while a process of its host
// session runs (its MCP server, a `hook --wait` waiter, the OpenCode plugin),
// on every host, whether or not the host says when a session ends. Each such
// process is recorded under the member in state.presence. On its own machine
// a process is judged by its pid (and start time), so a dead server is away
// at the next look; from another machine, where a pid means nothing, by the
// `until` it renews. `presenceOf` is the one judgement: the hooks, status,
// watch, the reservations command and the tools all ask it.
import { isBelievableTime } from './times';
import { ownValue } from './validate';
import type { HostDoor, Member, Presence, PresenceKind, PresenceProcess, ProcessCheck, State } from './types';

/** Seen from another machine, a process is there for this long after its last renewal. */
export const PRESENCE_LEASE_MS = 30_000;
/** How often a process renews its record where other machines may look (a networked store). */
export const PRESENCE_RENEW_MS = 10_000;
/** How often it renews where only its own machine looks (the file store): only the away time of a crash depends on it. */
export const LOCAL_PRESENCE_RENEW_MS = 60_000;
/**
 * No process is recorded for longer than this (three renewals, each due at
 * most every five minutes): an `until` ending later than this from now (and
 * the clock slack) was written by a clock far ahead or by hand, and is over.
 */
export const MAX_PRESENCE_LEASE_MS = 15 * 60_000;
/** A member in no channel that has been away this long is forgotten: its record and its session links go. */
export const UNCHANNELLED_AWAY_MS = 24 * 3600_000;

/** A check for callers that can tell no process (every process is judged by its `until`). */
export const JUDGE_BY_LEASE: ProcessCheck = () => undefined;

/** What the one judgement says about a member at a moment. */
export interface PresenceJudgement {
  present: boolean;
  /** When it went away (epoch ms); null while present, or when nobody knows. */
  away_since: number | null;
}

/** Whether `proc` runs at `now`: asked on its own machine; from elsewhere, until its lease ends (one ending beyond MAX_PRESENCE_LEASE_MS is over). */
export function isProcessLive(proc: PresenceProcess, now: number, isAlive: ProcessCheck): boolean {
  const local = isAlive(proc);
  return local === undefined ? now <= proc.until && isBelievableTime(proc.until, now, MAX_PRESENCE_LEASE_MS) : local;
}

// A process speaks for its member while it runs, unless the host said the session ended after it last spoke.
function isSpeaking(record: Presence, p: PresenceProcess, now: number, isAlive: ProcessCheck): boolean {
  return (record.ended_at === undefined || p.renewed_at > record.ended_at) && isProcessLive(p, now, isAlive);
}

function presenceRecord(state: State, memberId: string): Presence | undefined {
  return state.presence ? ownValue(state.presence, memberId) : undefined;
}

/** The member's memberships, one per channel it is in; empty when it is in none (never joined, or removed). */
export function membershipsOfMember(state: State, memberId: string): Member[] {
  const found: Member[] = [];
  for (const channel of Object.values(state.channels)) {
    for (const m of channel.members) if (m.session_id === memberId) found.push(m);
  }
  return found;
}

/**
 * The one presence judgement. A member with a presence record is present
 * while one of its processes runs, and away since the last of them was last
 * seen. A member without one (a person, or a session of an older version)
 * keeps the older rule: present unless its session-end mark says otherwise;
 * outside every channel, away since its session was last seen.
 */
export function presenceOf(state: State, memberId: string, now: number, isAlive: ProcessCheck): PresenceJudgement {
  const record = presenceRecord(state, memberId);
  if (record) {
    if (record.processes.some((p) => isSpeaking(record, p, now, isAlive))) return { present: true, away_since: null };
    let since = record.ended_at ?? record.left_at;
    if (record.left_at !== null && since !== null) since = Math.max(since, record.left_at);
    for (const p of record.processes) since = since === null ? p.renewed_at : Math.max(since, p.renewed_at);
    return { present: false, away_since: since };
  }
  const memberships = membershipsOfMember(state, memberId);
  if (memberships.length > 0) {
    if (memberships.some((m) => !m.stale)) return { present: true, away_since: null };
    const times = memberships.map((m) => m.stale_at).filter((t): t is number => t !== null);
    return { present: false, away_since: times.length > 0 ? Math.max(...times) : null };
  }
  let seen: number | null = null;
  for (const link of Object.values(state.session_links ?? {})) {
    if (link.member_id === memberId) seen = seen === null ? link.last_seen : Math.max(seen, link.last_seen);
  }
  return { present: false, away_since: seen };
}

/**
 * Whether the host said `memberId`'s session ended (SessionEnd, session.deleted)
 * and nothing spoke for it since: for a member with a presence record, its end
 * mark; for one without, an away mark in every channel. Being away because
 * no process runs is not an end: a waiter that starts is the session, back.
 */
export function hasSessionEnded(state: State, memberId: string): boolean {
  const record = presenceRecord(state, memberId);
  if (record) return record.ended_at !== undefined;
  const memberships = membershipsOfMember(state, memberId);
  return memberships.length > 0 && memberships.every((m) => m.stale);
}

/**
 * Whether `memberId`'s presence record names this very process (pid,
 * machine tag and start time): a member the process speaks for, as its own
 * calls recorded it.
 */
export function isRecordedProcessOf(state: State, memberId: string, proc: { pid: number; machine: string; start: number | null }): boolean {
  return presenceRecord(state, memberId)?.processes.some((p) => p.pid === proc.pid && p.machine === proc.machine && p.start === proc.start) ?? false;
}

/** Whether `memberId` is present at `now` (presenceOf). */
export function isPresent(state: State, memberId: string, now: number, isAlive: ProcessCheck): boolean {
  return presenceOf(state, memberId, now, isAlive).present;
}

/** The process a caller describes, to be recorded or renewed. */
export interface PresenceClaim {
  pid: number;
  machine: string;
  start: number | null;
  kind: PresenceKind;
  /** The host door the process rings while its session is idle, if any (recorded, never part of its identity). */
  door?: HostDoor;
}

function isSameProcess(p: PresenceProcess, claim: PresenceClaim): boolean {
  return p.pid === claim.pid && p.machine === claim.machine && p.start === claim.start && p.kind === claim.kind;
}

/**
 * Records `claim` as a process of `memberId` at `now`, or renews it when its
 * last renewal is `renewMs` old (or from the future). Returns whether the state
 * changed, so a caller saves only then. Seen from elsewhere it holds for three
 * renewals, never less than PRESENCE_LEASE_MS nor more than MAX_PRESENCE_LEASE_MS.
 */
export function recordPresence(state: State, memberId: string, claim: PresenceClaim, now: number, renewMs: number): boolean {
  const presence = (state.presence ??= {});
  const record = ownValue(presence, memberId) ?? { processes: [], left_at: null };
  presence[memberId] = record;
  const until = now + Math.min(MAX_PRESENCE_LEASE_MS, Math.max(PRESENCE_LEASE_MS, 3 * renewMs));
  const held = record.processes.find((p) => isSameProcess(p, claim));
  if (held && now - held.renewed_at < renewMs && now >= held.renewed_at && held.door === claim.door) return false;
  // A process of a session the host ended does not bring it back by renewing; a new process does.
  if (held && record.ended_at !== undefined && held.renewed_at <= record.ended_at) return false;
  if (held) {
    held.renewed_at = now;
    held.until = until;
    if (claim.door === undefined) delete held.door;
    else held.door = claim.door;
  } else {
    record.processes.push({ ...claim, renewed_at: now, until });
  }
  record.left_at = null;
  delete record.ended_at;
  return true;
}

/** Takes a process that is ending off `memberId`'s record; its member is away from `now` if it was the last. */
export function leavePresence(state: State, memberId: string, claim: PresenceClaim, now: number): boolean {
  const record = presenceRecord(state, memberId);
  if (!record) return false;
  const kept = record.processes.filter((p) => !isSameProcess(p, claim));
  if (kept.length === record.processes.length) return false;
  record.processes = kept;
  if (kept.length === 0) record.left_at = Math.max(record.left_at ?? now, now);
  return true;
}

/**
 * The upkeep run before every change: processes that no longer run leave
 * their records (the time they were last seen kept as `left_at`); every
 * membership's away mark is set from the judgement, so the marks the rest of
 * the engine reads (retention, delivery) agree with it; a member in no channel
 * away for UNCHANNELLED_AWAY_MS is forgotten with its session links.
 */
export function tidyPresence(state: State, now: number, isAlive: ProcessCheck): void {
  for (const [memberId, record] of Object.entries(state.presence ?? {})) {
    const live = record.processes.filter((p) => isSpeaking(record, p, now, isAlive));
    if (live.length === record.processes.length) continue;
    if (live.length === 0) record.left_at = presenceOf(state, memberId, now, isAlive).away_since;
    record.processes = live;
  }
  for (const channel of Object.values(state.channels)) {
    for (const member of channel.members) {
      if (!presenceRecord(state, member.session_id)) continue;
      const judged = presenceOf(state, member.session_id, now, isAlive);
      if (judged.present && member.stale) {
        member.stale = false;
        member.stale_at = null;
      } else if (!judged.present && !member.stale) {
        member.stale = true;
        member.stale_at = judged.away_since;
      }
    }
  }
  forgetAwayStrangers(state, now, isAlive);
}

/** Forgets members in no channel that have been away for UNCHANNELLED_AWAY_MS; returns their ids. */
export function forgetAwayStrangers(state: State, now: number, isAlive: ProcessCheck): string[] {
  const inChannels = new Set<string>();
  for (const channel of Object.values(state.channels)) for (const m of channel.members) inChannels.add(m.session_id);
  const known = new Set([...Object.keys(state.presence ?? {}), ...Object.values(state.session_links ?? {}).map((l) => l.member_id)]);
  const forgotten: string[] = [];
  for (const memberId of known) {
    if (inChannels.has(memberId)) continue;
    const judged = presenceOf(state, memberId, now, isAlive);
    if (judged.present || judged.away_since === null || now - judged.away_since <= UNCHANNELLED_AWAY_MS) continue;
    forgotten.push(memberId);
  }
  if (forgotten.length === 0) return forgotten;
  const gone = new Set(forgotten);
  for (const [key, link] of Object.entries(state.session_links ?? {})) if (gone.has(link.member_id)) delete state.session_links![key];
  for (const memberId of forgotten) if (state.presence) delete state.presence[memberId];
  if (state.session_links && Object.keys(state.session_links).length === 0) delete state.session_links;
  if (state.presence && Object.keys(state.presence).length === 0) delete state.presence;
  return forgotten;
}

/**
 * The channels as the judgement sees them at `now`, for views that read
 * members' away marks: copies whose marks are set from presenceOf. The state
 * itself is not changed.
 */
export function judgedChannels(state: State, now: number, isAlive: ProcessCheck): State['channels'] {
  const out: State['channels'] = {};
  for (const [name, channel] of Object.entries(state.channels)) {
    out[name] = {
      ...channel,
      members: channel.members.map((m) => {
        const judged = presenceOf(state, m.session_id, now, isAlive);
        return { ...m, stale: !judged.present, stale_at: judged.present ? null : judged.away_since };
      }),
    };
  }
  return out;
}
