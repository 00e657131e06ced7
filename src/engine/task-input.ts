// Checking what a caller gives the board: a new task's fields, and the notes,
// results, questions and answers of the other actions. A bad value is a
// refusal naming the argument, and nothing changes.
import { normalizePattern } from './globs';
import { refuse } from './reasons';
import { findTask } from './task-board';
import {
  DEFAULT_TASK_PRIORITY, MAX_TASK_AFTER, MAX_TASK_DETAILS_CHARS, MAX_TASK_NOTE_CHARS, MAX_TASK_PATHS, MAX_TASK_PRIORITY, MAX_TASK_TITLE_CHARS,
  type Task,
} from './task-types';
import { findChannel } from './validate';
import type { State, ToolResult } from './types';

export interface AddTaskInput {
  title: unknown;
  details?: unknown;
  priority?: unknown;
  after?: unknown;
  paths?: unknown;
  for?: unknown;
  channel?: unknown;
  /** The project root the paths are relative to (absolute, `/`-separated). */
  project_dir: string;
}

export function badArgument(argument: string, message: string): ToolResult {
  return refuse('invalid_argument', message, { argument });
}

/** A note, result, question or answer: trimmed text, or null; too long is refused. */
export function noteOf(value: unknown, argument: string, required: boolean): string | null | ToolResult {
  if (value === undefined || value === null) {
    return required ? badArgument(argument, `${argument} is required: give it as text.`) : null;
  }
  if (typeof value !== 'string') return badArgument(argument, `${argument} must be a string.`);
  const text = value.trim();
  if (text === '') return required ? badArgument(argument, `${argument} is empty: give it as text.`) : null;
  if (text.length > MAX_TASK_NOTE_CHARS) return badArgument(argument, `${argument} is longer than ${MAX_TASK_NOTE_CHARS} characters.`);
  return text;
}

export function isResult(value: unknown): value is ToolResult {
  return typeof value === 'object' && value !== null && 'ok' in value;
}

/** The fields a new task takes from its input. */
export type TaskFields = Omit<Task, 'id' | 'status' | 'added_by' | 'added_at' | 'claimed_by' | 'claimed_at' | 'question' | 'answer' | 'result' | 'closed_at' | 'log'>;

/** Checks every field of a new task, or the refusal naming the first bad one. */
export function taskFields(state: State, input: AddTaskInput): TaskFields | ToolResult {
  if (typeof input.title !== 'string' || input.title.trim() === '') return badArgument('title', 'title is required: say in a line what is to be done.');
  const title = input.title.replace(/\s+/g, ' ').trim();
  if (title.length > MAX_TASK_TITLE_CHARS) return badArgument('title', `title is longer than ${MAX_TASK_TITLE_CHARS} characters: put the rest in details.`);
  let details: string | null = null;
  if (input.details !== undefined && input.details !== null) {
    if (typeof input.details !== 'string') return badArgument('details', 'details must be a string.');
    if (input.details.length > MAX_TASK_DETAILS_CHARS) return badArgument('details', `details is longer than ${MAX_TASK_DETAILS_CHARS} characters.`);
    details = input.details.trim() === '' ? null : input.details;
  }
  const priority = input.priority ?? DEFAULT_TASK_PRIORITY;
  if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0 || priority > MAX_TASK_PRIORITY) {
    return badArgument('priority', `priority must be a whole number from 0 (most urgent) to ${MAX_TASK_PRIORITY}.`);
  }
  const after = input.after ?? [];
  if (!Array.isArray(after) || after.some((id) => typeof id !== 'string')) return badArgument('after', 'after must be a list of task ids such as ["t1", "t2"].');
  if (after.length > MAX_TASK_AFTER) return badArgument('after', `after names more than ${MAX_TASK_AFTER} tasks.`);
  const unknown = (after as string[]).filter((id) => findTask(state, id.trim()) === undefined);
  if (unknown.length > 0) return refuse('unknown_task', `after names no task on this board: ${unknown.join(', ')}. A task waits only on tasks added before it.`, { unknown });
  const paths = input.paths ?? [];
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) return badArgument('paths', 'paths must be a list of files or globs such as ["src/a.ts", "src/**/*.ts"].');
  if (paths.length > MAX_TASK_PATHS) return badArgument('paths', `paths names more than ${MAX_TASK_PATHS} files or globs: name a folder glob instead.`);
  const patterns: string[] = [];
  for (const raw of paths as string[]) {
    const normalized = normalizePattern(raw, input.project_dir);
    if (typeof normalized !== 'string') {
      return refuse('invalid_path', `paths: "${normalized.path}" ${normalized.problem}. Give files or globs inside the project, such as src/**/*.ts.`, { paths: [normalized] });
    }
    if (!patterns.includes(normalized)) patterns.push(normalized);
  }
  let forWhom: string | null = null;
  if (input.for !== undefined && input.for !== null) {
    if (typeof input.for !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(input.for.trim())) {
      return badArgument('for', 'for must be a role or a member id (letters, digits, _ . -, at most 64).');
    }
    forWhom = input.for.trim();
  }
  let channel: string | null = null;
  if (input.channel !== undefined && input.channel !== null) {
    if (typeof input.channel !== 'string') return badArgument('channel', 'channel must be a string.');
    const found = findChannel(state, input.channel);
    if (!found) return refuse('channel_not_found', `Channel "${input.channel}" does not exist; name a channel of this project or leave channel out.`);
    channel = found.name;
  }
  return { title, details, priority, after: [...new Set((after as string[]).map((id) => id.trim()))], paths: patterns, for: forWhom, channel };
}

