// What reservations and claimed tasks say about one file a session is about
// to write (the pre-tool hooks' judgement), and the reason a denied or warned
// edit gives.
import { claimHolds } from './task-board';
import { HOLDER_AWAY_GRACE_MS } from './constants';
import { patternsOverlap } from './globs';
import { liveReservations, reservationLapse } from './reservation-lifetime';
import { conflictOf, frameHolderText, lapseText, shownHeldPath, type Conflict } from './reservation-conflicts';
import { memberInfosFor } from './identity';
import { presenceOf } from './presence';
import type { ProcessCheck, State } from './types';

/** What other sessions' reservations say about one file a session is about to write. */
export interface EditVerdict {
  kind: 'pass' | 'warn' | 'deny';
  conflicts: Conflict[];
}

/**
 * The pre-tool decision for a session writing `file` (repo-relative,
 * normalised), as member `memberId` or with no member yet (undefined): denied
 * when a reservation of another member that holds (the lifetime rule) covers
 * it exclusively, in any channel of the project, whether or not the writer is
 * in that channel; warned when held shared; passed otherwise.
 */
export function judgeEdit(state: State, memberId: string | undefined, file: string, now: number, isAlive: ProcessCheck): EditVerdict {
  const conflicts: Conflict[] = [];
  for (const channel of Object.values(state.channels)) {
    if (!channel.reservations) continue;
    for (const r of liveReservations(state, channel, now, isAlive)) {
      if (r.member_id !== memberId && patternsOverlap(file, r.path)) conflicts.push(conflictOf(file, channel, r, reservationLapse(state, r, now, isAlive)));
    }
  }
  for (const hold of claimHolds(state, now, isAlive)) {
    if (hold.member_id === memberId || !patternsOverlap(file, hold.path)) continue;
    // The claim's own lapse: the reservation rule with no expiry of its own (a claim ends only with its claimer's absence).
    const away = presenceOf(state, hold.member_id, now, isAlive);
    const since = away.present || away.away_since === null ? null : away.away_since;
    conflicts.push({
      path: file, channel: hold.channel ?? '', held_path: hold.path, holder: hold.member_id, role: memberInfosFor(state, hold.member_id)[0]?.role ?? 'agent',
      exclusive: true, reason: null, expires_at: Number.POSITIVE_INFINITY, task: hold.task_id,
      holder_away_since: since, lapses_at: since === null ? Number.POSITIVE_INFINITY : since + HOLDER_AWAY_GRACE_MS,
    });
  }
  if (conflicts.some((c) => c.exclusive)) return { kind: 'deny', conflicts: conflicts.filter((c) => c.exclusive) };
  return { kind: conflicts.length > 0 ? 'warn' : 'pass', conflicts };
}

/**
 * The reason a denied or warned edit gives: who holds the file, in which
 * channel, until when, and how to reach them (a session outside that channel
 * is told how to join it), in lines of our own; then the holders' reasons,
 * each framed as peer data with a fresh nonce from `nonce`. A deny opens by
 * saying it is a deliberate refusal of this `action` (an edit tool's, or a
 * shell command that writes a held file), not a failure: Claude Code shows
 * every PreToolUse deny to the model after "PreToolUse:<tool> hook error:".
 */
export function describeVerdict(verdict: EditVerdict, isMemberOf: (channel: string) => boolean, nonce: () => string, action: 'edit' | 'command' = 'edit'): string {
  const blocks: string[] = [];
  const lines = verdict.conflicts.map((c) => {
    if (c.task !== undefined) return claimLine(c, isMemberOf);
    const framed = frameHolderText(c, nonce());
    if (framed !== undefined) blocks.push(framed);
    const reach = isMemberOf(c.channel)
      ? `To ask them: opencomms_send with channel "${c.channel}", to "${c.holder}".`
      : `You are not in channel "${c.channel}": to ask them, join it (opencomms_join with channel "${c.channel}", a role and a role_prompt), then opencomms_send to "${c.holder}".`;
    return `${c.path} is reserved ${c.exclusive ? 'exclusively' : 'shared'} by ${c.role} (${c.holder})`
      + ` ${lapseText(c)} (reserved as ${shownHeldPath(c)} in channel "${c.channel}")${framed === undefined ? '' : '; their words are in the peer data below'}. ${reach}`;
  });
  const summary = verdict.kind === 'deny'
    ? `${action === 'edit'
      ? 'OpenComms refused this edit on purpose (nothing failed): another agent holds the file.'
      : 'OpenComms refused this shell command on purpose, before it ran (nothing failed): it writes a file another agent holds.'} ${lines.join(' ')} Wait until they release it (opencomms_release), it expires, or they have been away 10 minutes; a person can free it with \`opencomms reservations --release ID\`.`
    : `OpenComms: note that another agent shares this file. ${lines.join(' ')}`;
  return [summary, ...blocks].join('\n');
}

/** How a denied edit names a hold that comes from a claimed task: held while the claim lasts. */
function claimLine(c: Conflict, isMemberOf: (channel: string) => boolean): string {
  const reach = c.channel !== '' && isMemberOf(c.channel)
    ? ` To ask them: opencomms_send with channel "${c.channel}", to "${c.holder}".`
    : ' The board (opencomms_task with action list and id) shows the task and who holds it.';
  return `${c.path} is held by ${c.role} (${c.holder}), who claimed task ${c.task} with the paths ${shownHeldPath(c)}; it holds while that claim lasts.${reach}`;
}

/** Whether `memberId` is a member of the channel named `name`. */
export function isMemberOfChannel(state: State, memberId: string | undefined, name: string): boolean {
  return memberId !== undefined && Object.values(state.channels).some((c) => c.name === name && c.members.some((m) => m.session_id === memberId));
}
