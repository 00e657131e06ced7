// The changes of the hooks room's callers (see table.ts): what a host hook
// records for its session (a problem, edit collisions, a shell call's writes
// into held files, the session's end) and the Stop waiter's lease
// (hooks-wait.ts). A hook is a short-lived process: what it reads from files
// (edit logs, shell records) and from its host's event is worked out before
// the change and comes in the arguments.
import type { ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { noteCollisions, type EditRecord } from '../collisions';
import { addError } from '../error-log';
import { isBoundElsewhere, isHookSession, isResumable, memberOfSession, type HookSession } from '../hook-session';
import { markStale } from '../identity';
import { recordMemberError } from '../spawn-leases';
import { JUDGE_BY_LEASE } from '../presence';
import { noteShellWrite } from '../shell-writes';
import { isText, isTextList, malformed, type Answer, isArgsObject } from './args';
import { waitChanges } from './hooks-wait';
import { hookMailChanges } from './hooks-mail';

// Arguments may come from a file another process wrote: their shapes are checked again.

/** A problem a hook met, for the error log; scoped to `member` when it is that member's (status and doctor show it there). */
const hook_note_problem: ChangeFn<{ message: string; member?: string | null }> = (state, a, ctx): ToolResult => {
  if (!isArgsObject(a) || !isText(a.message) || !(a.member === undefined || a.member === null || isText(a.member))) return malformed('hook problem');
  if (isText(a.member)) recordMemberError(state, a.member, ctx.now(), a.message);
  else addError(state, ctx.now(), a.message);
  return { ok: true, message: 'recorded' };
};

/** `member` edited `files`; `edits` are its peers' recent edits of them, from their edit logs. */
export interface HookCollisionArgs {
  member: string;
  files: string[];
  edits: EditRecord[];
}

function isEditList(value: unknown): value is EditRecord[] {
  return Array.isArray(value) && value.every((e: unknown) => {
    const r = e as Partial<EditRecord> | null;
    return typeof r === 'object' && r !== null && isText(r.file) && isText(r.member_id) && typeof r.at === 'number';
  });
}

/** Queues the collision notices now due for the member's edits (judged again on the state the change meets). */
const hook_note_collisions: ChangeFn<HookCollisionArgs, Answer<{ queued: number }>> = (state, a, ctx) => {
  if (!isArgsObject(a) || !isText(a.member) || !isTextList(a.files) || !isEditList(a.edits)) return malformed('edit collision');
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  let queued = 0;
  for (const file of a.files) queued += noteCollisions(state, a.member, file, a.edits, ctx, isAlive);
  return { ok: true, message: `${queued} collision notice(s)`, data: { queued } };
};

/** A held file a shell call changed, and the members holding it exclusively, each in its reservation's channel. */
export interface ShellChangedFile {
  file: string;
  holders: { holder: string; channel: string }[];
}

/** A shell call's writes into files others hold: its writer (member null for a session with none yet, named by host) and the files. */
export interface HookShellWritesArgs {
  writer: { member: string | null; host: string };
  changed: ShellChangedFile[];
}

function isWriter(value: unknown): value is HookShellWritesArgs['writer'] {
  const w = value as Partial<HookShellWritesArgs['writer']> | null;
  return typeof w === 'object' && w !== null && (w.member === null || isText(w.member)) && isText(w.host);
}

function isHolder(value: unknown): boolean {
  const h = value as { holder?: unknown; channel?: unknown } | null;
  return typeof h === 'object' && h !== null && isText(h.holder) && isText(h.channel);
}

function isChangedList(value: unknown): value is ShellChangedFile[] {
  return Array.isArray(value) && value.every((c: unknown) => {
    const f = c as Partial<ShellChangedFile> | null;
    return typeof f === 'object' && f !== null && isText(f.file) && Array.isArray(f.holders) && f.holders.every(isHolder);
  });
}

/** Tells each holder of a changed file, with a `system` message in its reservation's channel. */
const hook_shell_writes: ChangeFn<HookShellWritesArgs, Answer<{ told: number }>> = (state, a, ctx) => {
  if (!isArgsObject(a) || !isWriter(a.writer) || !isChangedList(a.changed)) return malformed('shell write');
  const by = { memberId: a.writer.member ?? undefined, host: a.writer.host };
  let told = 0;
  for (const { file, holders } of a.changed) told += noteShellWrite(state, by, file, holders, ctx).length;
  return { ok: true, message: `${told} holder(s) told`, data: { told } };
};

/** A host session ended: `member` is the member it spoke for, found by `session` (found_by_session) or named by OPENCOMMS_MEMBER_ID. */
export interface HookEndSessionArgs {
  member: string;
  session: HookSession;
  found_by_session: boolean;
}

/**
 * Marks the member stale (sends to it are refused), unless, as the state is
 * now, its session is another member's, a newer session of it took over, or
 * spawn-resume reaches it. Those answer ok with nothing changed.
 */
const hook_end_session: ChangeFn<HookEndSessionArgs> = (state, a, ctx): ToolResult => {
  if (!isArgsObject(a) || !isText(a.member) || !isHookSession(a.session) || typeof a.found_by_session !== 'boolean') return malformed('session end');
  if (a.found_by_session && memberOfSession(state, a.session) !== a.member) return { ok: true, message: 'moved' };
  if (isBoundElsewhere(state, a.member, a.session.hosts, a.session.session_id)) return { ok: true, message: 'moved' };
  if (isResumable(state, a.member)) return { ok: true, message: 'resumable' };
  markStale(state, a.member, ctx.now());
  return { ok: true, message: 'stale' };
};

export const hooksChanges = {
  hook_note_problem, hook_note_collisions, hook_shell_writes, hook_end_session,
  ...waitChanges,
  ...hookMailChanges,
};
