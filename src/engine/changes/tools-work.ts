// The pull and the task board as changes of a member: a pull hands the
// member's mail to the calling process (in flight until its reply is written),
// and each board action but list is one change.
import type { DeliveryOwner, EngineCtx, State, ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { JUDGE_BY_LEASE } from '../presence';
import { pullMessages } from '../pull';
import { framedTaskReply } from '../task-board';
import { TASK_TOOL_ACTIONS, type TaskToolAction } from '../task-types';
import { addTask, askTask, cancelTask, claimTask, finishTask, listTasks, nextTask, releaseTask } from '../tasks';
import { memberChange, type MemberArgs } from './member-change';
import { malformed } from './args';

/** A pull by this process (pid, host), which holds the mail for `lease_ms` while its reply is written. */
export interface MailPullArgs extends MemberArgs {
  limit?: number | null;
  pid: number;
  host: string;
  lease_ms: number;
}

/** What `mail_pull` answers: the ids handed over and the owner record written on them (absent when refused). */
export type MailPullResult = ToolResult & { data?: Record<string, unknown> & { message_ids?: string[]; owner?: DeliveryOwner } };

/**
 * Whether another delivery's owner still runs, by the applying process's own
 * check of recorded pids (the same from any process of this machine); an
 * owner on another machine is left to its lease (isAbandonedDelivery).
 */
function ownerJudge(ctx: EngineCtx): (owner: DeliveryOwner) => boolean {
  return (owner) => ctx.isProcessAlive?.({ pid: owner.pid, machine: owner.host, start: null, kind: 'server', renewed_at: 0, until: owner.lease_until }) ?? true;
}

const mail_pull: ChangeFn<MailPullArgs, MailPullResult> = memberChange('pull', 'in_channel', {
  limit: 'number?', pid: 'number', host: 'text', lease_ms: 'number',
}, (state, a, ctx): MailPullResult => {
  const owner: DeliveryOwner = { pid: a.pid, host: a.host, lease_until: ctx.now() + a.lease_ms };
  const pulled = pullMessages(state, a.member, { channel: a.channel, limit: a.limit, owner, isOwnerAlive: ownerJudge(ctx) }, ctx);
  return pulled.ok ? { ...pulled, data: { ...pulled.data, owner } } : pulled;
});

/** One board action of a member; the engine checks each field the action reads. `paths` are resolved against `project_dir`. */
export interface TaskActionArgs extends MemberArgs {
  action: TaskToolAction;
  title?: unknown;
  details?: unknown;
  priority?: unknown;
  after?: unknown;
  paths?: string[] | null;
  for?: unknown;
  id?: unknown;
  view?: unknown;
  limit?: unknown;
  result?: unknown;
  note?: unknown;
  question?: unknown;
  project_dir: string;
}

function runAction(state: State, me: string, a: TaskActionArgs, ctx: EngineCtx): ToolResult {
  switch (a.action) {
    case 'add':
      return addTask(state, me, {
        title: a.title, details: a.details, priority: a.priority, after: a.after, paths: a.paths ?? undefined, for: a.for, channel: a.channel,
        project_dir: a.project_dir,
      }, ctx);
    case 'next': return nextTask(state, me, ctx);
    case 'claim': return claimTask(state, me, a.id, ctx);
    case 'done': return finishTask(state, me, a.id, a.result, ctx);
    case 'release': return releaseTask(state, me, a.id, a.note, ctx);
    case 'ask': return askTask(state, me, a.id, a.question, ctx);
    case 'cancel': return cancelTask(state, me, a.id, a.note, ctx);
    default: return listTasks(state, me, a, ctx.now(), ctx.isProcessAlive ?? JUDGE_BY_LEASE);
  }
}

// What a member or the person wrote on a task reaches the model framed as peer data.
const task_action: ChangeFn<TaskActionArgs> = memberChange('task', 'anywhere', { action: 'text', paths: 'texts?', project_dir: 'text' }, (state, a, ctx) => {
  if (!(TASK_TOOL_ACTIONS as readonly string[]).includes(a.action)) return malformed('task');
  return framedTaskReply(runAction(state, a.member, a, ctx), state, ctx.nonce);
});

export const workToolChanges = { mail_pull, task_action };
