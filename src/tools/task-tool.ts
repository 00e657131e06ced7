// opencomms_task: the board as one tool (INTERFACE section 8). Any pinned session
// uses it, member of a channel or not; each action is one engine change under
// the store's lock (list reads without it). What a member or the person wrote
// on a task reaches the model framed as peer data.
import * as engine from '../engine';
import { defineTool, WRITE_TOOL, type CallerTool } from './define-tool';
import { realPatterns } from './reserve-paths';
import { objectSchema } from './schema';
import type { ToolServices } from './services';

const NOTE_ARG = { type: 'string', maxLength: engine.MAX_TASK_NOTE_CHARS } as const;

const TASK_SCHEMA = objectSchema({
  action: { type: 'string', enum: engine.TASK_TOOL_ACTIONS },
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
        const pinned = s.identities.pin(caller);
        if ('refusal' in pinned) return pinned.refusal;
        return s.store.readLatest((state, ctx) =>
          engine.framedTaskReply(engine.listTasks(state, pinned.memberId, a, ctx.now(), ctx.isProcessAlive ?? engine.JUDGE_BY_LEASE), state, ctx.nonce));
      }
      // Paths are resolved here against the files they reach (reserve-paths.ts); the action is the engine change `task_action`.
      const real = Array.isArray(a.paths) ? realPatterns(a.paths, s.options.projectDir) : undefined;
      return s.identities.changeAsMember(caller, 'task_action', { ...a, paths: real?.paths, project_dir: real?.projectDir ?? s.options.projectDir });
    },
  });
}
