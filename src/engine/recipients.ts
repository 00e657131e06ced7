// Choosing who receives a message (or the clock). The rule is "never guess":
// an explicit target, a broadcast, or the one and only peer.
import { refuse, type Refusal } from './reasons';
import { describeMembers } from './validate';
import type { Channel, Member } from './types';

/** Finds a member by id, then by role, both case-insensitively, among the given members. */
export function matchMember(members: readonly Member[], target: string): Member | undefined {
  const wanted = target.trim().toLowerCase();
  return members.find((m) => m.session_id.toLowerCase() === wanted)
    ?? members.find((m) => m.role.toLowerCase() === wanted);
}

/** The single peer a directed action goes to: `to` if given, else the only other member. */
export function resolvePeer(channel: Channel, self: Member, to: string | null | undefined): Member | Refusal {
  const others = channel.members.filter((m) => m.session_id !== self.session_id);
  if (typeof to === 'string' && to.trim() !== '') {
    const target = matchMember(others, to);
    if (!target) {
      return refuse('unknown_recipient', `No other member matches "${to.trim()}". Members: ${describeMembers(others)}.`);
    }
    if (target.stale) return refuse('stale_recipient', `${target.role} (${target.session_id}) is marked stale.`);
    return target;
  }
  if (others.length === 0) return refuse('no_recipient', `Channel "${channel.name}" has no other member.`);
  if (others.length > 1) {
    return refuse('ambiguous_recipient',
      `Channel "${channel.name}" has ${others.length} other members. Specify to=<session_id|role> or broadcast=true. Members: ${describeMembers(others)}.`);
  }
  const [only] = others as [Member];
  if (only.stale) return refuse('stale_recipient', `The only other member, ${only.role} (${only.session_id}), is marked stale.`);
  return only;
}

/** The recipients of a send, in roster order. */
export function resolveRecipients(
  channel: Channel,
  sender: Member,
  to: string | null | undefined,
  broadcast: boolean,
): Member[] | Refusal {
  const hasTo = typeof to === 'string' && to.trim() !== '';
  if (broadcast && hasTo) {
    return refuse('invalid_argument', 'Give either to or broadcast=true, not both.', { argument: 'to' });
  }
  if (!broadcast) {
    const peer = resolvePeer(channel, sender, to);
    return 'ok' in peer ? peer : [peer];
  }
  const others = channel.members.filter((m) => m.session_id !== sender.session_id);
  if (others.length === 0) return refuse('no_recipient', `Channel "${channel.name}" has no other member to receive a broadcast.`);
  const live = others.filter((m) => !m.stale);
  if (live.length === 0) return refuse('stale_recipient', 'No live recipient: every other member is marked stale.');
  return live;
}
