// Loading the board from a state text: a hand-edited or hostile state.json
// may hold anything here. A task keeps what is sound and gets defaults for
// the rest (noted); one with no usable id or title is dropped (noted); a board
// that is not an object is a rejection, like the other maps of the state.
import { checkKeys, isObj, isStringArray, rejectShape } from './shape-checks';
import type { Board, Task, TaskLogEntry, TaskStatus } from './task-types';
import { MAX_TASK_PRIORITY, MAX_TASK_TITLE_CHARS } from './task-types';

const STATUSES: readonly TaskStatus[] = ['open', 'claimed', 'asked', 'done', 'cancelled'];
const LOG_KINDS: ReadonlyArray<TaskLogEntry['what']> = ['added', 'claimed', 'released', 'expired', 'asked', 'answered', 'done', 'cancelled'];
const TASK_ID = /^t[1-9]\d{0,8}$/;
const MEMBER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function timeOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function checkLog(raw: unknown): TaskLogEntry[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter((e): e is Record<string, unknown> => isObj(e)
    && typeof e.by === 'string' && LOG_KINDS.includes(e.what as TaskLogEntry['what']) && typeof e.at === 'number' && Number.isFinite(e.at))
    .map((e) => ({ at: e.at as number, by: e.by as string, what: e.what as TaskLogEntry['what'], ...(typeof e.note === 'string' ? { note: e.note } : {}) }));
}

function checkTask(key: string, raw: unknown, now: number, notes: string[]): Task | undefined {
  if (!isObj(raw) || raw.id !== key || !TASK_ID.test(key) || typeof raw.title !== 'string' || raw.title.trim() === '') {
    notes.push(`board.tasks["${key}"]: dropped a task with no usable id or title`);
    return undefined;
  }
  let repaired = false;
  const status = STATUSES.includes(raw.status as TaskStatus) ? raw.status as TaskStatus : (repaired = true, 'open');
  const claimer = typeof raw.claimed_by === 'string' && MEMBER_ID.test(raw.claimed_by) ? raw.claimed_by : null;
  const holds = status === 'claimed' || status === 'asked';
  const priority = Number.isInteger(raw.priority) && (raw.priority as number) >= 0 && (raw.priority as number) <= MAX_TASK_PRIORITY ? raw.priority as number : (repaired = true, 2);
  const task: Task = {
    id: key,
    title: raw.title.slice(0, MAX_TASK_TITLE_CHARS),
    details: textOrNull(raw.details),
    priority,
    after: isStringArray(raw.after) ? raw.after.filter((id) => TASK_ID.test(id)) : [],
    paths: isStringArray(raw.paths) ? raw.paths : [],
    for: textOrNull(raw.for),
    channel: textOrNull(raw.channel),
    status: holds && claimer === null ? (repaired = true, 'open') : status,
    added_by: typeof raw.added_by === 'string' ? raw.added_by : (repaired = true, 'unknown'),
    added_at: timeOr(raw.added_at, now),
    claimed_by: holds ? claimer : null,
    claimed_at: holds && claimer !== null ? timeOr(raw.claimed_at, now) : null,
    question: textOrNull(raw.question),
    answer: textOrNull(raw.answer),
    result: textOrNull(raw.result),
    closed_at: status === 'done' || status === 'cancelled' ? timeOr(raw.closed_at, now) : null,
    log: checkLog(raw.log),
  };
  if (repaired) notes.push(`board.tasks["${key}"]: repaired a malformed status, priority or author`);
  return task;
}

/** A task record read back from the board's history, checked as a task of the state is; undefined when unusable. */
export function parseTaskRecord(raw: unknown): Task | undefined {
  if (!isObj(raw) || typeof raw.id !== 'string') return undefined;
  const task = checkTask(raw.id, raw, 0, []);
  return task && task.closed_at !== null ? task : undefined;
}

/** The board of a state text, checked; undefined when it has none. */
export function checkBoard(root: Record<string, unknown>, now: number, notes: string[]): Board | undefined {
  const value = root.board;
  if (value === undefined) return undefined;
  if (!isObj(value) || !isObj(value.tasks)) rejectShape('board is not an object with tasks');
  checkKeys(value.tasks, 'board.tasks');
  const tasks: Record<string, Task> = {};
  let highest = 0;
  for (const [key, raw] of Object.entries(value.tasks)) {
    const task = checkTask(key, raw, now, notes);
    if (!task) continue;
    tasks[key] = task;
    highest = Math.max(highest, Number(key.slice(1)));
  }
  let nextNo = Number.isSafeInteger(value.next_no) && (value.next_no as number) > highest ? value.next_no as number : highest + 1;
  if (nextNo !== value.next_no) notes.push('board.next_no: set past the highest task number');
  nextNo = Math.max(nextNo, 1);
  const times = (raw: unknown): Record<string, number> => {
    const out: Record<string, number> = {};
    if (!isObj(raw)) return out;
    for (const [id, at] of Object.entries(raw)) if (MEMBER_ID.test(id) && typeof at === 'number' && Number.isFinite(at)) out[id] = at;
    return out;
  };
  const wakes: Board['wakes'] = {};
  if (isObj(value.wakes)) {
    for (const [id, wake] of Object.entries(value.wakes)) {
      if (MEMBER_ID.test(id) && isObj(wake) && typeof wake.task_id === 'string' && typeof wake.at === 'number' && Number.isFinite(wake.at)) wakes[id] = { at: wake.at, task_id: wake.task_id };
    }
  }
  return { next_no: nextNo, tasks, waiting: times(value.waiting), wakes };
}
