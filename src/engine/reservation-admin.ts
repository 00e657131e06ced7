// What a person sees and does about reservations from outside any channel
// (`opencomms reservations`): every reservation that holds, judged by the
// same rule the hooks enforce with, and releasing one by id or all of one
// member's. The holder learns of it from a system notice in its channel and
// an error entry that its opencomms_status shows.
import { queueEnvelopes, rootThread } from './compose';
import { recordMemberError } from './spawn-leases';
import { refuse, succeed } from './reasons';
import { memberInfosFor } from './identity';
import { judgedChannels } from './presence';
import { holderAwaySince, liveReservations, reservationId } from './reservations';
import { claimHolds, claimerAwaySince, findTask } from './task-board';
import type { Channel, EngineCtx, ProcessCheck, Reservation, State, ToolResult } from './types';

/** One reservation that holds, as `reservations --json` prints it. */
export interface HeldReservation {
  id: string;
  member_id: string;
  role: string;
  channel: string;
  paths: string[];
  exclusive: boolean;
  reason: string | null;
  /** Null for a claimed task's paths: they hold while the claim lasts, with no time of their own. */
  expires_at: number | null;
  /** When its holder went away (epoch ms), or null while present. */
  holder_away_since: number | null;
  /** Set when the paths are held by a claimed task (INTERFACE section 8): its id; `task release` frees them. */
  task?: string;
}

function heldOf(state: State, channel: Channel, r: Reservation, now: number, isAlive: ProcessCheck): HeldReservation {
  const since = holderAwaySince(state, r, now, isAlive);
  return {
    id: reservationId(channel, r),
    member_id: r.member_id,
    role: r.role,
    channel: channel.name,
    paths: [r.path],
    exclusive: r.exclusive,
    reason: r.reason,
    expires_at: r.expires_at,
    holder_away_since: since,
  };
}

/** The paths each live claim holds, one row a task, as the hooks enforce them (claimHolds). */
function claimRows(state: State, now: number, isAlive: ProcessCheck): HeldReservation[] {
  const byTask = new Map<string, HeldReservation>();
  for (const hold of claimHolds(state, now, isAlive)) {
    const row = byTask.get(hold.task_id);
    if (row) {
      row.paths.push(hold.path);
      continue;
    }
    const role = memberInfosFor(state, hold.member_id)[0]?.role ?? 'agent';
    const task = findTask(state, hold.task_id)!;
    byTask.set(hold.task_id, {
      id: `task:${hold.task_id}`, member_id: hold.member_id, role, channel: hold.channel ?? '', paths: [hold.path], exclusive: true,
      reason: `claimed task ${hold.task_id}`, expires_at: null, holder_away_since: claimerAwaySince(state, task, now, isAlive), task: hold.task_id,
    });
  }
  return [...byTask.values()];
}

/** Every reservation of the project that holds at `now`, channel by channel, oldest first; then the paths of live claims. */
export function listHeldReservations(state: State, now: number, isAlive: ProcessCheck): HeldReservation[] {
  const rows: HeldReservation[] = [];
  for (const channel of Object.values(state.channels)) {
    for (const r of liveReservations(state, channel, now, isAlive)) rows.push(heldOf(state, channel, r, now, isAlive));
  }
  return [...rows, ...claimRows(state, now, isAlive)];
}

/** Which reservations a person releases: one by id, or every one a member holds. */
export type ReleaseTarget = { id: string } | { member_id: string };

// The sender of OpenComms' own notices: no member, so nobody can answer it by mistake.
const NOTICE_SENDER = { session_id: 'opencomms', role: 'OpenComms' };

/**
 * Releases, for a person, the reservations that hold and match `target`,
 * and tells each holder in the channel it held them in (a system notice) and
 * in its status (an error entry scoped to it). Refuses with `not_found` when
 * nothing that holds matches.
 */
export function releaseForPerson(state: State, target: ReleaseTarget, ctx: EngineCtx, isAlive: ProcessCheck): ToolResult {
  if ('id' in target && target.id.startsWith('task:')) {
    const id = target.id.slice('task:'.length);
    return refuse('not_found', `${target.id} is the paths of claimed task ${id}: they are freed with the claim, by \`opencomms task release ${id}\` (or done, or its claimer away 10 minutes).`);
  }
  const now = ctx.now();
  const released: HeldReservation[] = [];
  for (const channel of Object.values(state.channels)) {
    const live = liveReservations(state, channel, now, isAlive);
    const chosen = live.filter((r) => ('id' in target ? reservationId(channel, r) === target.id : r.member_id === target.member_id));
    if (chosen.length === 0) continue;
    const rows = chosen.map((r) => heldOf(state, channel, r, now, isAlive));
    released.push(...rows);
    channel.reservations = (channel.reservations ?? []).filter((r) => !chosen.includes(r));
    if (channel.reservations.length === 0) delete channel.reservations;
    for (const holderId of new Set(chosen.map((r) => r.member_id))) {
      const mine = rows.filter((row) => row.member_id === holderId);
      const text = `OpenComms notice: a person released your reservation${mine.length > 1 ? 's' : ''} of ${mine.map((row) => `${row.paths.join(', ')} (${row.id})`).join('; ')}`
        + ` in channel "${channel.name}" with \`opencomms reservations --release\`. Other sessions may edit ${mine.length > 1 ? 'those files' : 'that file'} now; reserve again (opencomms_reserve) if you still need it.`;
      const holder = channel.members.find((m) => m.session_id === holderId);
      if (holder) queueEnvelopes(state, channel, NOTICE_SENDER, [holder], { message_type: 'system', content: text, thread: rootThread(ctx) }, ctx);
      recordMemberError(state, holderId, now, text);
    }
  }
  if (released.length === 0) {
    const what = 'id' in target ? `no reservation with id ${target.id} holds` : `member ${target.member_id} holds no reservation`;
    return refuse('not_found', `Nothing released: ${what}; \`opencomms reservations\` lists those that hold.`);
  }
  return succeed(`Released ${released.length} reservation(s).`, { released });
}

/**
 * The channels as a view shows them at `now`: each member's away mark from
 * the presence judgement and only the reservations that hold, exactly as the
 * hooks judge them. Copies; the state is not changed.
 */
export function channelsAsJudged(state: State, now: number, isAlive: ProcessCheck): State['channels'] {
  const judged = judgedChannels(state, now, isAlive);
  for (const [name, channel] of Object.entries(judged)) {
    const live = liveReservations(state, state.channels[name]!, now, isAlive);
    if (live.length > 0) channel.reservations = live;
    else delete channel.reservations;
  }
  return judged;
}
