// Which member a hook speaks for. Hosts know only their own session id, so
// the member comes from OPENCOMMS_MEMBER_ID, or from the member bound to
// this host session; SessionStart is where a session gets bound, and only
// when exactly one pin can be meant.
import { isBelievableTime, memberOfSession, SPEAKER_LEASE_MS, type HookSession, type SessionRef, type SpeakerLease, type State } from '../engine';
import { bindablePinsFor, bindHostsFor, linkRefsFor } from '../engine/hook-session';
import { isLeaseAlive } from '../process/liveness';
import { hostProcessId } from '../tools/host-process';
import type { PinRecord } from '../local/pins';
import { identityFromEnv } from '../tools/env-identity';
import { HOST_CLAUDE_CODE, HOST_CODEX, HOST_GEMINI, type HookEvent } from './events';

/** The hosts a SessionStart without a clear marker could come from. */
const UNCERTAIN_HOSTS: readonly string[] = [HOST_CLAUDE_CODE, HOST_CODEX];

export type EnvMember =
  | { kind: 'none' }
  | { kind: 'id'; memberId: string }
  | { kind: 'invalid'; problem: string };

/** OPENCOMMS_MEMBER_ID, checked as the server checks it; a placeholder or junk value is refused, never guessed around. */
export function memberFromEnv(env: NodeJS.ProcessEnv): EnvMember {
  const identity = identityFromEnv(env.OPENCOMMS_MEMBER_ID);
  if (identity === undefined) return { kind: 'none' };
  if (identity.kind === 'pinned') return { kind: 'id', memberId: identity.memberId };
  return { kind: 'invalid', problem: `hook: no mail was delivered. ${identity.problem}` };
}

let hostProcess: { id: string | undefined } | undefined;

/**
 * The hosts whose sessions this event may belong to, most likely first: its
 * candidate hosts and, when it is not forced and could be either of Claude
 * Code and Codex (Codex's SessionStart carries no turn_id), both of them, so
 * a session linked or bound at an uncertain SessionStart is still found at
 * its later, host-certain events. Session ids are exact matches, never guesses.
 */
function lookupHostsOf(event: HookEvent): string[] {
  const hosts = [...event.hosts];
  if (!event.isHostForced && event.hosts.every((h) => UNCERTAIN_HOSTS.includes(h))) {
    for (const host of UNCERTAIN_HOSTS) if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

/**
 * The host sessions this hook run may belong to, as its session's server
 * links them (keyed by host and id, one ref per host it may come from): the
 * host's session id, except on Gemini CLI, whose servers are told no session
 * id and go by their host process, so its hooks do the same.
 */
export function sessionRefsOf(event: HookEvent): SessionRef[] {
  const host = event.hosts[0] ?? HOST_CLAUDE_CODE;
  if (event.hosts.length === 1 && host === HOST_GEMINI) {
    hostProcess ??= { id: hostProcessId() };
    return hostProcess.id === undefined ? [] : [{ kind: 'proc', host, id: hostProcess.id }];
  }
  const sessionId = event.sessionId;
  return sessionId === undefined ? [] : lookupHostsOf(event).map((h) => ({ kind: 'sid', host: h, id: sessionId }));
}

/**
 * The refs a hook links `memberId` under: those of this event already linked
 * to it, else the one on a host the member has memberships on (the session is
 * that host's), else the most likely. Never every candidate host at once, so
 * an uncertain event does not claim the same id on the other host.
 */
export function linkRefsOf(state: State, event: HookEvent, memberId: string): SessionRef[] {
  return linkRefsFor(state, sessionRefsOf(event), memberId);
}

/** This hook's session as the engine finds its member (engine/hook-session): worked out once, before any change. */
export function hookSessionOf(event: HookEvent): HookSession {
  return { refs: sessionRefsOf(event), session_id: event.sessionId ?? null, hosts: [...event.hosts], lookup_hosts: lookupHostsOf(event) };
}

/**
 * The member of this hook's session: the one its session is linked to
 * (session-links), else, for a project set up before one member per session,
 * the member whose membership a host bound to this host session id (a
 * binding that came from a tool argument never counts: see
 * resolveMemberByHostSession).
 */
export function memberBySession(state: State, event: HookEvent): string | undefined {
  return memberOfSession(state, hookSessionOf(event));
}

/** Whether SessionStart must (re)bind the env member to this session: some membership points elsewhere. */
export function isEnvBindingStale(state: State, memberId: string, event: HookEvent): boolean {
  if (!event.isSessionStart || event.sessionId === undefined) return false;
  const hosts = bindHostsFor(state, memberId, event.hosts);
  return Object.values(state.channels).some((channel) => channel.members.some((m) => m.session_id === memberId
    && hosts.includes(m.host) && m.host_session_id !== event.sessionId));
}

/** A speaker lease holds while its process runs on this machine; from elsewhere, until its `until` (one beyond a lease's lifetime is over). */
function isSpeakerLeaseLive(lease: SpeakerLease): boolean {
  const now = Date.now();
  return isLeaseAlive(lease, now) && isBelievableTime(lease.until, now, SPEAKER_LEASE_MS);
}

/**
 * Pins a new session may take: of a candidate host, naming a channel member
 * on that host whose memberships there are all free (never bound, or
 * stale because their session ended), and that no live process speaks as
 * through OPENCOMMS_MEMBER_ID.
 */
export function bindablePins(state: State, pins: readonly PinRecord[], event: HookEvent): PinRecord[] {
  return bindablePinsFor(state, pins, event.hosts, isSpeakerLeaseLive);
}

/** The systemMessage when several pins could be meant: list them and say how to choose. */
export function choosePinMessage(pins: readonly PinRecord[]): string {
  const listed = pins.map((p) => `${p.member_id} (${p.host})`).join(', ');
  return `OpenComms: this session is not linked to a member, and ${pins.length} pinned members could be meant: ${listed}.`
    + ' Set OPENCOMMS_MEMBER_ID to the one this session should be and start the session again; no member was chosen.';
}

