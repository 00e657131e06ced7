// `opencomms task …`: the board for the person at the terminal (INTERFACE section 8).
// Views (the ready list, list, show) need nothing; every change is a person's
// action, refused inside an agent host, and speaks as person-<user>, who may
// close, release, cancel and answer any task. Every text a member wrote is
// made harmless for the terminal before it is printed.
import * as engine from '../engine';
import { openStore, type StoreSelection } from '../store';
import { printable, printableBlock, terminalSafeJson } from '../watch/format';
import type { TaskFlags } from './args';
import { UsageError } from './args';
import { personId, type PersonHere } from './person';
import { realPatterns } from '../tools/reserve-paths';
import type { PersonTaskAction } from '../engine/changes/cli';

export interface TaskOptions {
  projectDir: string;
  selection?: StoreSelection;
  env: NodeJS.ProcessEnv;
  /** Whether a person action may run here, and from which terminal (checkPersonHere). */
  personHere: (command: string) => PersonHere;
  positionals: string[];
  flags: TaskFlags;
  json: boolean;
  write: (text: string) => void;
  warn: (text: string) => void;
}

const ACTIONS = ['list', 'show', 'add', 'done', 'release', 'cancel', 'answer'] as const;
type PersonAction = (typeof ACTIONS)[number];

/** The action and its operands, or a usage error naming what is missing. */
function parseAction(positionals: string[], flags: TaskFlags): { action: PersonAction; id?: string; text?: string } {
  const [first, second, third] = positionals;
  const action = (first ?? 'list') as PersonAction;
  if (!ACTIONS.includes(action)) throw new UsageError(`task ${first}: use one of ${ACTIONS.join(', ')} (see opencomms --help).`);
  const isAdd = action === 'add';
  const allowed = isAdd ? ['details', 'priority', 'after', 'paths', 'for', 'channel'] : action === 'done' ? ['result'] : action === 'list' ? ['all'] : [];
  for (const [flag, value] of Object.entries(flags)) {
    if (value !== undefined && value !== false && !allowed.includes(flag)) throw new UsageError(`task ${action} does not take --${flag}.`);
  }
  const needs = (what: string, value: string | undefined): string => {
    if (value === undefined || value.trim() === '') throw new UsageError(`task ${action} needs ${what}.`);
    return value;
  };
  if (action === 'list') {
    if (second !== undefined) throw new UsageError(`Unexpected argument "${second}": task list takes --all, not an id (task show ID shows one).`);
    return { action };
  }
  if (isAdd) {
    if (third !== undefined) throw new UsageError('task add takes the title as one argument: quote it.');
    return { action, text: needs('a title (quoted)', second) };
  }
  const id = needs('a task id such as t3', second);
  if (action === 'answer') return { action, id, text: needs('the answer (quoted)', third) };
  if (third !== undefined) throw new UsageError(`Unexpected argument "${third}" for task ${action}.`);
  return { action, id };
}

function priorityOf(text: string | undefined): number | undefined | string {
  if (text === undefined) return undefined;
  return /^[0-9]+$/.test(text.trim()) ? Number(text.trim()) : text;
}

/** The board action the command line asks for, as the engine's person_task takes it (paths resolved here, against the disk). */
function taskAction(parsed: { action: PersonAction; id?: string; text?: string }, options: TaskOptions): PersonTaskAction {
  const f = options.flags;
  switch (parsed.action) {
    case 'add': {
      const paths = f.paths === undefined ? undefined : realPatterns(f.paths, options.projectDir);
      return {
        action: 'add',
        task: {
          title: parsed.text, details: f.details, priority: priorityOf(f.priority),
          after: f.after === undefined ? undefined : f.after.split(',').map((id) => id.trim()).filter((id) => id !== ''),
          paths: paths?.paths, for: f.for, channel: f.channel, project_dir: paths?.projectDir ?? options.projectDir,
        },
      };
    }
    case 'done': return { action: 'done', id: parsed.id!, result: f.result };
    case 'release': case 'cancel': return { action: parsed.action, id: parsed.id! };
    default: return { action: 'answer', id: parsed.id!, answer: parsed.text! };
  }
}

/** Runs one task command; resolves to the exit code. */
export async function runTask(options: TaskOptions): Promise<number> {
  const parsed = parseAction(options.positionals, options.flags);
  const isView = parsed.action === 'list' || parsed.action === 'show';
  let terminal: engine.PersonTerminal | undefined;
  if (!isView) {
    const here = options.personHere(`task ${parsed.action}`);
    if (!here.ok) {
      options.warn(`opencomms: ${here.problem}`);
      return 1;
    }
    terminal = here.terminal;
  }
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  try {
    if (isView) return await showBoard(store, parsed, options);
    const me = personId(options.env);
    const result = await store.mutate('person_task', { person_id: me, terminal: terminal!, ...taskAction(parsed, options) });
    if (!result.ok) {
      options.warn(`opencomms: ${printable(result.message, 600)} (reason: ${String(result.data?.reason)})`);
      return 1;
    }
    options.write(options.json ? `${terminalSafeJson(result.data ?? {}, 2)}\n` : `${printable(result.message, 600)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

async function showBoard(store: ReturnType<typeof openStore>, parsed: { action: PersonAction; id?: string }, options: TaskOptions): Promise<number> {
  const view: engine.TaskListView = options.flags.all ? 'all' : options.positionals.length === 0 ? 'ready' : 'open';
  const result = await store.readLatest((state, ctx) => engine.listTasks(state, undefined,
    parsed.action === 'show' ? { id: parsed.id } : { view, limit: engine.MAX_OPEN_TASKS }, ctx.now(), ctx.isProcessAlive ?? engine.JUDGE_BY_LEASE));
  if (!result.ok && result.data?.retired === true) return showRetired(store, parsed.id!.trim(), options);
  if (!result.ok) {
    options.warn(`opencomms: ${printable(result.message, 600)} (reason: ${String(result.data?.reason)})`);
    return 1;
  }
  if (options.json) {
    const retiredField = typeof result.data!.retired === 'number' ? { retired: result.data!.retired } : {};
    options.write(`${terminalSafeJson(parsed.action === 'show' ? { task: result.data!.task } : { tasks: result.data!.tasks, ...retiredField }, 2)}\n`);
    return 0;
  }
  if (parsed.action === 'show') {
    options.write(`${describeTask(result.data!.task as Record<string, unknown>, true)}\n`);
    return 0;
  }
  const tasks = result.data!.tasks as Array<Record<string, unknown>>;
  const counts = result.data!.counts as engine.BoardCounts;
  const retiredNote = typeof result.data!.retired === 'number' && result.data!.retired > 0 ? ` ${result.data!.retired} left the board for its history.` : '';
  const head = `Board: ${counts.ready} ready, ${counts.claimed} claimed, ${counts.asked} asked, ${counts.blocked} blocked.${retiredNote}`;
  const empty = view === 'ready' ? 'No task is ready.' : 'No task on the board.';
  options.write(`${[head, ...(tasks.length === 0 ? [empty] : tasks.map((t) => describeTask(t, false)))].join('\n')}\n`);
  return 0;
}

// A task that left the board, read from the board's history (a bounded scan of its newest part).
async function showRetired(store: ReturnType<typeof openStore>, id: string, options: TaskOptions): Promise<number> {
  const where = store.boardHistory.where;
  const task = await store.boardHistory.find(id);
  if (task === undefined) {
    options.warn(`opencomms: ${printable(id, 16)} left the board for its history (${printable(where, 300)}), but it is not among the tasks read there. (reason: unknown_task)`);
    return 1;
  }
  const view = await store.readLatest((state, ctx) => engine.taskView(state, task, ctx.now(), ctx.isProcessAlive ?? engine.JUDGE_BY_LEASE, true));
  if (options.json) {
    options.write(`${terminalSafeJson({ task: { ...view, history: where } }, 2)}\n`);
    return 0;
  }
  const left = task.closed_at === null ? '' : ` (closed ${engine.formatIsoTime(task.closed_at)})`;
  options.write(`${describeTask(view, true)}\n${task.id} left the board for its history${left}: ${printable(where, 300)}\n`);
  return 0;
}

/** One task on one line (or, with its log, in full); every written part through printable. */
function describeTask(t: Record<string, unknown>, full: boolean): string {
  const state = t.status === 'open' ? (t.ready ? 'ready' : 'blocked') : String(t.status);
  const who = t.claimed_by === null ? '' : ` by ${printable(String(t.claimed_by), 64)}`;
  const away = typeof t.claimer_away_since === 'number' ? ` (away since ${engine.formatIsoTime(t.claimer_away_since)})` : '';
  const line = `${String(t.id)} [${state}${who}${away}] p${String(t.priority)} ${printable(String(t.title), 200)}`
    + `${(t.paths as string[]).length > 0 ? `  paths: ${(t.paths as string[]).map((p) => printable(p, 80)).join(' ')}` : ''}`;
  if (!full) return line;
  const lines = [line];
  if (typeof t.details === 'string') lines.push(printableBlock(t.details));
  if (typeof t.question === 'string') lines.push(`question: ${printable(t.question, 2000)}`);
  if (typeof t.answer === 'string') lines.push(`answer: ${printable(t.answer, 2000)}`);
  if (typeof t.result === 'string') lines.push(`result: ${printable(t.result, 2000)}`);
  for (const e of t.log as engine.TaskLogEntry[]) {
    lines.push(`  ${engine.formatIsoTime(e.at)} ${printable(e.by, 64)} ${e.what}${e.note === undefined ? '' : `: ${printable(e.note, 400)}`}`);
  }
  return lines.join('\n');
}
