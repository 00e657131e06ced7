// The loop guard: agents that keep messaging each other with nobody looking
// (acknowledgment ping-pong) burn their users' quota. A channel counts the
// messages sent in a row with none from a person; at its max_agent_streak it
// pauses itself, agents' sends are refused with `agent_streak`, and only a
// person (a `person-` member: `opencomms say`, `opencomms resume`) lifts it.
import { DEFAULT_MAX_AGENT_STREAK, MAX_MAX_AGENT_STREAK } from './constants';
import { isPersonMemberId } from './person';
import { refuse, type Refusal } from './reasons';
import type { Channel } from './types';

/** The channel's streak limit: its own, or the default for channels of older versions; 0 is off. */
export function maxAgentStreakOf(channel: Channel): number {
  return channel.max_agent_streak ?? DEFAULT_MAX_AGENT_STREAK;
}

/** Whether the channel paused itself for the loop guard. */
export function isStreakPause(channel: Channel): boolean {
  return channel.paused && channel.paused_reason === 'agent_streak';
}

/** How the pause reads in a reply, a refusal, status and watch. */
export function describeStreakPause(channel: Channel): string {
  return `Channel "${channel.name}" paused itself: ${maxAgentStreakOf(channel)} messages in a row came from agents with none from a person (loop guard). `
    + `Tell your user; a person lifts the pause with \`opencomms say ${channel.name} …\` or \`opencomms resume ${channel.name}\` in a terminal.`;
}

/**
 * Why a send from `senderId` is refused on a paused channel, or null when it
 * may go: a person's send goes through a loop-guard pause (and lifts it once
 * sent, countMessage); a member's pause holds everyone.
 */
export function pauseRefusal(channel: Channel, senderId: string): Refusal | null {
  if (!channel.paused) return null;
  if (isStreakPause(channel)) {
    if (isPersonMemberId(senderId)) return null;
    return refuse('agent_streak', describeStreakPause(channel), { max_agent_streak: maxAgentStreakOf(channel), paused_at: channel.paused_at });
  }
  return refuse('paused', `Channel "${channel.name}" is paused. Resume it before sending.`);
}

/** What one accepted send did to the guard. */
export type StreakOutcome = 'paused' | 'lifted' | null;

/**
 * Counts one accepted send (however many recipients it has). A person's send
 * starts the count again and lifts a loop-guard pause; an agent's adds one,
 * and the one that reaches the limit pauses the channel at `now`.
 */
export function countMessage(channel: Channel, senderId: string, now: number): StreakOutcome {
  if (isPersonMemberId(senderId)) {
    const wasPaused = isStreakPause(channel);
    channel.agent_streak = 0;
    if (wasPaused) clearPause(channel);
    return wasPaused ? 'lifted' : null;
  }
  const streak = (channel.agent_streak ?? 0) + 1;
  channel.agent_streak = streak;
  const max = maxAgentStreakOf(channel);
  if (max === 0 || streak < max || channel.paused) return null;
  channel.paused = true;
  channel.paused_at = now;
  channel.paused_reason = 'agent_streak';
  return 'paused';
}

/** Why `callerId` may not resume the channel, or null: only a person lifts a loop-guard pause, or a person's own pause. */
export function resumeRefusal(channel: Channel, callerId: string): Refusal | null {
  if (isPersonMemberId(callerId)) return null;
  if (isStreakPause(channel)) {
    return refuse('person_required', `${describeStreakPause(channel)} Agents cannot resume it.`, { max_agent_streak: maxAgentStreakOf(channel) });
  }
  if (!channel.paused || !isPersonMemberId(channel.paused_by)) return null;
  return refuse('person_required', `Channel "${channel.name}" was paused by the person ${channel.paused_by}; only a person lifts it, with \`opencomms resume ${channel.name}\` in a terminal. Tell your user.`, {
    paused_by: channel.paused_by,
  });
}

/** Ends a pause of either kind; the streak starts again from 0. */
export function clearPause(channel: Channel): void {
  channel.paused = false;
  channel.paused_at = null;
  channel.agent_streak = 0;
  delete channel.paused_reason;
  delete channel.paused_by;
}

/** What a view says about a channel's guard: the limit, the count, why it is paused. */
export function loopGuardView(channel: Channel): { max_agent_streak: number; agent_streak: number; paused_reason: string | null } {
  return {
    max_agent_streak: maxAgentStreakOf(channel),
    agent_streak: channel.agent_streak ?? 0,
    paused_reason: channel.paused ? (channel.paused_reason ?? 'member') : null,
  };
}

// A member id, as a state file may carry it in paused_by.
const PAUSER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const isCount = (value: unknown, max: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= max;

/**
 * The state codec's check of the guard's fields on one channel read from
 * disk. All three may be absent (older versions). A limit or count that is
 * not a whole number in range is dropped (the default applies, the count
 * starts again), with a note; a reason this version does not know, or one
 * on a channel that is not paused, is dropped too.
 */
export function checkLoopGuard(c: Record<string, unknown>, where: string, notes: string[]): void {
  if (c.max_agent_streak !== undefined && !isCount(c.max_agent_streak, MAX_MAX_AGENT_STREAK)) {
    delete c.max_agent_streak;
    notes.push(`${where}: max_agent_streak was not a whole number from 0 to ${MAX_MAX_AGENT_STREAK}; the default applies`);
  }
  if (c.agent_streak !== undefined && !isCount(c.agent_streak, Number.MAX_SAFE_INTEGER)) {
    delete c.agent_streak;
    notes.push(`${where}: agent_streak was not a whole number; counted from 0 again`);
  }
  if (c.paused_reason !== undefined && (c.paused_reason !== 'agent_streak' || c.paused !== true)) {
    delete c.paused_reason;
    notes.push(`${where}: paused_reason dropped (not "agent_streak" on a paused channel)`);
  }
  if (c.paused_by !== undefined && (typeof c.paused_by !== 'string' || !PAUSER_ID_PATTERN.test(c.paused_by) || c.paused !== true)) {
    delete c.paused_by;
    notes.push(`${where}: paused_by dropped (not a member id on a paused channel)`);
  }
}
