// The tool server's upkeep, changes of no one member: its process on the
// presence records of the members it speaks for, the link from its host
// session to a member, and its speaker lease (engine/speaker-leases.ts).
import type { HostDoor, PresenceKind, ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { bindHostSession } from '../identity';
import { leavePresence, recordPresence, type PresenceClaim } from '../presence';
import { findLinkedMember, linkSession, needsLink, type LinkOutcome, type SessionRef } from '../session-links';
import { claimSpeaker, isSpokenFor, SPEAKER_LEASE_MS, speakerJudge } from '../speaker-leases';
import { fitsShape } from './member-change';
import { isText, isTextList, malformed, type Answer } from './args';
import { isSessionRef } from '../hook-session';

const CLAIM_KINDS: readonly PresenceKind[] = ['server', 'waiter', 'plugin'];
const CLAIM_DOORS: readonly HostDoor[] = ['inbox', 'codex_queue'];

function isClaim(value: unknown): value is PresenceClaim {
  if (!fitsShape(value, { pid: 'number', machine: 'text', start: 'number?' })) return false;
  const claim = value as PresenceClaim;
  return CLAIM_KINDS.includes(claim.kind) && (claim.door === undefined || CLAIM_DOORS.includes(claim.door));
}

/** This process (`claim`) on the presence record of each of `ids`, renewed when `renew_ms` old. */
export interface PresenceRecordArgs {
  ids: string[];
  claim: PresenceClaim;
  renew_ms: number;
}

// Refused (nothing saved) when every record was already fresh.
const presence_record: ChangeFn<PresenceRecordArgs> = (state, a, ctx): ToolResult => {
  if (!fitsShape(a, { ids: 'texts', renew_ms: 'number' }) || !isClaim(a.claim)) return malformed('presence');
  let changed = false;
  for (const id of a.ids) changed = recordPresence(state, id, a.claim, ctx.now(), a.renew_ms) || changed;
  return { ok: changed, message: changed ? 'present' : 'already present' };
};

/** This process (`claim`) taken off the presence record of each of `ids`: it ends. */
const presence_leave: ChangeFn<{ ids: string[]; claim: PresenceClaim }> = (state, a, ctx): ToolResult => {
  if (!fitsShape(a, { ids: 'texts' }) || !isClaim(a.claim)) return malformed('presence');
  let changed = false;
  for (const id of a.ids) changed = leavePresence(state, id, a.claim, ctx.now()) || changed;
  return { ok: changed, message: 'left' };
};

/** A server's host session (`refs`, most specific first) linked to a member; `pins` may be adopted, `host_session` is bound. */
export interface HostSessionLinkArgs {
  refs: SessionRef[];
  /** The member ids of this host's pins: one no live process speaks as may be adopted. */
  pins: string[];
  host: string;
  host_session?: string | null;
}

/** What `host_session_link` answers: the member (absent when none could be linked), and how it was found when the link was new. */
export type HostSessionLinked = Answer<{ member_id?: string; how?: LinkOutcome['how'] }>;

const host_session_link: ChangeFn<HostSessionLinkArgs, HostSessionLinked> = (state, a, ctx) => {
  if (!fitsShape(a, { host: 'text', host_session: 'text?' }) || !Array.isArray(a.refs) || !a.refs.every(isSessionRef) || !isTextList(a.pins)) {
    return malformed('session link');
  }
  if (!needsLink(state, a.refs, ctx.now())) {
    const member = findLinkedMember(state, a.refs);
    // Nothing to save: the member is the one already linked.
    return { ok: false, message: 'already linked', data: member === undefined ? {} : { member_id: member } };
  }
  // A pin another live process speaks as (OPENCOMMS_MEMBER_ID) is claimed, like one a session took.
  const isAlive = speakerJudge(ctx.now(), ctx.isProcessAlive);
  const adoptable = a.pins.filter((id) => !isSpokenFor(state, id, isAlive));
  const outcome = linkSession(state, a.refs, adoptable, ctx);
  if (outcome !== undefined && isText(a.host_session)) bindHostSession(state, outcome.memberId, a.host, a.host_session);
  return { ok: true, message: 'linked', data: outcome === undefined ? {} : { member_id: outcome.memberId, how: outcome.how } };
};

/** This process (pid, host) as the speaker of `member_id`; `token` is its lease's, null on its first claim (one is made). */
export interface SpeakerClaimArgs {
  member_id: string;
  pid: number;
  host: string;
  token: string | null;
}

// Refused (nothing saved) when the lease on record needs no renewal; the token is answered either way.
const speaker_claim: ChangeFn<SpeakerClaimArgs, Answer<{ token: string }>> = (state, a, ctx) => {
  if (!fitsShape(a, { member_id: 'text', pid: 'number', host: 'text', token: 'text?' })) return malformed('speaker');
  const token = a.token ?? ctx.nonce();
  const now = ctx.now();
  const lease = { pid: a.pid, host: a.host, token, until: now + SPEAKER_LEASE_MS };
  return claimSpeaker(state, a.member_id, lease, speakerJudge(now, ctx.isProcessAlive))
    ? { ok: true, message: 'speaker recorded', data: { token } }
    : { ok: false, message: 'speaker already recorded', data: { token } };
};

export const upkeepToolChanges = { presence_record, presence_leave, host_session_link, speaker_claim };
