// The chess-clock tool. The limit is advisory: reaching it blocks nothing.
import { refuse, succeed } from './reasons';
import { describeAmbiguousMatch, matchMember, resolvePeer } from './recipients';
import { elapsedWithRunning, handOverClock, stopClock } from './timer-clock';
import { addToTotal, describeMembers, ownValue, requireMembership } from './validate';
import type { Channel, EngineCtx, State, ToolResult } from './types';
import type { ChannelCall } from './channels';

export const TIMER_ACTIONS = ['start', 'stop', 'switch', 'reset', 'status', 'set_limit', 'clear_limit'] as const;
export type TimerAction = (typeof TIMER_ACTIONS)[number];

export interface TimerInput extends ChannelCall {
  action: string;
  limit_ms?: number | null;
  to?: string | null;
}

/** The clock as the status action reports it, running segment included. */
export function timerReport(channel: Channel, now: number): Record<string, unknown> {
  const { timer } = channel;
  const byMember = elapsedWithRunning(timer, now);
  const byRole: Record<string, number> = {};
  for (const [id, ms] of Object.entries(byMember)) {
    const role = channel.members.find((m) => m.session_id === id)?.role ?? id;
    addToTotal(byRole, role, ms);
  }
  const total = Object.values(byMember).reduce((a, b) => a + b, 0);
  const scoped = timer.limit_member_id === null ? total : (ownValue(byMember, timer.limit_member_id) ?? 0);
  const limited = timer.limit_ms !== null && timer.limit_ms > 0;
  return {
    active_member_id: timer.active_member_id,
    elapsed_ms_by_member: byMember,
    elapsed_ms_by_role: byRole,
    total_ms: total,
    limit_ms: timer.limit_ms,
    limit_member_id: timer.limit_member_id,
    limit_reached: limited && scoped >= (timer.limit_ms as number),
  };
}

/** Runs one timer action for a member of the channel. */
export function timerAction(state: State, input: TimerInput, ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const { channel, member } = found;
  const { timer } = channel;
  const now = ctx.now();
  switch (input.action as TimerAction) {
    case 'start':
      if (timer.active_member_id !== null) return succeed(`The clock is already running for ${timer.active_member_id}.`, timerReport(channel, now));
      handOverClock(timer, member.session_id, now);
      return succeed(`The clock is running for ${member.role}.`, timerReport(channel, now));
    case 'stop':
      if (timer.active_member_id === null) return succeed('The clock is already stopped.', timerReport(channel, now));
      stopClock(timer, now);
      return succeed('The clock is stopped.', timerReport(channel, now));
    case 'switch': {
      const target = resolvePeer(channel, member, input.to);
      if ('ok' in target) return target;
      handOverClock(timer, target.session_id, now);
      return succeed(`The clock is running for ${target.role}.`, timerReport(channel, now));
    }
    case 'reset':
      timer.active_member_id = null;
      timer.segment_started_at = null;
      timer.elapsed_ms = {};
      return succeed('The clock is reset; the limit is kept.', timerReport(channel, now));
    case 'status':
      return succeed('Timer status.', timerReport(channel, now));
    case 'set_limit': {
      const limit = input.limit_ms;
      if (typeof limit !== 'number' || !Number.isFinite(limit) || limit <= 0) {
        return refuse('invalid_limit', 'limit_ms must be a positive number of milliseconds.');
      }
      let scope: string | null = null;
      if (typeof input.to === 'string' && input.to.trim() !== '') {
        const target = matchMember(channel.members, input.to);
        if (Array.isArray(target)) return refuse('ambiguous_target', describeAmbiguousMatch(input.to, target));
        if (!target) return refuse('unknown_target', `No member matches "${input.to.trim()}". Members: ${describeMembers(channel.members)}.`);
        scope = target.session_id;
      }
      timer.limit_ms = Math.floor(limit);
      timer.limit_member_id = scope;
      return succeed(`Time limit set to ${timer.limit_ms} ms${scope ? ` for ${scope}` : ' for the channel'}.`, timerReport(channel, now));
    }
    case 'clear_limit':
      timer.limit_ms = null;
      timer.limit_member_id = null;
      return succeed('Time limit cleared.', timerReport(channel, now));
    default:
      return refuse('invalid_timer_action', `Unknown timer action "${String(input.action)}". Use one of: ${TIMER_ACTIONS.join(', ')}.`);
  }
}
