// The board's judgements: which tasks are ready, whose claim still holds,
// who may take what, what a session is reminded of, and the rule that gives
// a claim back once its claimer has been away. Every view (the tool, the
// person's commands, status, watch, the hooks) asks these functions.
import { HOLDER_AWAY_GRACE_MS } from './constants';
import { framePeerText, frameShortPeerText } from './framing';
import { isPersonMemberId } from './person';
import { presenceOf } from './presence';
import {
  MAX_TASK_DIGEST_CHARS, type Board, type Task, type TaskLogEntry,
} from './task-types';
import type { ProcessCheck, State, ToolResult } from './types';

/** The board, made empty on first use (only under a change). */
export function boardFor(state: State): Board {
  state.board ??= { next_no: 1, tasks: {}, waiting: {}, wakes: {} };
  return state.board;
}

/** The tasks of a state in the order made (t1, t2, …). */
export function tasksOf(state: State): Task[] {
  return Object.values(state.board?.tasks ?? {}).sort((a, b) => taskNumber(a.id) - taskNumber(b.id));
}

export function taskNumber(id: string): number {
  return /^t[1-9]\d{0,8}$/.test(id) ? Number(id.slice(1)) : Number.POSITIVE_INFINITY;
}

export function findTask(state: State, id: string): Task | undefined {
  const tasks = state.board?.tasks;
  return tasks && Object.prototype.hasOwnProperty.call(tasks, id) ? tasks[id] : undefined;
}

export function isOnBoard(task: Task): boolean {
  return task.status !== 'done' && task.status !== 'cancelled';
}

/** The tasks `task` still waits on: those not done (a cancelled one keeps it blocked). */
export function blockersOf(state: State, task: Task): Task[] {
  return task.after.map((id) => findTask(state, id)).filter((t): t is Task => t !== undefined && t.status !== 'done');
}

/** Open, and every task it waits on is done. */
export function isReady(state: State, task: Task): boolean {
  return task.status === 'open' && blockersOf(state, task).length === 0;
}

/** When a task's claimer went away, or null while it is present (or nobody holds it). */
export function claimerAwaySince(state: State, task: Task, now: number, isAlive: ProcessCheck): number | null {
  if (task.claimed_by === null) return null;
  const judged = presenceOf(state, task.claimed_by, now, isAlive);
  return judged.present ? null : (judged.away_since ?? Number.NEGATIVE_INFINITY);
}

/** A claim holds while its claimer is present or went away less than the grace ago: the reservation rule. */
export function isClaimLive(state: State, task: Task, now: number, isAlive: ProcessCheck): boolean {
  if (task.status !== 'claimed' && task.status !== 'asked') return false;
  const since = claimerAwaySince(state, task, now, isAlive);
  return since === null || now - since < HOLDER_AWAY_GRACE_MS;
}

/** The roles a member holds in any channel. */
function rolesOf(state: State, memberId: string): Set<string> {
  const roles = new Set<string>();
  for (const channel of Object.values(state.channels)) {
    for (const m of channel.members) if (m.session_id === memberId) roles.add(m.role);
  }
  return roles;
}

/** Whether `memberId` may take a task: it names nobody, names this member, or a role it holds. */
export function isForMember(state: State, task: Task, memberId: string): boolean {
  if (isPersonMemberId(memberId)) return false;
  if (task.for === null || task.for === memberId) return true;
  return rolesOf(state, memberId).has(task.for);
}

/** One path a live claim holds: exclusively, for the claimer. */
export interface ClaimHold {
  task_id: string;
  path: string;
  member_id: string;
  channel: string | null;
  claimed_at: number;
}

/** Every path that a live claim holds, as the hooks enforce it beside the reservations. */
export function claimHolds(state: State, now: number, isAlive: ProcessCheck): ClaimHold[] {
  const holds: ClaimHold[] = [];
  for (const task of tasksOf(state)) {
    if (task.paths.length === 0 || task.claimed_by === null || !isClaimLive(state, task, now, isAlive)) continue;
    for (const path of task.paths) {
      holds.push({ task_id: task.id, path, member_id: task.claimed_by, channel: task.channel, claimed_at: task.claimed_at ?? task.added_at });
    }
  }
  return holds;
}

/** The task as `task list --json` prints it (INTERFACE section 8), plus its log when `withLog`. */
export function taskView(state: State, task: Task, now: number, isAlive: ProcessCheck, withLog = false): Record<string, unknown> {
  const blockers = task.status === 'open' ? blockersOf(state, task) : [];
  const view: Record<string, unknown> = {
    id: task.id,
    title: task.title,
    status: task.status,
    ready: task.status === 'open' && blockers.length === 0,
    priority: task.priority,
    after: task.after,
    paths: task.paths,
    for: task.for,
    channel: task.channel,
    added_by: task.added_by,
    added_at: task.added_at,
    claimed_by: task.claimed_by,
    claimed_at: task.claimed_at,
    claimer_away_since: claimerAwaySince(state, task, now, isAlive),
    result: task.result,
  };
  if (blockers.length > 0) view.blocked_by = blockers.map((t) => ({ id: t.id, status: t.status }));
  if (task.question !== null) view.question = task.question;
  if (task.answer !== null) view.answer = task.answer;
  if (task.closed_at !== null) view.closed_at = task.closed_at;
  if (withLog) {
    view.details = task.details;
    view.log = task.log;
  }
  return view;
}

export type TaskListView = 'ready' | 'mine' | 'open' | 'all';
export const TASK_LIST_VIEWS: readonly TaskListView[] = ['ready', 'mine', 'open', 'all'];

/** The board as a view shows it: ready first by priority then age, then the rest in the order made. */
export function listedTasks(state: State, view: TaskListView, memberId: string | undefined): Task[] {
  const all = tasksOf(state);
  const chosen = all.filter((t) => {
    if (view === 'ready') return isReady(state, t);
    if (view === 'mine') return memberId !== undefined && t.claimed_by === memberId && isOnBoard(t);
    if (view === 'open') return isOnBoard(t);
    return true;
  });
  const rank = (t: Task): number => (isReady(state, t) ? 0 : 1);
  return chosen.sort((a, b) => rank(a) - rank(b)
    || (rank(a) === 0 ? a.priority - b.priority || a.added_at - b.added_at : 0)
    || taskNumber(a.id) - taskNumber(b.id));
}

export interface BoardCounts { ready: number; claimed: number; asked: number; blocked: number; open: number }

/** How many tasks are ready, claimed, asked and blocked: status and watch count with this. */
export function boardCounts(state: State): BoardCounts {
  const counts: BoardCounts = { ready: 0, claimed: 0, asked: 0, blocked: 0, open: 0 };
  for (const task of tasksOf(state)) {
    if (!isOnBoard(task)) continue;
    counts.open += 1;
    if (task.status === 'claimed') counts.claimed += 1;
    else if (task.status === 'asked') counts.asked += 1;
    else if (isReady(state, task)) counts.ready += 1;
    else counts.blocked += 1;
  }
  return counts;
}

export function logTask(task: Task, entry: TaskLogEntry): void {
  task.log.push(entry);
}

export function ageText(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

/**
 * What a session start restates (INTERFACE section 8): the tasks `memberId` holds,
 * with their paths and age, and how many are ready, in at most
 * MAX_TASK_DIGEST_CHARS. Titles are peer text, so they go inside a frame;
 * undefined when the member holds nothing.
 */
export function taskDigest(state: State, memberId: string, now: number, nonce: string): string | undefined {
  const held = tasksOf(state).filter((t) => t.claimed_by === memberId && (t.status === 'claimed' || t.status === 'asked'));
  if (held.length === 0) return undefined;
  const ready = boardCounts(state).ready;
  const items = held.map((t) => `${t.id} (${t.status === 'asked' ? 'asked of the person' : `claimed ${ageText(now - (t.claimed_at ?? now))} ago`}`
    + `${t.paths.length > 0 ? `; paths ${t.paths.join(' ')}` : ''})`);
  const head = `[OpenComms] You hold ${held.length} task(s) on the board: ${items.join(', ')}. ${ready} more ready.`
    + ' opencomms_task (action list, view mine) shows them.';
  for (const titleChars of [120, 60, 30, 12]) {
    if (head.length > MAX_TASK_DIGEST_CHARS) break;
    const titles = held.map((t) => `${t.id}: ${t.title.length > titleChars ? `${t.title.slice(0, titleChars)}…` : t.title}`);
    const text = `${head} Their titles:\n${frameShortPeerText(titles.join('\n'), nonce)}`;
    if (text.length <= MAX_TASK_DIGEST_CHARS) return text;
  }
  const short = `[OpenComms] You hold ${held.length} task(s) on the board: ${held.map((t) => t.id).join(', ')}. ${ready} more ready. opencomms_task (action list, view mine) shows them.`;
  return short.length <= MAX_TASK_DIGEST_CHARS ? short : `${short.slice(0, MAX_TASK_DIGEST_CHARS - 1)}…`;
}


const PEER_FIELDS = ['title', 'details', 'result', 'question', 'answer'] as const;

/**
 * A task view as a model reads it: every text a member or the person wrote
 * (title, details, result, question, answer, log notes) framed as peer data
 * with a fresh nonce each, its writer named.
 */
export function framedTaskView(view: Record<string, unknown>, task: Task, nonce: () => string): Record<string, unknown> {
  const framed: Record<string, unknown> = { ...view };
  const writerOf = (field: typeof PEER_FIELDS[number]): string => {
    const kind = field === 'title' || field === 'details' ? 'added' : field === 'answer' ? 'answered' : field === 'question' ? 'asked' : 'done';
    return [...task.log].reverse().find((e) => e.what === kind)?.by ?? task.added_by;
  };
  for (const field of PEER_FIELDS) {
    const text = framed[field];
    if (typeof text === 'string') framed[field] = framePeerText(`the ${field} of task ${task.id}`, writerOf(field), text, nonce());
  }
  if (Array.isArray(framed.log)) {
    framed.log = (framed.log as TaskLogEntry[]).map((e) => (e.note === undefined ? e : { ...e, note: framePeerText(`a note on task ${task.id}`, e.by, e.note, nonce()) }));
  }
  return framed;
}

/** A reply whose task (or tasks) carry their peer-written text framed, as the task tool answers. */
export function framedTaskReply(result: ToolResult, state: State, nonce: () => string): ToolResult {
  const data = result.data;
  if (!data) return result;
  const frame = (view: unknown): unknown => {
    const id = (view as { id?: unknown }).id;
    const task = typeof id === 'string' ? findTask(state, id) : undefined;
    return task ? framedTaskView(view as Record<string, unknown>, task, nonce) : view;
  };
  const framed: Record<string, unknown> = { ...data };
  if (data.task !== undefined) framed.task = frame(data.task);
  if (Array.isArray(data.tasks)) framed.tasks = data.tasks.map(frame);
  return { ...result, data: framed };
}
