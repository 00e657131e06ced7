// Mail for a prompt, a tool call or a Stop: who the hook speaks for is
// planned on the lock-free snapshot, then confirmed (bound, linked) and the
// mail drained and framed under the lock; the answer's settle commits it.
import { findGoneHolders, hasReminderDue, needsLink, type State } from '../engine';
import type { HookMailResult } from '../engine/changes/hooks-mail';
import { isHolderRunning } from '../process/liveness';
import { type Store } from '../store';
import { listPins, type PinRecord } from '../local/pins';
import { settleHandover } from '../delivery/handover';
import { contextAnswer, guidanceAnswer, stopAnswer } from './answer';
import {
  bindablePins, choosePinMessage, hookSessionOf, isEnvBindingStale, linkRefsOf, memberBySession,
  type EnvMember,
} from './bind';
import { HOOK_LEASE_MS, hookOwner, membershipsOf, needsDelivery } from './deliver';
import type { HookEvent } from './events';
import { NOTHING, type HookOptions, type Outcome } from './run-context';
import { noteTurn } from './turn';

/** Who the hook speaks for, as far as the lock-free snapshot can tell, or why it stops here. */
type Plan =
  | { kind: 'done'; outcome: Outcome; problem?: { memberId: string; message: string } }
  | { kind: 'member'; memberId: string }
  | { kind: 'pin'; pin: PinRecord };

function planMember(state: State, event: HookEvent, env: EnvMember, projectDir: string, now: number): Plan {
  const memberId = env.kind === 'id' ? env.memberId : memberBySession(state, event);
  if (memberId !== undefined) {
    if (membershipsOf(state, memberId).length === 0) {
      // A session's own member may simply not have joined yet; a member named
      // by OPENCOMMS_MEMBER_ID that is in no roster is a set-up mistake to show.
      return env.kind === 'id' ? { kind: 'done', outcome: NOTHING, problem: { memberId, message: notInRoster(memberId) } } : { kind: 'done', outcome: NOTHING };
    }
    const mustBind = env.kind === 'id' ? isEnvBindingStale(state, memberId, event) : mustLinkAtStart(state, event, memberId, now);
    const isReminderDue = event.kind === 'stop' && hasReminderDue(state, memberId);
    if (!mustBind && !isReminderDue && !needsDelivery(state, memberId, now)) return { kind: 'done', outcome: NOTHING };
    return { kind: 'member', memberId };
  }
  // Only a session that is starting may be linked to a pin, and only to the one pin that can be meant.
  if (!event.isSessionStart || env.kind === 'id' || event.sessionId === undefined) return { kind: 'done', outcome: NOTHING };
  const pins = bindablePins(state, listPins(projectDir), event);
  if (pins.length === 0) return { kind: 'done', outcome: NOTHING };
  if (pins.length > 1) return { kind: 'done', outcome: { answer: guidanceAnswer(choosePinMessage(pins)) } };
  return { kind: 'pin', pin: pins[0]! };
}

function notInRoster(memberId: string): string {
  return `hook: OPENCOMMS_MEMBER_ID=${memberId} is in no channel, so this session gets no mail. `
    + 'Remove OPENCOMMS_MEMBER_ID from the hook command (run `opencomms install <host>` again) so each session gets its own member, '
    + `or have the agent join a channel as ${memberId}.`;
}

/**
 * Records a problem scoped to a member where status and doctor show it, once:
 * the lock is taken only when the newest entry for that member says something else.
 */
async function recordOnce(store: Store, state: State, memberId: string, message: string): Promise<void> {
  const newest = [...state.errors].reverse().find((e) => e.member_id === memberId);
  if (newest?.message === message) return;
  await store.mutate('hook_note_problem', { member: memberId, message });
}

/** Whether a starting session's link to `memberId` must be written: missing, due a last_seen, or its member away. */
function mustLinkAtStart(state: State, event: HookEvent, memberId: string, now: number): boolean {
  return event.isSessionStart && needsLink(state, linkRefsOf(state, event, memberId), now);
}

/** Step 1 under the lock (engine change hook_mail_step): confirm who the member is (binding if planned), then drain and frame. */
async function lockedStep(store: Store, plan: Exclude<Plan, { kind: 'done' }>, event: HookEvent, env: EnvMember): Promise<HookMailResult> {
  // Holders of in-flight mail are judged on this machine; the change re-checks what is still in flight.
  const gone = await store.readLatest((state) => findGoneHolders(state, (holder) => isHolderRunning(holder)));
  const owner = hookOwner(0);
  return store.mutate('hook_mail_step', {
    plan: plan.kind === 'pin' ? { kind: 'pin', pin: { member_id: plan.pin.member_id, host: plan.pin.host } } : { kind: 'member', member_id: plan.memberId },
    is_env_member: plan.kind === 'member' && env.kind === 'id',
    session: hookSessionOf(event),
    is_session_start: event.isSessionStart,
    is_stop: event.kind === 'stop',
    owner: { pid: owner.pid, host: owner.host },
    lease_ms: HOOK_LEASE_MS,
    gone,
  });
}

// Mail for this moment: planned on the lock-free snapshot, drained under the lock.
export async function deliverMail(options: HookOptions, store: Store, snapshot: State, event: HookEvent, env: EnvMember, projectDir: string): Promise<Outcome> {
  const plan = planMember(snapshot, event, env, projectDir, Date.now());
  if (plan.kind === 'done') {
    if (plan.problem) {
      options.warn(`opencomms: ${plan.problem.message}`);
      await recordOnce(store, snapshot, plan.problem.memberId, plan.problem.message);
    }
    return plan.outcome;
  }

  const locked = (await lockedStep(store, plan, event, env)).data ?? {};
  const { member_id: memberId, owner, delivery, reminder_ids: reminderIds = [] } = locked;
  if (memberId === undefined || owner === undefined || delivery === undefined || delivery.text === null) return NOTHING;
  const isStop = event.kind === 'stop';
  // No loops at Stop: mail handed over in an earlier block is committed and
  // can never come again, so a continuation (stop_hook_active) blocks again
  // only for messages that go out in this very answer. A notice alone (an
  // oversized message still waiting) is said once, never repeated.
  // A reminder of open requests is given once per request, so it cannot loop either.
  if (isStop && event.isStopHookActive && delivery.ids.length === 0 && reminderIds.length === 0) return NOTHING;
  // A Stop that hands mail over keeps the turn going: busy again, so the door is not rung into it.
  if (isStop) noteTurn(projectDir, event, options.warn, 'busy');
  const answer = isStop ? stopAnswer(event, delivery.text, options.env) : contextAnswer(event, delivery.text);
  if (delivery.ids.length === 0 && reminderIds.length === 0) return { answer };
  return { answer, settle: (wasSent) => settleHandover(store, { memberId, owner, ids: delivery.ids, via: 'hook', reminderIds }, wasSent) };
}
