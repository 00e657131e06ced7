// opencomms_task: the board as one tool (INTERFACE section 8). Any pinned session
// uses it, member of a channel or not; each action is one engine change under
// the store's lock (list reads without it). What a member or the person wrote
// on a task reaches the model framed as peer data.
import * as engine from '../engine';
import type { ToolResult } from '../engine';
import { defineTool, WRITE_TOOL, type CallerTool } from './define-tool';
import { realPatterns } from './reserve-paths';
import { objectSchema } from './schema';
import type { ToolServices } from './services';

const TASK_ACTIONS = ['add', 'list', 'next', 'claim', 'done', 'release', 'ask', 'cancel'] as const;
const NOTE_ARG = { type: 'string', maxLength: engine.MAX_TASK_NOTE_CHARS } as const;

const TASK_SCHEMA = objectSchema({
  action: { type: 'string', enum: TASK_ACTIONS },
  title: { type: 'string', maxLength: engine.MAX_TASK_TITLE_CHARS },
  details: { type: 'string', maxLength: engine.MAX_TASK_DETAILS_CHARS },
  priority: { type: 'integer', minimum: 0, maximum: engine.MAX_TASK_PRIORITY, description: '0 most urgent; 2 default' },
  after: { type: 'array', items: { type: 'string', maxLength: 16 }, maxItems: engine.MAX_TASK_AFTER, description: 'ids it waits on' },
  paths: { type: 'array', items: { type: 'string', maxLength: 512 }, maxItems: engine.MAX_TASK_PATHS, description: 'globs reserved for the claimer' },
  for: { type: 'string', maxLength: 64, description: 'role or member id' },
  channel: { type: 'string', maxLength: engine.MAX_CHANNEL_NAME_CHARS },
  id: { type: 'string', maxLength: 16 },
  view: { type: 'string', enum: engine.TASK_LIST_VIEWS },
  limit: { type: 'integer', minimum: 1, maximum: engine.MAX_OPEN_TASKS },
  result: NOTE_ARG,
  note: NOTE_ARG,
  question: NOTE_ARG,
}, ['action']);

/** A reply whose task (or tasks) carry their peer-written text framed. */
function framedReply(result: ToolResult, state: engine.State, nonce: () => string): ToolResult {
  const data = result.data;
  if (!data) return result;
  const frame = (view: unknown): unknown => {
    const id = (view as { id?: unknown }).id;
    const task = typeof id === 'string' ? engine.findTask(state, id) : undefined;
    return task ? engine.framedTaskView(view as Record<string, unknown>, task, nonce) : view;
  };
  const framed: Record<string, unknown> = { ...data };
  if (data.task !== undefined) framed.task = frame(data.task);
  if (Array.isArray(data.tasks)) framed.tasks = data.tasks.map(frame);
  return { ...result, data: framed };
}

export function taskTool(s: ToolServices): CallerTool {
  return defineTool({
    name: 'opencomms_task',
    title: 'Task board',
    description: 'Shared work: add, list (id: one in full), next (take the best ready task, or be woken when one is), claim/done/release/ask (the person)/cancel by id. '
      + 'A claim lasts while your session runs.',
    inputSchema: TASK_SCHEMA,
    annotations: WRITE_TOOL,
    handler: (a, caller) => {
      if (a.action === 'list') {
        const pinned = s.pin(caller);
        if ('refusal' in pinned) return pinned.refusal;
        return s.store.readLatest((state, ctx) =>
          framedReply(engine.listTasks(state, pinned.memberId, a, ctx.now(), ctx.isProcessAlive ?? engine.JUDGE_BY_LEASE), state, ctx.nonce));
      }
      const paths = Array.isArray(a.paths) ? realPatterns(a.paths, s.options.projectDir) : undefined;
      return s.asMember(caller, (state, me, ctx) => {
        const result = runAction(state, me, a, paths, s.options.projectDir, ctx);
        return framedReply(result, state, ctx.nonce);
      });
    },
  });
}

type TaskArgs = Parameters<Parameters<typeof defineTool<typeof TASK_SCHEMA>>[0]['handler']>[0];

function runAction(state: engine.State, me: string, a: TaskArgs, paths: { projectDir: string; paths: string[] } | undefined, projectDir: string, ctx: engine.EngineCtx): ToolResult {
  switch (a.action) {
    case 'add':
      return engine.addTask(state, me, {
        title: a.title, details: a.details, priority: a.priority, after: a.after, paths: paths?.paths, for: a.for, channel: a.channel,
        project_dir: paths?.projectDir ?? projectDir,
      }, ctx);
    case 'next': return engine.nextTask(state, me, ctx);
    case 'claim': return engine.claimTask(state, me, a.id, ctx);
    case 'done': return engine.finishTask(state, me, a.id, a.result, ctx);
    case 'release': return engine.releaseTask(state, me, a.id, a.note, ctx);
    case 'ask': return engine.askTask(state, me, a.id, a.question, ctx);
    case 'cancel': return engine.cancelTask(state, me, a.id, a.note, ctx);
    default: return engine.listTasks(state, me, a, ctx.now(), ctx.isProcessAlive ?? engine.JUDGE_BY_LEASE);
  }
}
