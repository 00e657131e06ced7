// Members leaving a channel: by their own choice, or removed by the coordinator.
import { queueEnvelopes, rootThread } from './compose';
import { removeMember } from './members';
import { refuse, succeed } from './reasons';
import { describeAmbiguousMatch, matchMember } from './recipients';
import { describeMembers, requireMembership } from './validate';
import type { EngineCtx, Envelope, Member, State, ToolResult } from './types';
import type { ChannelCall } from './channels';

/**
 * The caller leaves the channel. Only this channel's mail to them is
 * rejected; a channel left with no members is removed.
 */
export function disconnectChannel(state: State, input: ChannelCall, ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const { channel } = found;
  removeMember(state, channel, input.session_id, ctx.now());
  if (channel.members.length === 0) {
    delete state.channels[channel.name];
    return succeed(`You left "${channel.name}"; it had no members left and was removed. No host sessions were deleted.`, {
      channel_id: channel.id, channel_removed: true,
    });
  }
  return succeed(`You left "${channel.name}"; it remains active for the remaining ${channel.members.length} member(s).`, {
    channel_id: channel.id, channel_removed: false,
  });
}

export interface KickInput extends ChannelCall {
  target_session_id?: string | null;
  target_role?: string | null;
}

/**
 * The coordinator (the first member in the roster) removes another member.
 * Every remaining member gets a system notice that names who did it.
 */
export function kickChannel(state: State, input: KickInput, ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const { channel, member: caller } = found;
  if (channel.members[0]?.session_id !== caller.session_id) {
    return refuse('not_coordinator', `Only the channel coordinator (${describeMembers(channel.members.slice(0, 1))}) may remove members.`);
  }
  const byId = typeof input.target_session_id === 'string' ? input.target_session_id.trim() : '';
  const byRole = typeof input.target_role === 'string' ? input.target_role.trim() : '';
  if (byId === '' && byRole === '') return refuse('no_target', 'Specify target_session_id or target_role.');
  const selfKick = 'You cannot kick yourself; use opencomms_disconnect to leave.';
  if (byId === caller.session_id || (byId === '' && byRole.toLowerCase() === caller.role.toLowerCase())) {
    return refuse('cannot_kick_self', selfKick);
  }
  const target = matchMember(channel.members, byId !== '' ? byId : byRole);
  if (Array.isArray(target)) return refuse('ambiguous_target', describeAmbiguousMatch(byId || byRole, target));
  if (!target) return refuse('unknown_target', `No member matches "${byId || byRole}". Members: ${describeMembers(channel.members)}.`);
  if (target.session_id === caller.session_id) return refuse('cannot_kick_self', selfKick);

  const now = ctx.now();
  removeMember(state, channel, target.session_id, now);
  const notice = `${kickNoticeHead(target)}"${channel.name}" by ${caller.role} (${caller.session_id}).`;
  queueEnvelopes(state, channel, caller, channel.members, { message_type: 'system', content: notice, thread: rootThread(ctx) }, ctx);
  return succeed(notice, {
    kicked_session_id: target.session_id,
    kicked_role: target.role,
    kicked_by_session_id: caller.session_id,
    kicked_by_role: caller.role,
    remaining_session_ids: channel.members.filter((m) => !m.stale).map((m) => m.session_id),
  });
}

// The kick notice starts with the removed member's role and id, so readers of
// the state (the people watch) can tell a kick from a leave without a flag
// on the roster. One function builds the head and one recognises it.
function kickNoticeHead(target: Pick<Member, 'role' | 'session_id'>): string {
  return `${target.role} (${target.session_id}) was removed from channel `;
}

/** Whether `envelope` is the engine's notice that `member` was kicked (senders cannot write system messages). */
export function isKickNoticeOf(envelope: Envelope, member: Pick<Member, 'role' | 'session_id'>): boolean {
  return envelope.message_type === 'system' && envelope.content.startsWith(kickNoticeHead(member));
}
