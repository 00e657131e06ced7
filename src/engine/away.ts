// Members who are away: their session ended, they stay in their channels and
// their mail waits. Only a member away for longer than the channel's
// retention leaves it; what was still waiting for them is finished as
// `rejected` in history and each of its senders is told, once.
import { expireClaims } from './task-upkeep';
import { removeMember } from './members';
import { pruneReservations } from './reservations';
import { pruneRequests } from './requests';
import { recordMemberError } from './spawn-leases';
import { formatIsoTime } from './times';
import { JUDGE_BY_LEASE, tidyPresence } from './presence';
import type { Channel, Member, ProcessCheck, State } from './types';

/** A channel's retention for absent members in days, to one decimal, as messages say it. */
export function retentionDays(retentionMs: number): number {
  return Math.round(retentionMs / 86_400_000 * 10) / 10;
}

/** When a member went away, as messages say it. */
export function awaySinceText(member: Member): string {
  return member.stale_at === null ? 'an unknown time' : formatIsoTime(member.stale_at);
}

/** Whether `member` has been away from `channel` for longer than its retention at `now`. */
export function isAwayTooLong(channel: Channel, member: Member, now: number): boolean {
  return member.stale && member.stale_at !== null && now - member.stale_at > channel.away_retention_ms;
}

/**
 * Removes every member away for longer than their channel's retention and
 * tells each sender of undelivered mail to them (an error entry scoped to
 * the sender, which `opencomms_status` shows). Returns how many memberships ended.
 */
export function expireAwayMembers(state: State, now: number): number {
  let removed = 0;
  for (const channel of Object.values(state.channels)) {
    for (const member of channel.members.filter((m) => isAwayTooLong(channel, m, now))) {
      const undelivered = new Map<string, number>();
      for (const envelope of Object.values(state.messages)) {
        if (envelope.channel_id !== channel.id || envelope.recipient_session_id !== member.session_id) continue;
        if (envelope.delivery_status !== 'pending' && envelope.delivery_status !== 'in_flight') continue;
        undelivered.set(envelope.sender_session_id, (undelivered.get(envelope.sender_session_id) ?? 0) + 1);
      }
      removeMember(state, channel, member.session_id, now);
      removed += 1;
      const days = retentionDays(channel.away_retention_ms);
      const since = awaySinceText(member);
      for (const [sender, count] of undelivered) {
        recordMemberError(state, sender, now,
          `${count} message(s) you sent to ${member.role} (${member.session_id}) in channel "${channel.name}" were not delivered: `
          + `they were away since ${since}, longer than the channel keeps absent members (${days} day(s)), and left the channel. `
          + 'The messages are in opencomms_history as rejected; send them again to someone else if they still matter.');
      }
    }
  }
  return removed;
}

/**
 * The time-driven upkeep the store runs before every change: presence first
 * (ended processes leave, away marks follow the judgement, long-away members
 * in no channel are forgotten), then away members past retention leave and
 * reservations that no longer hold go, and so do claims whose claimer is away
 * past the grace (the task is open again and a member waiting for work is rung). `isAlive` tells this machine's processes.
 */
export function tidyState(state: State, now: number, isAlive: ProcessCheck = JUDGE_BY_LEASE): void {
  tidyPresence(state, now, isAlive);
  expireAwayMembers(state, now);
  pruneReservations(state, now, isAlive);
  pruneRequests(state);
  expireClaims(state, now, isAlive);
}
