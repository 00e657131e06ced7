// Choosing who receives a message (or the clock). The rule is "never guess":
// an explicit target, a broadcast, or the one and only peer. A target named
// in a different case counts only when it names a single member (PROTOCOL 5.2).
// A member who is away (their session ended) is still a recipient: the mail
// waits for them.
import { refuse, type Refusal } from './reasons';
import { describeMembers } from './validate';
import type { Channel, Member } from './types';

/**
 * Finds the member `target` names: an exact session id wins, then an exact
 * role, then a session id or role that matches ignoring case, but only when
 * it names one member. When several match ignoring case, they are returned
 * as candidates: "bob" must never reach "Bob" just because "Bob" came first.
 */
export function matchMember(members: readonly Member[], target: string): Member | Member[] | undefined {
  const wanted = target.trim();
  const exact = members.find((m) => m.session_id === wanted) ?? members.find((m) => m.role === wanted);
  if (exact) return exact;
  const folded = wanted.toLowerCase();
  const loose = members.filter((m) => m.session_id.toLowerCase() === folded || m.role.toLowerCase() === folded);
  if (loose.length === 0) return undefined;
  return loose.length === 1 ? loose[0] : loose;
}

/** The message of a refusal for a target that matches several members only when case is ignored. */
export function describeAmbiguousMatch(target: string, candidates: readonly Member[]): string {
  return `"${target.trim()}" matches ${candidates.length} members when case is ignored; give the exact session id. Candidates: ${describeMembers(candidates)}.`;
}

/** The single peer a directed action goes to: `to` if given, else the only other member. */
export function resolvePeer(channel: Channel, self: Member, to: string | null | undefined): Member | Refusal {
  const others = channel.members.filter((m) => m.session_id !== self.session_id);
  if (typeof to === 'string' && to.trim() !== '') {
    // Matched against the whole roster, so naming yourself exactly never falls through to a look-alike peer.
    const target = matchMember(channel.members, to);
    if (Array.isArray(target)) return refuse('ambiguous_recipient', describeAmbiguousMatch(to, target));
    if (!target || target.session_id === self.session_id) {
      return refuse('unknown_recipient', `No other member matches "${to.trim()}". Members: ${describeMembers(others)}.`);
    }
    return target;
  }
  if (others.length === 0) return refuse('no_recipient', `Channel "${channel.name}" has no other member.`);
  if (others.length > 1) {
    return refuse('ambiguous_recipient',
      `Channel "${channel.name}" has ${others.length} other members. Specify to=<session_id|role> or broadcast=true. Members: ${describeMembers(others)}.`);
  }
  return others[0]!;
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
  return others;
}
