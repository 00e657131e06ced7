// Collision notices (PROTOCOL 8.5): two members of a channel who both wrote
// one file within the window, neither holding a reservation of it, are told
// so. The edits themselves are not in the state: each member's hook appends
// them to its own log (store), so an edit costs no locked rewrite; the state
// changes only when a notice goes out, and remembers that it did.
import { queueEnvelopes, rootThread } from './compose';
import { patternsOverlap } from './globs';
import { liveReservations } from './reservations';
import { shownFileName } from './shell-writes';
import type { Channel, EngineCtx, Member, ProcessCheck, State } from './types';

/** How long an edit is remembered for collision notices, and how often one pair hears about one file. */
export const COLLISION_WINDOW_MS = 15 * 60_000;

/** One recorded edit: who wrote which repo-relative file, when. */
export interface EditRecord {
  file: string;
  member_id: string;
  at: number;
}

/** A notice that is due: in `channel`, `me` and `peer` both wrote `file`. */
export interface Collision {
  channel: Channel;
  file: string;
  me: Member;
  peer: Member;
  pair: string;
}

function isRecent(at: number, now: number): boolean {
  return now - at < COLLISION_WINDOW_MS && now >= at;
}

/**
 * The notices due now that `memberId` wrote `file`, given the recent edits of
 * other members (`edits`, from their logs): another member of a shared
 * channel wrote it within the window, neither holds a live reservation
 * covering it, and that pair has not heard about that file within the window.
 */
export function dueCollisions(state: State, memberId: string, file: string, edits: readonly EditRecord[], now: number, isAlive: ProcessCheck): Collision[] {
  const others = new Set(edits.filter((e) => e.file === file && e.member_id !== memberId && isRecent(e.at, now)).map((e) => e.member_id));
  if (others.size === 0) return [];
  const due: Collision[] = [];
  for (const channel of Object.values(state.channels)) {
    const me = channel.members.find((m) => m.session_id === memberId);
    if (!me) continue;
    const live = liveReservations(state, channel, now, isAlive);
    const holds = (id: string): boolean => live.some((r) => r.member_id === id && patternsOverlap(file, r.path));
    if (holds(memberId)) continue;
    const noticed = (channel.collision_notices ?? []).filter((n) => isRecent(n.at, now));
    for (const other of others) {
      const peer = channel.members.find((m) => m.session_id === other);
      if (!peer || holds(other)) continue;
      const pair = [memberId, other].sort().join(' ');
      if (noticed.some((n) => n.file === file && n.pair === pair)) continue;
      due.push({ channel, file, me, peer, pair });
    }
  }
  return due;
}

/** Queues both notices of each due collision (recomputed on `state`) and remembers them; returns how many were queued. */
export function noteCollisions(state: State, memberId: string, file: string, edits: readonly EditRecord[], ctx: EngineCtx, isAlive: ProcessCheck): number {
  const now = ctx.now();
  let queued = 0;
  for (const { channel, me, peer, pair } of dueCollisions(state, memberId, file, edits, now, isAlive)) {
    channel.collision_notices = [...(channel.collision_notices ?? []).filter((n) => isRecent(n.at, now)), { file, pair, at: now }];
    // An older version kept the edits in the state; they go with the first notice.
    delete channel.recent_edits;
    for (const [to, them] of [[me, peer], [peer, me]] as const) {
      const content = `OpenComms notice: you and ${them.role} (${them.session_id}) both edited ${shownFileName(file)} in the last 15 minutes, and neither of you holds a reservation of it. `
        + `Agree who changes it (opencomms_send to ${them.session_id}), or reserve it first with opencomms_reserve.`;
      queueEnvelopes(state, channel, { session_id: them.session_id, role: them.role }, [to], { message_type: 'system', content, thread: rootThread(ctx) }, ctx);
      queued += 1;
    }
  }
  return queued;
}
