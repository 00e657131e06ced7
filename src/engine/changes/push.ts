// The changes of the push room's callers: the OpenCode plugin's pushes, its
// session links, wakes and error notes (src/opencode), and the spawn driver's
// plan and finish (push-spawn.ts). A caller that judges holders' liveness
// itself judges them before the change and passes those gone (gone-holders.ts).
import type { DeliveryOwner, ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { commitDelivery, cooldownRemainingMs, drainQueue, pendingRecipients, requeueFailedDelivery, sweepInFlight } from '../delivery';
import { addError } from '../error-log';
import { judgeByGone, isHolderList, type HolderRef } from '../gone-holders';
import { bindHostSession, markStale } from '../identity';
import { isPushMember, oldPluginMember } from '../opencode-members';
import { frameForDelivery } from '../pull';
import { succeed } from '../reasons';
import { findLinkedMember, linkSession, type SessionRef } from '../session-links';
import { isOwner, isText, isTextList, malformed, type Answer } from './args';
import { spawnChanges } from './push-spawn';

/** Sweep abandoned deliveries, then hand the member's waiting mail to this process (pid, host) for a push. */
export interface PushDrainArgs {
  member: string;
  pid: number;
  host: string;
  lease_ms: number;
  gone: HolderRef[];
}

export type PushDrained = {
  /** False when the member is no push member: nothing was drained. */
  member: boolean;
  ids: string[];
  text: string;
  /** Milliseconds until a cooldown lets mail held back only by it go (0 when none). */
  wait: number;
  /** The owner record the drain wrote on the envelopes; absent when nothing was drained by a push member. */
  owner?: DeliveryOwner;
};

const push_drain: ChangeFn<PushDrainArgs, Answer<PushDrained>> = (state, a, ctx) => {
  if (!isText(a.member) || typeof a.pid !== 'number' || !isText(a.host) || typeof a.lease_ms !== 'number' || !isHolderList(a.gone)) return malformed('push drain');
  if (!isPushMember(state, a.member)) return { ok: true, message: 'not a push member', data: { member: false, ids: [], text: '', wait: 0 } };
  const now = ctx.now();
  // Only deliveries whose owner died or whose lease ran out come back; a live process's push in progress is left to finish.
  sweepInFlight(state, judgeByGone(a.gone), now);
  const owner: DeliveryOwner = { pid: a.pid, host: a.host, lease_until: now + a.lease_ms };
  const handed = drainQueue(state, a.member, { owner, now });
  const wait = handed.length === 0 && pendingRecipients(state).includes(a.member) ? cooldownRemainingMs(state, a.member, now) : 0;
  const text = handed.length > 0 ? frameForDelivery(state, handed, ctx) : '';
  return { ok: true, message: 'drained', data: { member: true, ids: handed.map((e) => e.message_id), text, wait, owner } };
};

/** The prompt that carried the mail returned: mail still held under `owner` is delivered. */
export interface PushCommitArgs {
  member: string;
  ids: string[];
  owner: DeliveryOwner;
}

const push_commit: ChangeFn<PushCommitArgs, Answer<{ ids: string[] }>> = (state, a, ctx) => {
  if (!isText(a.member) || !isTextList(a.ids) || !isOwner(a.owner)) return malformed('push commit');
  return { ok: true, message: 'committed', data: { ids: commitDelivery(state, a.member, a.ids, 'push', ctx.now(), a.owner) } };
};

/** The prompt failed: mail this push still holds goes back (or is dead-lettered), and the failure is logged for the member. */
export interface PushGiveBackArgs {
  member: string;
  ids: string[];
  owner: DeliveryOwner;
  /** The OpenCode session prompted, and what went wrong, for the error log. */
  session_id: string;
  detail: string;
}

const push_give_back: ChangeFn<PushGiveBackArgs, Answer<{ requeued: string[]; failed: string[] }>> = (state, a, ctx) => {
  if (!isText(a.member) || !isTextList(a.ids) || !isOwner(a.owner) || !isText(a.session_id) || !isText(a.detail)) return malformed('push give-back');
  // Only mail this push still holds: after a sweep and a takeover it is another delivery's.
  const outcome = requeueFailedDelivery(state, a.member, a.ids, a.owner);
  const dead = outcome.failed.length > 0 ? `; ${outcome.failed.length} dead-lettered after too many attempts` : '';
  addError(state, ctx.now(), `OpenCode push to session ${a.session_id} failed (${a.detail}); ${outcome.requeued.length} message(s) re-queued${dead}`, a.member);
  return { ok: true, message: 'requeued', data: { requeued: outcome.requeued, failed: outcome.failed } };
};

/** At the plugin's start: in-flight mail whose owner is gone or whose lease ended goes back. */
const push_sweep: ChangeFn<{ gone: HolderRef[] }, Answer<{ requeued: string[]; failed: string[]; rejected: string[] }>> = (state, a, ctx) => {
  if (!isHolderList(a.gone)) return malformed('start-up sweep');
  return { ok: true, message: 'swept', data: { ...sweepInFlight(state, judgeByGone(a.gone), ctx.now()) } };
};

/** OpenCode deleted the member's session: the member is away, and its mail waits. */
const push_session_gone: ChangeFn<{ member: string }, Answer<{ changed: number }>> = (state, a, ctx) => {
  if (!isText(a.member)) return malformed('session deletion');
  return { ok: true, message: 'marked', data: { changed: markStale(state, a.member, ctx.now()) } };
};

/** Links an OpenCode session (`ref`) to its member: found, an old plugin's member adopted, or (with may_mint) a fresh one minted. */
export interface PushLinkArgs {
  ref: SessionRef;
  /** The host label the member's memberships are bound to the session under. */
  host: string;
  may_mint: boolean;
}

const push_link_session: ChangeFn<PushLinkArgs, Answer<{ member_id?: string }>> = (state, a, ctx) => {
  const ref = a.ref as Partial<SessionRef> | null;
  if (typeof ref !== 'object' || ref === null || !isText(ref.id) || !isText(ref.host) || !isText(ref.kind) || !isText(a.host) || typeof a.may_mint !== 'boolean') {
    return malformed('session link');
  }
  const refs = [a.ref];
  const old = oldPluginMember(state, a.ref.id);
  // Nothing to save: a session that never used a tool gets no member by going idle.
  if (!a.may_mint && old === undefined && findLinkedMember(state, refs) === undefined) return { ok: false, message: 'not a member' };
  const memberId = linkSession(state, refs, old === undefined ? [] : [old], ctx)?.memberId;
  if (memberId !== undefined) bindHostSession(state, memberId, a.host, a.ref.id);
  return { ok: true, message: 'linked', data: memberId === undefined ? {} : { member_id: memberId } };
};

/** Takes the member's wake off the board; refused (nothing saved) when there is none to take. */
const push_take_wake: ChangeFn<{ member: string }> = (state, a): ToolResult => {
  if (!isText(a.member)) return malformed('wake');
  const wakes = state.board?.wakes;
  if (!wakes || !Object.prototype.hasOwnProperty.call(wakes, a.member)) return { ok: false, message: 'no wake' };
  delete wakes[a.member];
  return succeed('wake taken');
};

/** Records a problem in the error log, for the member when one is named. */
const push_note_error: ChangeFn<{ message: string; member?: string | null }> = (state, a, ctx): ToolResult => {
  if (!isText(a.message) || (a.member !== undefined && a.member !== null && !isText(a.member))) return malformed('error note');
  addError(state, ctx.now(), a.message, a.member ?? undefined);
  return { ok: true, message: 'recorded' };
};

export const pushChanges = {
  push_drain, push_commit, push_give_back, push_sweep, push_session_gone, push_link_session, push_take_wake, push_note_error,
  ...spawnChanges,
};
