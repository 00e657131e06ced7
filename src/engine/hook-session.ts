// Which member a hook's session is, judged from the state alone. A hook
// names its session by what its host event says (the refs its server links
// it under, the host's session id, the hosts it may come from); those are
// worked out from the event and the process before a change, and a change
// applied by whichever process holds the lock finds the member from them.
import { findLinkedMember, type SessionRef } from './session-links';
import { resolveMemberByHostSession } from './identity';
import { hasSessionEnded, membershipsOfMember } from './presence';
import type { SpeakerLease, State } from './types';
import { bindHostSession } from './identity';
import { isSpokenFor } from './speaker-leases';
import { isText, isTextList } from './changes/args';

/** A hook's session as its event names it (plain JSON: it travels in a change's arguments). */
export interface HookSession {
  /** The refs its session's server links it under (session-links). */
  refs: SessionRef[];
  /** The host's session id, or null when the event carries none. */
  session_id: string | null;
  /** The event's candidate hosts, most likely first. */
  hosts: string[];
  /** Those hosts and, for an event that could be either of two hosts, the other one too. */
  lookup_hosts: string[];
}


/** Whether `value` is a session ref (sid or proc, host, id): arguments may come from a file another process wrote. */
export function isSessionRef(value: unknown): value is SessionRef {
  const ref = value as Partial<SessionRef> | null;
  return typeof ref === 'object' && ref !== null && (ref.kind === 'sid' || ref.kind === 'proc') && isText(ref.host) && isText(ref.id);
}

/** Whether `value` is a HookSession (arguments may come from a file another process wrote). */
export function isHookSession(value: unknown): value is HookSession {
  const s = value as Partial<HookSession> | null;
  return typeof s === 'object' && s !== null && Array.isArray(s.refs) && s.refs.every(isSessionRef)
    && (s.session_id === null || isText(s.session_id)) && isTextList(s.hosts) && isTextList(s.lookup_hosts);
}

/** The members bound to this host session on any of `hosts` (a binding from a tool argument never counts). */
function boundOn(state: State, hosts: readonly string[], sessionId: string): Set<string> {
  const ids = new Set<string>();
  for (const host of hosts) {
    const id = resolveMemberByHostSession(state, host, sessionId);
    if (id !== null) ids.add(id);
  }
  return ids;
}

/**
 * The member of a hook's session: the one its session is linked to, else the
 * one member a host bound to this host session id on the event's hosts (or,
 * when none is there, on any host the event may come from: an uncertain
 * SessionStart may have bound it under the other one); undefined when none
 * or several are.
 */
export function memberOfSession(state: State, session: HookSession): string | undefined {
  const linked = findLinkedMember(state, session.refs);
  if (linked !== undefined || session.session_id === null) return linked;
  let found = boundOn(state, session.hosts, session.session_id);
  if (found.size === 0) found = boundOn(state, session.lookup_hosts, session.session_id);
  return found.size === 1 ? [...found][0] : undefined;
}

/**
 * Whether the session a hook speaks for is over for `memberId`: the member is
 * in no channel, its session ended (SessionEnd), or, for a member found by
 * its session (`session` given; null for one named by OPENCOMMS_MEMBER_ID),
 * that session is now another member's.
 */
export function hasHookSessionEnded(state: State, memberId: string, session: HookSession | null): boolean {
  if (membershipsOfMember(state, memberId).length === 0 || hasSessionEnded(state, memberId)) return true;
  return session !== null && memberOfSession(state, session) !== memberId;
}

/**
 * Whether `memberId` is bound, on one of `hosts`, to a host session other
 * than `sessionId`: a newer session of the same member took over, and the
 * older one ending must not mark it stale.
 */
export function isBoundElsewhere(state: State, memberId: string, hosts: readonly string[], sessionId: string | null): boolean {
  const bound = membershipsOfMember(state, memberId)
    .filter((m) => hosts.includes(m.host) && typeof m.host_session_id === 'string' && m.host_session_id !== '')
    .map((m) => m.host_session_id);
  return sessionId !== null && bound.length > 0 && !bound.includes(sessionId);
}

/** Whether `memberId` is reached by spawn-resume, which resumes ended sessions: their end must not shut its door. */
export function isResumable(state: State, memberId: string): boolean {
  return membershipsOfMember(state, memberId).some((m) => m.delivery_mode === 'spawn_push');
}

/** The hosts of `memberId`'s memberships. */
export function membershipHostsOf(state: State, memberId: string): string[] {
  return [...new Set(membershipsOfMember(state, memberId).map((m) => m.host))];
}

/**
 * The refs a hook links `memberId` under: those of its session already linked
 * to it, else the one on a host the member has memberships on (the session is
 * that host's), else the most likely. Never every candidate host at once, so
 * an uncertain event does not claim the same id on the other host.
 */
export function linkRefsFor(state: State, refs: readonly SessionRef[], memberId: string): SessionRef[] {
  const linked = refs.filter((ref) => findLinkedMember(state, [ref]) === memberId);
  if (linked.length > 0) return linked;
  const hosts = new Set(membershipHostsOf(state, memberId));
  const onHost = refs.find((ref) => hosts.has(ref.host));
  return onHost ? [onHost] : refs.slice(0, 1);
}

/**
 * The host labels of the member's memberships a session should be bound on:
 * those among the event's candidate hosts, or, when the member has none
 * there (say it joined through a server started with another --host), all
 * of them, since OPENCOMMS_MEMBER_ID already says who this session is.
 */
export function bindHostsFor(state: State, memberId: string, eventHosts: readonly string[]): string[] {
  const hosts = membershipHostsOf(state, memberId);
  const matching = hosts.filter((h) => eventHosts.includes(h));
  return matching.length > 0 ? matching : hosts;
}

/** Binds (or rebinds) the env member's memberships to this session. Returns how many changed. */
export function bindEnvMember(state: State, memberId: string, session: HookSession): number {
  if (session.session_id === null) return 0;
  let changed = 0;
  for (const host of bindHostsFor(state, memberId, session.hosts)) changed += bindHostSession(state, memberId, host, session.session_id);
  return changed;
}

/** A pin as a hook reads it from pins/: the member and the host it is pinned on. */
export interface PinRef {
  member_id: string;
  host: string;
}

/**
 * Pins a new session may take: of a candidate host, naming a channel member
 * on that host whose memberships there are all free (never bound, or
 * stale because their session ended), and that no live process speaks as
 * through OPENCOMMS_MEMBER_ID (`isSpeakerAlive`).
 */
export function bindablePinsFor<P extends PinRef>(state: State, pins: readonly P[], hosts: readonly string[], isSpeakerAlive: (lease: SpeakerLease) => boolean): P[] {
  return pins.filter((pin) => {
    if (!hosts.includes(pin.host) || isSpokenFor(state, pin.member_id, isSpeakerAlive)) return false;
    const memberships = membershipsOfMember(state, pin.member_id).filter((m) => m.host === pin.host);
    return memberships.length > 0 && memberships.every((m) => m.host_session_id === null || m.stale);
  });
}
