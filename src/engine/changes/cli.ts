// The changes of the cli room's callers (see table.ts): what a person does
// from a terminal (say, pause and resume, a reservation's release, the task
// board), run by the commands and by the keys of `opencomms watch` alike, and
// the records a server's host door keeps of its rings.
import type { DeliveryOwner, EngineCtx, HostDoor, State, ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { isPersonMemberId, personTerminalOf } from '../person';
import { recordPersonAction, type PersonActor } from '../person-log';
import { personRead, personRelease, personSay, personSetPause, type PersonMail, type PersonSayInput } from '../person-actions';
import { isHolderList, judgeByGone, type HolderRef } from '../gone-holders';
import type { HeldReservation, ReleaseTarget } from '../reservation-admin';
import { JUDGE_BY_LEASE } from '../presence';
import { clearRung, markRung } from '../arrival';
import { markUnwoken } from '../unwoken';
import { recordMemberError } from '../spawn-leases';
import { addTask, answerTask, cancelTask, finishTask, releaseTask } from '../tasks';
import type { AddTaskInput } from '../task-input';
import { isText, isTextList, malformed } from './args';

// Arguments may come from a file another process wrote: their shapes are checked again (args.ts).
const isOptionalText = (value: unknown): boolean => value === undefined || value === null || typeof value === 'string';
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isDoor = (value: unknown): value is HostDoor => value === 'inbox' || value === 'codex_queue';

/** The person member and the terminal it acts from, as the arguments name them (the terminal with only its own fields); undefined when they do not. */
function actorOf(a: PersonActor): PersonActor | undefined {
  if (typeof a !== 'object' || a === null || !isPersonMemberId(a.person_id)) return undefined;
  const terminal = personTerminalOf(a.terminal);
  return terminal === undefined ? undefined : { person_id: a.person_id, terminal };
}

/** What `person_say` answers: the ids of the messages sent (and the role taken on a first say). */
export type PersonSayResult = ToolResult & { data?: Record<string, unknown> & { message_ids?: string[]; joined_as?: string } };

const person_say: ChangeFn<PersonSayInput, PersonSayResult> = (state, a, ctx) => {
  const actor = actorOf(a);
  if (actor === undefined || !isText(a.channel) || !isText(a.content) || !isText(a.project_id) || !isText(a.worktree)
    || ![a.role, a.type, a.reply_to, a.to].every(isOptionalText)) return malformed('say');
  return personSay(state, { ...a, ...actor }, ctx);
};

/**
 * A person's read: the reading process (`owner`, its lease `lease_ms` long from
 * the change's time), and the holders of in-flight mail it judged gone.
 */
export type PersonReadArgs = PersonActor & { channel?: string | null; owner: { pid: number; host: string }; lease_ms: number; gone: HolderRef[] };

/** What `person_read` answers: the mail handed over, how much still waits, and the owner it went in flight to. */
export type PersonReadResult = ToolResult & { data?: Record<string, unknown> & { messages?: PersonMail[]; remaining?: number; owner?: DeliveryOwner } };

const person_read: ChangeFn<PersonReadArgs, PersonReadResult> = (state, a, ctx) => {
  const actor = actorOf(a);
  const reader = a?.owner as Partial<PersonReadArgs['owner']> | undefined;
  if (actor === undefined || !isOptionalText(a.channel) || typeof reader !== 'object' || reader === null || typeof reader.pid !== 'number'
    || !isText(reader.host) || !isTime(a.lease_ms) || !isHolderList(a.gone)) return malformed('read');
  const owner: DeliveryOwner = { pid: reader.pid, host: reader.host, lease_until: ctx.now() + a.lease_ms };
  const result = personRead(state, actor.person_id, { channel: a.channel ?? null, terminal: actor.terminal, owner, isOwnerAlive: judgeByGone(a.gone) }, ctx);
  return result.ok ? { ...result, data: { ...result.data, owner } } : result;
};

export type PersonPauseArgs = PersonActor & { channel: string; paused: boolean };

const person_set_pause: ChangeFn<PersonPauseArgs> = (state, a, ctx) => {
  const actor = actorOf(a);
  if (actor === undefined || !isText(a.channel) || typeof a.paused !== 'boolean') return malformed('pause');
  return personSetPause(state, { ...actor, channel: a.channel, paused: a.paused }, ctx);
};

export type PersonReleaseArgs = PersonActor & { target: ReleaseTarget };

/** What `person_release` answers: the reservations it released. */
export type PersonReleaseResult = ToolResult & { data?: Record<string, unknown> & { released?: HeldReservation[] } };

function isReleaseTarget(target: ReleaseTarget): boolean {
  if (typeof target !== 'object' || target === null) return false;
  return 'id' in target ? isText(target.id) : isText(target.member_id);
}

// Liveness is the store's own check of recorded processes: the same from whichever local process applies it.
const person_release: ChangeFn<PersonReleaseArgs, PersonReleaseResult> = (state, a, ctx) => {
  const actor = actorOf(a);
  if (actor === undefined || !isReleaseTarget(a.target)) return malformed('release');
  const target: ReleaseTarget = 'id' in a.target ? { id: a.target.id } : { member_id: a.target.member_id };
  return personRelease(state, target, actor, ctx, ctx.isProcessAlive ?? JUDGE_BY_LEASE);
};

/** A person's action on the task board (`opencomms task …`). */
export type PersonTaskAction =
  | { action: 'add'; task: AddTaskInput }
  | { action: 'done'; id: string; result?: string }
  | { action: 'release' | 'cancel'; id: string }
  | { action: 'answer'; id: string; answer: string };

export type PersonTaskArgs = PersonActor & PersonTaskAction;

function isTaskAction(a: PersonTaskArgs): boolean {
  if (a.action === 'add') return typeof a.task === 'object' && a.task !== null && isText(a.task.project_dir);
  if (!isText(a.id)) return false;
  if (a.action === 'done') return isOptionalText(a.result);
  if (a.action === 'answer') return isText(a.answer);
  return a.action === 'release' || a.action === 'cancel';
}

function applyTaskAction(state: State, me: string, a: PersonTaskAction, ctx: EngineCtx): ToolResult {
  switch (a.action) {
    case 'add': return addTask(state, me, a.task, ctx);
    case 'done': return finishTask(state, me, a.id, a.result, ctx);
    case 'release': return releaseTask(state, me, a.id, null, ctx);
    case 'cancel': return cancelTask(state, me, a.id, null, ctx);
    default: return answerTask(state, me, a.id, a.answer, ctx);
  }
}

const person_task: ChangeFn<PersonTaskArgs> = (state, a, ctx) => {
  const actor = actorOf(a);
  if (actor === undefined || !isTaskAction(a)) return malformed('task');
  const me = actor.person_id;
  const outcome = applyTaskAction(state, me, a, ctx);
  // Recorded with its terminal in the change it made (watch and the transcript show it).
  if (outcome.ok) {
    const id = (outcome.data?.task as { id?: string } | undefined)?.id ?? ('id' in a ? a.id : '');
    recordPersonAction(state, { at: ctx.now(), person_id: me, action: `task_${a.action}`, channel: null, detail: id, terminal: actor.terminal });
  }
  return outcome;
};

/** A host door's ring for `member_id`'s mail (`ids`), made at `at`; refused (nothing saved) when none of it still waits. */
export interface DoorRungArgs {
  member_id: string;
  ids: string[];
  door: HostDoor;
  at: number;
}

const host_door_rung: ChangeFn<DoorRungArgs> = (state, a) => {
  if (!isText(a.member_id) || !isTextList(a.ids) || !isDoor(a.door) || !isTime(a.at)) return malformed('host door');
  const marked = markRung(state, a.member_id, a.ids, a.door, a.at);
  return { ok: marked.length > 0, message: `${marked.length} rung` };
};

/** The ring made at `at` taken back from `ids`: the door refused after all. */
export interface DoorUnrungArgs {
  ids: string[];
  at: number;
}

const host_door_unrung: ChangeFn<DoorUnrungArgs> = (state, a) => {
  if (!isTextList(a.ids) || !isTime(a.at)) return malformed('host door');
  clearRung(state, a.ids, a.at);
  return { ok: true, message: 'ring taken back' };
};

/** Mail a door rang for `rings` times without waking its session; refused (nothing saved) when none of it still waits. */
export interface DoorUnwokenArgs extends DoorRungArgs {
  rings: number;
}

const host_door_unwoken: ChangeFn<DoorUnwokenArgs> = (state, a) => {
  if (!isText(a.member_id) || !isTextList(a.ids) || !isDoor(a.door) || !isTime(a.rings) || !isTime(a.at)) return malformed('host door');
  const marked = markUnwoken(state, a.member_id, a.ids, a.door, a.rings, a.at);
  return { ok: marked.length > 0, message: `${marked.length} marked as not woken` };
};

/** A door's problem, in `member_id`'s status (once, while it is the newest said of it). */
export interface DoorProblemArgs {
  member_id: string;
  message: string;
}

const host_door_problem: ChangeFn<DoorProblemArgs> = (state, a, ctx) => {
  if (!isText(a.member_id) || !isText(a.message)) return malformed('host door');
  recordMemberError(state, a.member_id, ctx.now(), a.message);
  return { ok: true, message: 'recorded' };
};

export const cliChanges = {
  person_say, person_read, person_set_pause, person_release, person_task,
  host_door_rung, host_door_unrung, host_door_unwoken, host_door_problem,
};
