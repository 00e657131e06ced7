// The board's upkeep and its bell: a claim whose claimer has been away past
// the grace is given back, and a task that becomes ready rings one member
// waiting for work. Apart from the views (task-board.ts) because they judge
// held paths with the reservations' own rule.
import { patternsOverlap } from './globs';
import { presenceOf } from './presence';
import { liveReservations } from './reservations';
import { claimHolds, claimerAwaySince, isClaimLive, isForMember, isReady, logTask, tasksOf, ageText } from './task-board';
import { BOARD_ACTOR, type Task } from './task-types';
import type { ProcessCheck, State } from './types';

/** Who else holds any of `paths` (a live reservation of another member, or another's claim), first found. */
export function pathHolderOf(state: State, paths: readonly string[], memberId: string, now: number, isAlive: ProcessCheck, exceptTask?: string): { holder: string; path: string; held: string; task?: string } | undefined {
  for (const hold of claimHolds(state, now, isAlive)) {
    if (hold.member_id === memberId || hold.task_id === exceptTask) continue;
    const path = paths.find((p) => patternsOverlap(p, hold.path));
    if (path !== undefined) return { holder: hold.member_id, path, held: hold.path, task: hold.task_id };
  }
  for (const channel of Object.values(state.channels)) {
    if (!channel.reservations) continue;
    for (const r of liveReservations(state, channel, now, isAlive)) {
      if (r.member_id === memberId) continue;
      const path = paths.find((p) => patternsOverlap(p, r.path));
      if (path !== undefined) return { holder: r.member_id, path, held: r.path };
    }
  }
  return undefined;
}

/**
 * Rings one member waiting for work when `task` is ready: the one waiting
 * longest that is present, may take it and whose paths nobody else holds.
 * It stops waiting and gets a wake its doors say once. Returns who, if anyone.
 */
export function wakeForTask(state: State, task: Task, now: number, isAlive: ProcessCheck): string | undefined {
  const board = state.board;
  if (!board || !isReady(state, task)) return undefined;
  const waiters = Object.entries(board.waiting).sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
  for (const [memberId] of waiters) {
    if (!presenceOf(state, memberId, now, isAlive).present) continue;
    if (!isForMember(state, task, memberId)) continue;
    if (task.paths.length > 0 && pathHolderOf(state, task.paths, memberId, now, isAlive) !== undefined) continue;
    delete board.waiting[memberId];
    board.wakes[memberId] = { at: now, task_id: task.id };
    return memberId;
  }
  return undefined;
}

/**
 * The board's upkeep, run with every change: a claim whose claimer has been
 * away past the grace is given back (ready again, its log says why) and a
 * waiter that is away stops waiting. Returns the tasks given back.
 */
export function expireClaims(state: State, now: number, isAlive: ProcessCheck): Task[] {
  const board = state.board;
  if (!board) return [];
  const back: Task[] = [];
  for (const task of tasksOf(state)) {
    if (task.status !== 'claimed' || isClaimLive(state, task, now, isAlive)) continue;
    const since = claimerAwaySince(state, task, now, isAlive);
    const who = task.claimed_by!;
    task.status = 'open';
    task.claimed_by = null;
    task.claimed_at = null;
    logTask(task, { at: now, by: BOARD_ACTOR, what: 'expired', note: `${who} was away ${since === null || !Number.isFinite(since) ? 'too long' : ageText(now - since)}: the claim ended and the task is open again` });
    back.push(task);
  }
  for (const memberId of Object.keys(board.waiting)) {
    if (!presenceOf(state, memberId, now, isAlive).present) delete board.waiting[memberId];
  }
  for (const task of back) wakeForTask(state, task, now, isAlive);
  return back;
}
