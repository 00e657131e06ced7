// Done and cancelled tasks leave the board for its history once the
// retention has passed since they closed (INTERFACE §8), in the same commit
// that the store writes them to history: never lost, never in both. A
// cancelled task that an open task still waits on stays until that task
// closes, so the open one can go on saying what blocks it.
import { isOnBoard, taskNumber, tasksOf } from './task-board';
import { TASK_RETENTION_MS, type Task } from './task-types';
import type { State } from './types';

/**
 * Takes out of `state` every task closed at least TASK_RETENTION_MS before
 * `now` and returns them whole (log included), in the order made. A done task
 * always goes; a cancelled one goes once no open task names it in `after`.
 */
export function takeRetiredTasks(state: State, now: number): Task[] {
  const board = state.board;
  if (!board) return [];
  const waitedOn = new Set<string>();
  for (const task of tasksOf(state)) if (isOnBoard(task)) for (const id of task.after) waitedOn.add(id);
  const leaving = tasksOf(state).filter((t) => !isOnBoard(t) && t.closed_at !== null && now - t.closed_at >= TASK_RETENTION_MS
    && (t.status === 'done' || !waitedOn.has(t.id)));
  for (const task of leaving) delete board.tasks[task.id];
  return leaving;
}

/** How many tasks have left the board for its history: every number handed out and no longer on it. */
export function retiredCount(state: State): number {
  const board = state.board;
  return board ? Math.max(0, board.next_no - 1 - Object.keys(board.tasks).length) : 0;
}

/** Whether `id` names a task that was made and has left the board. */
export function isRetiredId(state: State, id: string): boolean {
  const n = taskNumber(id);
  return state.board !== undefined && Number.isFinite(n) && n < state.board.next_no && !Object.prototype.hasOwnProperty.call(state.board.tasks, id);
}
