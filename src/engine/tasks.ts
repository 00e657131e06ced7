// The board's actions (INTERFACE section 8): add, next, claim, done, release, ask,
// answer, cancel. Each is one pure change of State.board under the store's
// lock, so a claim is atomic on every store: two sessions never both win one
// task. Who may do what is decided here, by the caller's member id; a person
// (`person-…`, refused to agents) may close, release, cancel and answer any.
import { isPersonMemberId } from './person';
import { JUDGE_BY_LEASE } from './presence';
import { refuse, succeed } from './reasons';
import {
  blockersOf, boardCounts, boardFor, findTask, isForMember, isOnBoard, isReady, listedTasks, logTask, taskView,
  TASK_LIST_VIEWS, type TaskListView,
} from './task-board';
import { badArgument, isResult, noteOf, taskFields, type AddTaskInput } from './task-input';
import { MAX_OPEN_TASKS, type Task } from './task-types';
import { pathHolderOf, wakeForTask } from './task-upkeep';
import { isRetiredId, retiredCount } from './task-retire';
import type { EngineCtx, State, ToolResult } from './types';

/** Adds an open task; replies with it and whether it is ready. A ready task rings one member waiting for work. */
export function addTask(state: State, by: string, input: AddTaskInput, ctx: EngineCtx): ToolResult {
  const fields = taskFields(state, input);
  if (isResult(fields)) return fields;
  if (boardCounts(state).open >= MAX_OPEN_TASKS) {
    return refuse('board_full', `The board holds ${MAX_OPEN_TASKS} tasks that are not done or cancelled; finish or cancel some first.`);
  }
  const board = boardFor(state);
  const now = ctx.now();
  const id = `t${board.next_no}`;
  board.next_no += 1;
  const task: Task = {
    id, ...fields, status: 'open', added_by: by, added_at: now, claimed_by: null, claimed_at: null,
    question: null, answer: null, result: null, closed_at: null, log: [{ at: now, by, what: 'added' }],
  };
  board.tasks[id] = task;
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  const rung = wakeForTask(state, task, now, isAlive);
  const ready = isReady(state, task);
  const blockers = blockersOf(state, task).map((t) => t.id);
  const message = ready
    ? `Added ${id}; it is ready${rung === undefined ? '' : ' (a member waiting for work was rung)'}.`
    : `Added ${id}; it waits on ${blockers.join(', ')} before it is ready.`;
  return succeed(message, { task: taskView(state, task, now, isAlive) });
}

/** The task named by `id`, or the refusal: unknown_task. */
function taskNamed(state: State, id: unknown): Task | ToolResult {
  if (typeof id !== 'string' || id.trim() === '') return badArgument('id', 'id is required: name a task such as t3.');
  const task = findTask(state, id.trim());
  if (task === undefined && isRetiredId(state, id.trim())) {
    return refuse('unknown_task', `${id.trim()} left the board for its history (it was done or cancelled more than 7 days ago); the person reads it with opencomms task show ${id.trim()}.`, { retired: true });
  }
  return task ?? refuse('unknown_task', `No task ${id.trim()} on this board; opencomms_task with action list shows them.`);
}

function whyNotReady(state: State, task: Task): ToolResult {
  if (task.status === 'claimed' || task.status === 'asked') {
    return refuse('claimed', `${task.id} is ${task.status === 'asked' ? 'asked of the person' : 'claimed'} by ${task.claimed_by}.`, { claimed_by: task.claimed_by });
  }
  if (!isOnBoard(task)) return refuse('not_ready', `${task.id} is ${task.status}; it cannot be claimed.`, { status: task.status });
  const blockers = blockersOf(state, task);
  return refuse('not_ready', `${task.id} waits on ${blockers.map((t) => `${t.id} (${t.status})`).join(', ')}.`, { blocked_by: blockers.map((t) => t.id) });
}

function takeTask(state: State, task: Task, memberId: string, now: number): void {
  task.status = 'claimed';
  task.claimed_by = memberId;
  task.claimed_at = now;
  logTask(task, { at: now, by: memberId, what: 'claimed' });
  const board = boardFor(state);
  delete board.waiting[memberId];
  delete board.wakes[memberId];
}

function claimedReply(state: State, task: Task, ctx: EngineCtx, isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE): ToolResult {
  const held = task.paths.length > 0 ? ` Its paths (${task.paths.join(', ')}) are reserved for you while you hold it.` : '';
  return succeed(`You claimed ${task.id}.${held} It stays yours until you mark it done or release it, or you have been away 10 minutes; nothing to renew.`,
    { task: taskView(state, task, ctx.now(), isAlive, true) });
}

/** Claims one task for `memberId`: refused when not ready, taken, not for it, or its paths are held. */
export function claimTask(state: State, memberId: string, id: unknown, ctx: EngineCtx): ToolResult {
  const task = taskNamed(state, id);
  if (isResult(task)) return task;
  if (task.status === 'claimed' && task.claimed_by === memberId) return claimedReply(state, task, ctx);
  if (!isReady(state, task)) return whyNotReady(state, task);
  if (!isForMember(state, task, memberId)) return refuse('not_for_you', `${task.id} is for ${task.for}, and you are not.`, { for: task.for });
  const now = ctx.now();
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  const held = task.paths.length > 0 ? pathHolderOf(state, task.paths, memberId, now, isAlive) : undefined;
  if (held !== undefined) {
    return refuse('paths_held', `${task.id} touches ${held.path}, which ${held.holder} holds${held.task === undefined ? '' : ` (claimed with ${held.task})`} as ${held.held}.`, { holder: held.holder, path: held.path });
  }
  takeTask(state, task, memberId, now);
  return claimedReply(state, task, ctx, isAlive);
}

/** Claims the first ready task `memberId` may take; with none, answers ok without a task and records it as waiting. */
export function nextTask(state: State, memberId: string, ctx: EngineCtx): ToolResult {
  const now = ctx.now();
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  for (const task of listedTasks(state, 'ready', memberId)) {
    if (!isForMember(state, task, memberId)) continue;
    if (task.paths.length > 0 && pathHolderOf(state, task.paths, memberId, now, isAlive) !== undefined) continue;
    takeTask(state, task, memberId, now);
    return claimedReply(state, task, ctx, isAlive);
  }
  const board = boardFor(state);
  board.waiting[memberId] ??= now;
  delete board.wakes[memberId];
  return succeed('No task is ready for you. You are waiting for work: when one becomes ready, you are told once; nothing to poll.', { waiting_since: board.waiting[memberId] });
}

/** Whether `by` may act on a task held by someone: the claimer itself, or a person. */
function isClaimerOrPerson(task: Task, by: string): boolean {
  return task.claimed_by === by || isPersonMemberId(by);
}

/** Rings a waiting member for each task that `changed` made ready. */
function wakeReady(state: State, tasks: readonly Task[], ctx: EngineCtx): void {
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  for (const task of tasks) wakeForTask(state, task, ctx.now(), isAlive);
}

/** The claimer (or a person) closes a task; those that waited on it may become ready, and ring. */
export function finishTask(state: State, by: string, id: unknown, result: unknown, ctx: EngineCtx): ToolResult {
  const task = taskNamed(state, id);
  if (isResult(task)) return task;
  const note = noteOf(result, 'result', false);
  if (isResult(note)) return note;
  if (!isOnBoard(task)) return refuse('task_closed', `${task.id} is already ${task.status}.`, { status: task.status });
  if (!isClaimerOrPerson(task, by)) {
    return refuse('not_claimer', task.claimed_by === null ? `${task.id} is not claimed: claim it first (action claim).` : `${task.id} is claimed by ${task.claimed_by}; only it or a person marks it done.`, { claimed_by: task.claimed_by });
  }
  const now = ctx.now();
  task.status = 'done';
  task.result = note;
  task.closed_at = now;
  logTask(task, { at: now, by, what: 'done', ...(note === null ? {} : { note }) });
  const unblocked = Object.values(state.board!.tasks).filter((t) => t.after.includes(task.id) && isReady(state, t));
  wakeReady(state, unblocked, ctx);
  return succeed(`${task.id} is done.${unblocked.length > 0 ? ` Now ready: ${unblocked.map((t) => t.id).join(', ')}.` : ''}`,
    { task: taskView(state, task, now, ctx.isProcessAlive ?? JUDGE_BY_LEASE), now_ready: unblocked.map((t) => t.id) });
}

/** The claimer (or a person) gives a task back: open and ready again, and a waiting member is rung. */
export function releaseTask(state: State, by: string, id: unknown, note: unknown, ctx: EngineCtx): ToolResult {
  const task = taskNamed(state, id);
  if (isResult(task)) return task;
  const text = noteOf(note, 'note', false);
  if (isResult(text)) return text;
  if (task.status !== 'claimed' && task.status !== 'asked') return refuse('not_claimer', `${task.id} is ${task.status}, held by nobody.`, { status: task.status });
  if (!isClaimerOrPerson(task, by)) return refuse('not_claimer', `${task.id} is claimed by ${task.claimed_by}; only it or a person releases it.`, { claimed_by: task.claimed_by });
  const now = ctx.now();
  task.status = 'open';
  task.claimed_by = null;
  task.claimed_at = null;
  logTask(task, { at: now, by, what: 'released', ...(text === null ? {} : { note: text }) });
  wakeReady(state, [task], ctx);
  return succeed(`${task.id} is open again.`, { task: taskView(state, task, now, ctx.isProcessAlive ?? JUDGE_BY_LEASE) });
}

/** The claimer asks the person a question: the task is asked until the person answers. */
export function askTask(state: State, by: string, id: unknown, question: unknown, ctx: EngineCtx): ToolResult {
  const task = taskNamed(state, id);
  if (isResult(task)) return task;
  const text = noteOf(question, 'question', true);
  if (isResult(text)) return text;
  if (task.status !== 'claimed' || task.claimed_by !== by) {
    return refuse('not_claimer', `Only the member holding ${task.id} as claimed asks about it (it is ${task.status}${task.claimed_by === null ? '' : `, held by ${task.claimed_by}`}).`, { status: task.status });
  }
  const now = ctx.now();
  task.status = 'asked';
  task.question = text;
  logTask(task, { at: now, by, what: 'asked', note: text! });
  return succeed(`${task.id} is asked of the person; it stays yours, and the answer comes back to you.`, { task: taskView(state, task, now, ctx.isProcessAlive ?? JUDGE_BY_LEASE) });
}

/** The person answers an asked task: it is claimed again by the member that asked, with the answer. */
export function answerTask(state: State, by: string, id: unknown, answer: unknown, ctx: EngineCtx): ToolResult {
  const task = taskNamed(state, id);
  if (isResult(task)) return task;
  const text = noteOf(answer, 'answer', true);
  if (isResult(text)) return text;
  if (!isPersonMemberId(by)) return refuse('person_required', 'Only a person answers a task\'s question (`opencomms task answer ID TEXT`).');
  if (task.status !== 'asked') return refuse('not_asked', `${task.id} is ${task.status}, not waiting for an answer.`, { status: task.status });
  const now = ctx.now();
  task.status = 'claimed';
  task.answer = text;
  logTask(task, { at: now, by, what: 'answered', note: text! });
  return succeed(`${task.id} is answered and claimed again by ${task.claimed_by}.`, { task: taskView(state, task, now, ctx.isProcessAlive ?? JUDGE_BY_LEASE) });
}

/** The member who added a task (or a person) cancels it. Tasks waiting on it stay blocked and say so. */
export function cancelTask(state: State, by: string, id: unknown, note: unknown, ctx: EngineCtx): ToolResult {
  const task = taskNamed(state, id);
  if (isResult(task)) return task;
  const text = noteOf(note, 'note', false);
  if (isResult(text)) return text;
  if (!isOnBoard(task)) return refuse('task_closed', `${task.id} is already ${task.status}.`, { status: task.status });
  if (task.added_by !== by && !isPersonMemberId(by)) return refuse('not_adder', `${task.id} was added by ${task.added_by}; only it or a person cancels it.`, { added_by: task.added_by });
  const now = ctx.now();
  task.status = 'cancelled';
  task.closed_at = now;
  task.claimed_by = null;
  task.claimed_at = null;
  logTask(task, { at: now, by, what: 'cancelled', ...(text === null ? {} : { note: text }) });
  return succeed(`${task.id} is cancelled.`, { task: taskView(state, task, now, ctx.isProcessAlive ?? JUDGE_BY_LEASE) });
}

export interface ListTasksInput { view?: unknown; id?: unknown; limit?: unknown }

/** The board: ready first by priority then age; with `id`, one task in full with its log. */
export function listTasks(state: State, memberId: string | undefined, input: ListTasksInput, now: number, isAlive = JUDGE_BY_LEASE): ToolResult {
  if (input.id !== undefined && input.id !== null) {
    const task = taskNamed(state, input.id);
    if (isResult(task)) return task;
    return succeed(`${task.id}: ${task.status}.`, { task: taskView(state, task, now, isAlive, true) });
  }
  const view = input.view ?? 'ready';
  if (typeof view !== 'string' || !TASK_LIST_VIEWS.includes(view as TaskListView)) return badArgument('view', `view must be one of ${TASK_LIST_VIEWS.join(', ')}.`);
  const limit = input.limit ?? 50;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_OPEN_TASKS) return badArgument('limit', `limit must be a whole number from 1 to ${MAX_OPEN_TASKS}.`);
  const all = listedTasks(state, view as TaskListView, memberId);
  const counts = boardCounts(state);
  const retired = view === 'all' ? retiredCount(state) : 0;
  return succeed(`${all.length} task(s) in view ${view}; the board has ${counts.ready} ready, ${counts.claimed} claimed, ${counts.asked} asked, ${counts.blocked} blocked.`
    + `${retired > 0 ? ` ${retired} more left the board for its history.` : ''}`,
  { tasks: all.slice(0, limit).map((t) => taskView(state, t, now, isAlive)), counts, ...(all.length > limit ? { more: all.length - limit } : {}), ...(view === 'all' ? { retired } : {}) });
}
