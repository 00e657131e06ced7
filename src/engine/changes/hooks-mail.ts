// A hook's locked step for mail (hooks/mail-step.ts plans it on the lock-free
// snapshot): who the hook speaks for is confirmed (a pin bound, an env member
// bound, a starting session linked), then the member's mail is drained and
// framed under the host's cap, with the open requests a Stop reminds of.
// What the hook's process knows (its session, its pid, the in-flight holders
// it judged gone) comes in the arguments.
import type { DeliveryOwner, ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { isArgsObject, isText, malformed } from './args';
import { isHolderList, judgeByGone, type HolderRef } from '../gone-holders';
import {
  bindablePinsFor, bindEnvMember, isHookSession, linkRefsFor, memberOfSession, type HookSession, type PinRef,
} from '../hook-session';
import { findLinkedMember, linkSession, needsLink } from '../session-links';
import { bindHostSession } from '../identity';
import { speakerJudge } from '../speaker-leases';
import { membershipsOfMember } from '../presence';
import { prepareDelivery, type PreparedDelivery } from '../hook-batch';
import { dueReminders, reminderText } from '../requests';

/** Who the hook planned to speak for: the one pin a starting session may take, or a member. */
export type HookMailPlan = { kind: 'pin'; pin: PinRef } | { kind: 'member'; member_id: string };

export interface HookMailArgs {
  plan: HookMailPlan;
  /** The member was named by OPENCOMMS_MEMBER_ID (not found by its session). */
  is_env_member: boolean;
  session: HookSession;
  is_session_start: boolean;
  is_stop: boolean;
  /** The hook's process, which the mail goes in flight to for `lease_ms` from the change's time. */
  owner: { pid: number; host: string };
  lease_ms: number;
  /** Holders of in-flight mail the hook judged gone on its machine. */
  gone: HolderRef[];
}

/** What the step prepared for the answer; no member_id when the hook speaks for nobody after all. */
export type HookMailResult = ToolResult & {
  data?: { member_id?: string; owner?: DeliveryOwner; delivery?: PreparedDelivery; reminder_ids?: string[] };
};

function isPlan(value: unknown): value is HookMailPlan {
  const plan = value as { kind?: unknown; pin?: { member_id?: unknown; host?: unknown }; member_id?: unknown } | null;
  if (typeof plan !== 'object' || plan === null) return false;
  if (plan.kind === 'pin') return typeof plan.pin === 'object' && plan.pin !== null && isText(plan.pin.member_id) && isText(plan.pin.host);
  return plan.kind === 'member' && isText(plan.member_id);
}

function isHookMailArgs(a: HookMailArgs): boolean {
  return isArgsObject(a) && isPlan(a.plan) && typeof a.is_env_member === 'boolean' && isHookSession(a.session)
    && typeof a.is_session_start === 'boolean' && typeof a.is_stop === 'boolean' && isArgsObject(a.owner)
    && typeof a.owner.pid === 'number' && isText(a.owner.host) && typeof a.lease_ms === 'number' && Number.isFinite(a.lease_ms) && isHolderList(a.gone);
}

const hook_mail_step: ChangeFn<HookMailArgs, HookMailResult> = (state, a, ctx) => {
  if (!isHookMailArgs(a)) return malformed('hook mail');
  const now = ctx.now();
  const { plan, session } = a;
  let memberId: string | undefined;
  if (plan.kind === 'pin') {
    // Another session may have taken the pin since the snapshot.
    const isFree = bindablePinsFor(state, [plan.pin], session.hosts, speakerJudge(now, ctx.isProcessAlive)).length === 1;
    if (isFree && session.session_id !== null) {
      bindHostSession(state, plan.pin.member_id, plan.pin.host, session.session_id);
      memberId = plan.pin.member_id;
    }
  } else if (a.is_env_member) {
    memberId = plan.member_id;
    if (a.is_session_start) bindEnvMember(state, memberId, session);
  } else {
    memberId = memberOfSession(state, session) === plan.member_id ? plan.member_id : undefined;
    // A starting session is seen (last_seen) and back (its away mark goes);
    // one found only by an old binding is linked to its member from now on.
    if (memberId !== undefined && a.is_session_start && needsLink(state, linkRefsFor(state, session.refs, memberId), now)) {
      linkSession(state, linkRefsFor(state, session.refs, memberId), [memberId], ctx);
    }
  }
  if (plan.kind === 'pin' && memberId !== undefined && findLinkedMember(state, session.refs) === undefined
    && !Object.values(state.session_links ?? {}).some((link) => link.member_id === memberId)) {
    // An old install's pin, taken by the first session that starts under it.
    linkSession(state, linkRefsFor(state, session.refs, memberId), [memberId], ctx);
  }
  if (memberId === undefined || membershipsOfMember(state, memberId).length === 0) return { ok: true, message: 'no member' };
  const owner: DeliveryOwner = { pid: a.owner.pid, host: a.owner.host, lease_until: now + a.lease_ms };
  const delivery = prepareDelivery(state, memberId, owner, a.is_stop, ctx, judgeByGone(a.gone));
  // At a Stop, open review requests addressed to this member are brought up, each once: marked
  // as reminded only once the answer carrying them was written (settle), like the mail.
  const due = a.is_stop ? dueReminders(state, memberId) : [];
  if (due.length > 0) delivery.text = delivery.text === null ? reminderText(due) : `${delivery.text}\n\n${reminderText(due)}`;
  return { ok: true, message: 'prepared', data: { member_id: memberId, owner, delivery, reminder_ids: due.map((r) => r.request_id) } };
};

export const hookMailChanges = { hook_mail_step };
