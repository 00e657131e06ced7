// Mail whose host door rang without waking the session (issue 35): after its
// bounded rings the door gives up and marks the mail, so `status`,
// opencomms_status and `doctor` can say that the member has mail its door
// could not wake it for. The mark goes with the mail: once the mail is
// pulled or brought in by a hook, nothing is said any more.
import { HOST_DOORS } from './state-shape';
import { ownValue } from './validate';
import type { Envelope, HostDoor, State } from './types';

/** What the door left on a message when it gave up: which door, how many rings, the last one's time. */
export interface UnwokenRecord {
  via: HostDoor;
  rings: number;
  at: number;
}

/** Per member, its pending mail that its door rang without waking it. */
export interface UnwokenMail {
  member_id: string;
  role: string;
  via: HostDoor;
  rings: number;
  messages: number;
  /** The last ring's time, over all of that member's marked mail. */
  last_rung_at: number;
}

/** Marks `ids` (still pending for `memberId`): its door rang `rings` times, the last at `at`, and woke nobody. Returns those marked. */
export function markUnwoken(state: State, memberId: string, ids: readonly string[], via: HostDoor, rings: number, at: number): string[] {
  const marked: string[] = [];
  for (const id of ids) {
    const envelope = ownValue(state.messages, id);
    if (!envelope || envelope.recipient_session_id !== memberId || envelope.delivery_status !== 'pending') continue;
    envelope.unwoken = { via, rings, at };
    marked.push(id);
  }
  return marked;
}

/** A message's mark, when it holds a sound one (state.json may have been edited by hand). */
export function unwokenOf(envelope: Envelope): UnwokenRecord | undefined {
  const mark: unknown = envelope.unwoken;
  if (mark === null || typeof mark !== 'object') return undefined;
  const { via, rings, at } = mark as Record<string, unknown>;
  const isSound = typeof via === 'string' && HOST_DOORS.includes(via) && Number.isInteger(rings) && (rings as number) > 0
    && typeof at === 'number' && Number.isFinite(at);
  return isSound ? { via: via as HostDoor, rings: rings as number, at } : undefined;
}

/** The members with pending mail their door rang without waking them, one entry each, by member id. */
export function unwokenMailOf(envelopes: Iterable<Envelope>): UnwokenMail[] {
  const byMember = new Map<string, UnwokenMail>();
  for (const envelope of envelopes) {
    if (envelope.delivery_status !== 'pending') continue;
    const mark = unwokenOf(envelope);
    if (!mark) continue;
    const known = byMember.get(envelope.recipient_session_id);
    if (!known) {
      byMember.set(envelope.recipient_session_id, {
        member_id: envelope.recipient_session_id, role: envelope.recipient_role, via: mark.via, rings: mark.rings, messages: 1, last_rung_at: mark.at,
      });
      continue;
    }
    known.messages += 1;
    known.rings = Math.max(known.rings, mark.rings);
    if (mark.at > known.last_rung_at) Object.assign(known, { via: mark.via, last_rung_at: mark.at });
  }
  return [...byMember.values()].sort((a, b) => a.member_id.localeCompare(b.member_id));
}

/** One line for a person: who has how much mail, which door rang it how often, and what now brings it in. */
export function unwokenLine(entry: UnwokenMail, when: string): string {
  const door = entry.via === 'inbox' ? 'the Claude Code inbox' : 'codex queue';
  const mail = entry.messages === 1 ? '1 message' : `${entry.messages} messages`;
  return `${entry.role} (${entry.member_id}) has ${mail} that its door (${door}) rang ${entry.rings} times without waking it (last ${when}); `
    + 'it waits for the session\'s next prompt, tool call or opencomms_pull';
}
