// The task board's records (INTERFACE section 8), as they live in State.board.
// PROTOCOL.md (5.8) documents every field.

export type TaskStatus = 'open' | 'claimed' | 'asked' | 'done' | 'cancelled';

/** One change of a task: who made it, when, and what it was. Kept for the task's whole life. */
export interface TaskLogEntry {
  at: number;
  /** A member id, a person's member id, or `opencomms` for a change the board made by its rules. */
  by: string;
  what: 'added' | 'claimed' | 'released' | 'expired' | 'asked' | 'answered' | 'done' | 'cancelled';
  /** The note, question, answer or result given with the change (peer text), or why the board made it. */
  note?: string;
}

export interface Task {
  /** `t` and the task's number in the project, in the order made, never reused. */
  id: string;
  title: string;
  details: string | null;
  /** 0 most urgent … 3. */
  priority: number;
  /** Ids of earlier tasks this one waits on. */
  after: string[];
  /** Repo-relative globs the work will touch: reserved for the claimer while it holds the claim. */
  paths: string[];
  /** A role or member id who should take it, or null for anyone. */
  for: string | null;
  /** The channel where it is discussed, or null. */
  channel: string | null;
  status: TaskStatus;
  added_by: string;
  added_at: number;
  /** The member holding it while claimed or asked; null otherwise. */
  claimed_by: string | null;
  claimed_at: number | null;
  /** The question put to the person while asked, and the person's latest answer. */
  question: string | null;
  answer: string | null;
  result: string | null;
  /** When it was done or cancelled; null while on the board. */
  closed_at: number | null;
  log: TaskLogEntry[];
}

/** A member rung because a task became ready that it may take: its doors say so once. */
export interface TaskWake {
  at: number;
  task_id: string;
}

/** The project's board. Absent from a state that never had a task. */
export interface Board {
  /** The number the next task takes. */
  next_no: number;
  tasks: Record<string, Task>;
  /** Members whose `next` found nothing, and since when they wait. */
  waiting: Record<string, number>;
  /** Members rung for work whose doors have not said so yet. */
  wakes: Record<string, TaskWake>;
}

/** What the task tool (opencomms_task) does, by its `action` argument. */
export const TASK_TOOL_ACTIONS = ['add', 'list', 'next', 'claim', 'done', 'release', 'ask', 'cancel'] as const;
export type TaskToolAction = typeof TASK_TOOL_ACTIONS[number];

export const MAX_TASK_TITLE_CHARS = 200;
export const MAX_TASK_DETAILS_CHARS = 10_000;
export const MAX_TASK_NOTE_CHARS = 2_000;
export const MAX_TASK_AFTER = 20;
export const MAX_TASK_PATHS = 50;
export const MAX_OPEN_TASKS = 500;
export const DEFAULT_TASK_PRIORITY = 2;
export const MAX_TASK_PRIORITY = 3;
/** Done and cancelled tasks stay on the board this long, then leave it for the history. */
export const TASK_RETENTION_MS = 7 * 24 * 3600_000;
/** The digest a session start restates its claims in, at most this long. */
export const MAX_TASK_DIGEST_CHARS = 600;
/** The one notice a member waiting for work is rung with: no task text. */
export const TASK_READY_NOTICE = 'a task is ready: call opencomms_task with action next';
/** Who the board's own changes (a claim that expired) are logged as. */
export const BOARD_ACTOR = 'opencomms';
