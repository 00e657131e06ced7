// Who a caller is: the pin check on protected calls, staleness, and the
// lookups hooks use to map a host session to a member.
import { stopClock } from './timer-clock';
import { refuse, succeed } from './reasons';
import { findChannel, ownValue } from './validate';
import type { State, ToolResult } from './types';

/**
 * The check every protected call makes: the caller's member must be a
 * member of the named channel, or of some channel when none is named. A missing pin is `unpinned`, a named channel that does not exist
 * is `channel_not_found`; anything else is `not_member`.
 */
export function authorizeMember(state: State, memberId: string | null, channel?: string | null): ToolResult {
  if (memberId === null || memberId.trim() === '') {
    return refuse('unpinned', 'This server has no pinned member identity; set OPENCOMMS_MEMBER_ID or pin one with `opencomms pin`.');
  }
  const isNamed = typeof channel === 'string' && channel.trim() !== '';
  const named = isNamed ? findChannel(state, channel) : undefined;
  if (isNamed && !named) {
    return refuse('channel_not_found', `Channel "${channel.trim().toLowerCase()}" does not exist; opencomms_status lists your channels.`);
  }
  const channels = named ? [named] : Object.values(state.channels);
  // An away member (its session ended) is still a member: a call from it
  // means its session is back, and the next change clears the mark.
  const isMember = channels.some((c) => c.members.some((m) => m.session_id === memberId));
  if (!isMember) {
    return refuse('not_member', `Member ${memberId} is not a member of ${channel ? `channel "${channel.trim().toLowerCase()}"` : 'any channel'} (removed, disconnected, away for longer than the channel keeps absent members, or state reset). Join again with opencomms_join.`);
  }
  return succeed('authorized', { member_id: memberId });
}

/** Marks a member stale in every channel; a clock they hold stops. Returns how many memberships changed. */
export function markStale(state: State, memberId: string, now: number): number {
  let changed = 0;
  // The host said the session ended: its processes recorded until now no longer count (engine/presence).
  const record = state.presence ? ownValue(state.presence, memberId) : undefined;
  if (record) record.ended_at = now;
  for (const channel of Object.values(state.channels)) {
    for (const member of channel.members) {
      if (member.session_id !== memberId) continue;
      if (!member.stale) changed += 1;
      member.stale = true;
      member.stale_at = now;
      if (channel.timer.active_member_id === memberId) stopClock(channel.timer, now);
    }
  }
  return changed;
}

/** Clears a member's stale mark in every channel. Returns how many memberships changed. */
export function clearStale(state: State, memberId: string): number {
  let changed = 0;
  const record = state.presence ? ownValue(state.presence, memberId) : undefined;
  if (record) delete record.ended_at;
  for (const channel of Object.values(state.channels)) {
    for (const member of channel.members) {
      if (member.session_id !== memberId || !member.stale) continue;
      member.stale = false;
      member.stale_at = null;
      changed += 1;
    }
  }
  return changed;
}

/**
 * The member a host bound to a host session, or null when none or more than
 * one distinct member matches. A binding that came from a tool argument
 * (host_session_source `argument`) is never one: any caller may type any
 * session id there, and whom a hook speaks for must not follow it.
 */
export function resolveMemberByHostSession(state: State, host: string, hostSessionId: string): string | null {
  const found = new Set<string>();
  for (const channel of Object.values(state.channels)) {
    for (const member of channel.members) {
      if (member.host === host && member.host_session_id === hostSessionId && member.host_session_source !== 'argument') found.add(member.session_id);
    }
  }
  return found.size === 1 ? [...found][0]! : null;
}

/** One entry per channel the member is in: what to remind their session of. */
export function memberInfosFor(state: State, memberId: string): Array<{ role: string; prompt: string; channel_name: string }> {
  const out: Array<{ role: string; prompt: string; channel_name: string }> = [];
  for (const channel of Object.values(state.channels)) {
    const member = channel.members.find((m) => m.session_id === memberId);
    if (member) out.push({ role: member.role, prompt: member.role_prompt, channel_name: channel.name });
  }
  return out;
}

/**
 * Binds a member's memberships on one host to a host session id the host
 * itself named (hooks learn it late). Returns how many changed.
 */
export function bindHostSession(state: State, memberId: string, host: string, hostSessionId: string): number {
  let changed = 0;
  for (const channel of Object.values(state.channels)) {
    for (const member of channel.members) {
      if (member.session_id !== memberId || member.host !== host) continue;
      if (member.host_session_id === hostSessionId && member.host_session_source !== 'argument') continue;
      member.host_session_id = hostSessionId;
      member.host_session_source = 'host';
      changed += 1;
    }
  }
  return changed;
}
