// The hook runner: one host hook event on stdin, one JSON answer on stdout.
//
// Every host hook (Claude Code, Codex, Gemini CLI) runs `opencomms hook`.
// The common case, a prompt or tool call with no mail waiting, is answered
// `{}` from one lock-free read of state.json. Only when there is something to
// do (mail, abandoned in-flight mail, a stale mark, a binding) is the lock
// taken. Whatever goes wrong, the host gets `{}` and exit code 0: a hook must
// never break the session it runs in.
import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import {
  addError, findLinkedMember, hasReminderDue, hasSessionEnded, linkSession, markStale, needsLink, recordMemberError, reminderText, dueReminders, markReminded, type DeliveryOwner, type State, type ToolResult,
} from '../engine';
import { randomHex } from '../process/crypto';
import { listPins, openStore, StoreFault, type PinRecord, type Store, type StoreSelection } from '../store';
import { contextAnswer, EMPTY_ANSWER, guidanceAnswer, stopAnswer, type HookAnswer } from './answer';
import {
  bindablePins, bindEnvMember, bindPin, choosePinMessage, isEnvBindingStale, linkRefsOf, memberBySession, memberFromEnv, sessionRefsOf,
  type EnvMember,
} from './bind';
import {
  commitHookDelivery, hookOwner, membershipsOf, needsDelivery, prepareDelivery, requeueHookDelivery, type PreparedDelivery,
} from './deliver';
import { parseHookEvent, type HookEvent } from './events';
import { isAfterTool, noteEdits, reportShellWrites, shellChangesOf } from './post-tool';
import { filesWritten, judgedFiles, preToolAnswer, repoPath } from './pre-tool';
import { judgeWritesAndResets } from './reset-check';
import { recordHeldFiles, shellRecordKey } from './shell-check';
import { stateDirAnswer } from './state-dir-guard';
import { toolTargetsOf } from './tool-targets';
import { waitForMail, type WaitSignal } from './wait';
import { isHeadless, noteTurn } from './turn';

export { isHeadless } from './turn';

export interface HookOptions {
  /** --project or OPENCOMMS_PROJECT_DIR when given; otherwise the event's cwd, else `cwd`. */
  explicitProjectDir?: string;
  /** The store (--store / OPENCOMMS_STORE); the project's files when absent. */
  selection?: StoreSelection;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The whole of stdin. */
  input: string;
  /** --wait: wait for new mail (asyncRewake) instead of answering at once. */
  wait: boolean;
  timeoutMs?: number;
  /** --wait: the process that started the hook (the CLI passes process.ppid); when it is gone, the wait ends. */
  parentPid?: number;
  /** --wait: registers a signal handler, so a signal ends the wait with the waiter lease released. */
  onSignal?: (signal: WaitSignal, handler: () => void) => void;
  /** Writes the answer; a returned promise settles once the host can read all of it (or the write failed). */
  write: (text: string) => void | Promise<void>;
  warn: (text: string) => void;
}

/** What was decided, plus what to do once the answer has (or has not) gone out. */
interface Outcome {
  answer: HookAnswer;
  exitCode?: number;
  settle?: (wasSent: boolean) => Promise<void>;
}

const NOTHING: Outcome = { answer: EMPTY_ANSWER };

// The project's store, opened without touching it: the file store reads
// nothing and a Redis store connects only on its first call.
function storeOf(options: HookOptions, projectDir: string): Store {
  return openStore({ projectDir, selection: options.selection });
}

/**
 * Warns on stderr and, when the project has a state file, records the problem
 * in state.errors. When the trouble was the store itself (`cause` is a
 * StoreFault: lock timeout, unwritable file), recording would only fail or
 * wait out the lock a second time, so the warning is all there is.
 */
async function reportProblem(options: HookOptions, projectDir: string | undefined, message: string, cause?: unknown): Promise<void> {
  options.warn(`opencomms: ${message}`);
  if (projectDir === undefined || cause instanceof StoreFault) return;
  const store = storeOf(options, projectDir);
  if (!store.hasState()) return;
  try {
    await store.mutate((state) => {
      addError(state, Date.now(), message);
      return { ok: true, message: 'recorded' };
    });
  } catch {
    // The store itself is the trouble (unreadable, locked for too long); the warning above is all we can do.
  }
}

interface LockedResult extends ToolResult {
  memberId?: string;
  /** The open requests this answer reminds of (a Stop); marked as reminded once it is written. */
  reminderIds?: string[];
  owner?: DeliveryOwner;
  delivery?: PreparedDelivery;
}

/** Who the hook speaks for, as far as the lock-free snapshot can tell, or why it stops here. */
type Plan =
  | { kind: 'done'; outcome: Outcome; problem?: { memberId: string; message: string } }
  | { kind: 'member'; memberId: string }
  | { kind: 'pin'; pin: PinRecord };

function planMember(state: State, event: HookEvent, env: EnvMember, projectDir: string, now: number): Plan {
  const memberId = env.kind === 'id' ? env.memberId : memberBySession(state, event);
  if (memberId !== undefined) {
    if (membershipsOf(state, memberId).length === 0) {
      // A session's own member may simply not have joined yet; a member named
      // by OPENCOMMS_MEMBER_ID that is in no roster is a set-up mistake to show.
      return env.kind === 'id' ? { kind: 'done', outcome: NOTHING, problem: { memberId, message: notInRoster(memberId) } } : { kind: 'done', outcome: NOTHING };
    }
    const mustBind = env.kind === 'id' ? isEnvBindingStale(state, memberId, event) : mustLinkAtStart(state, event, memberId, now);
    const isReminderDue = event.kind === 'stop' && hasReminderDue(state, memberId);
    if (!mustBind && !isReminderDue && !needsDelivery(state, memberId, now)) return { kind: 'done', outcome: NOTHING };
    return { kind: 'member', memberId };
  }
  // Only a session that is starting may be linked to a pin, and only to the one pin that can be meant.
  if (!event.isSessionStart || env.kind === 'id' || event.sessionId === undefined) return { kind: 'done', outcome: NOTHING };
  const pins = bindablePins(state, listPins(projectDir), event);
  if (pins.length === 0) return { kind: 'done', outcome: NOTHING };
  if (pins.length > 1) return { kind: 'done', outcome: { answer: guidanceAnswer(choosePinMessage(pins)) } };
  return { kind: 'pin', pin: pins[0]! };
}

function notInRoster(memberId: string): string {
  return `hook: OPENCOMMS_MEMBER_ID=${memberId} is in no channel, so this session gets no mail. `
    + 'Remove OPENCOMMS_MEMBER_ID from the hook command (run `opencomms install <host>` again) so each session gets its own member, '
    + `or have the agent join a channel as ${memberId}.`;
}

/**
 * Records a problem scoped to a member where status and doctor show it, once:
 * the lock is taken only when the newest entry for that member says something else.
 */
async function recordOnce(store: Store, state: State, memberId: string, message: string): Promise<void> {
  const newest = [...state.errors].reverse().find((e) => e.member_id === memberId);
  if (newest?.message === message) return;
  await store.mutate((locked, ctx) => {
    recordMemberError(locked, memberId, ctx.now(), message);
    return { ok: true, message: 'recorded' };
  });
}

/** Whether a starting session's link to `memberId` must be written: missing, due a last_seen, or its member away. */
function mustLinkAtStart(state: State, event: HookEvent, memberId: string, now: number): boolean {
  return event.isSessionStart && needsLink(state, linkRefsOf(state, event, memberId), now);
}

/** Whether some session is already linked to `memberId`. */
function isLinked(state: State, memberId: string): boolean {
  return Object.values(state.session_links ?? {}).some((link) => link.member_id === memberId);
}

/** Step 1 under the lock: confirm who the member is (binding if planned), then drain and frame. */
function lockedStep(store: Store, plan: Plan, event: HookEvent, env: EnvMember, pid: number): Promise<LockedResult> {
  return store.mutate((state, ctx): LockedResult => {
    let memberId: string | undefined;
    if (plan.kind === 'pin') {
      // Another session may have taken the pin since the snapshot.
      memberId = bindablePins(state, [plan.pin], event).length === 1 ? bindPin(state, plan.pin, event) : undefined;
    } else if (plan.kind === 'member' && env.kind === 'id') {
      memberId = plan.memberId;
      if (event.isSessionStart) bindEnvMember(state, memberId, event);
    } else if (plan.kind === 'member') {
      memberId = memberBySession(state, event) === plan.memberId ? plan.memberId : undefined;
      // A starting session is seen (last_seen) and back (its away mark goes);
      // one found only by an old binding is linked to its member from now on.
      if (memberId !== undefined && mustLinkAtStart(state, event, memberId, ctx.now())) linkSession(state, linkRefsOf(state, event, memberId), [memberId], ctx);
    }
    if (plan.kind === 'pin' && memberId !== undefined && findLinkedMember(state, sessionRefsOf(event)) === undefined
      && !isLinked(state, memberId)) {
      // An old install's pin, taken by the first session that starts under it.
      linkSession(state, linkRefsOf(state, event, memberId), [memberId], ctx);
    }
    if (memberId === undefined || membershipsOf(state, memberId).length === 0) return { ok: true, message: 'no member' };
    const owner = hookOwner(pid, ctx.now());
    const delivery = prepareDelivery(state, memberId, owner, event.kind === 'stop', ctx);
    // At a Stop, open review requests addressed to this member are brought up, each once: marked
    // as reminded only once the answer carrying them was written (settle), like the mail.
    const due = event.kind === 'stop' ? dueReminders(state, memberId) : [];
    if (due.length > 0) delivery.text = delivery.text === null ? reminderText(due) : `${delivery.text}\n\n${reminderText(due)}`;
    return { ok: true, message: 'prepared', memberId, owner, delivery, reminderIds: due.map((r) => r.request_id) };
  });
}

// A session ending makes its member stale (sends to it are refused) unless
// the member is reached by spawn-resume: an ended session is what that path
// resumes, and the headless `claude -p --resume` run it starts ends with a
// SessionEnd of its own, which must not shut the door behind it.
function isResumable(state: State, memberId: string): boolean {
  return membershipsOf(state, memberId).some((m) => m.delivery_mode === 'spawn_push');
}

// Whether `memberId` is bound, on this event's host, to a session other than
// the one ending: a newer session of the same member took over (installed
// hooks name the member in OPENCOMMS_MEMBER_ID, so every session in the
// project speaks for it), and the older one ending must not mark it stale.
function isBoundElsewhere(state: State, memberId: string, event: HookEvent): boolean {
  const bound = membershipsOf(state, memberId)
    .filter((m) => event.hosts.includes(m.host) && typeof m.host_session_id === 'string' && m.host_session_id !== '')
    .map((m) => m.host_session_id);
  return event.sessionId !== undefined && bound.length > 0 && !bound.includes(event.sessionId);
}

async function endSession(store: Store, state: State, event: HookEvent, env: EnvMember): Promise<Outcome> {
  const memberId = env.kind === 'id' ? env.memberId : memberBySession(state, event);
  if (memberId === undefined || membershipsOf(state, memberId).length === 0 || hasSessionEnded(state, memberId) || isResumable(state, memberId)) return NOTHING;
  if (isBoundElsewhere(state, memberId, event)) return NOTHING;
  await store.mutate((locked, ctx) => {
    // Re-resolved under the lock: the binding may have moved to another session meanwhile.
    if (env.kind !== 'id' && memberBySession(locked, event) !== memberId) return { ok: true, message: 'moved' };
    if (isBoundElsewhere(locked, memberId, event)) return { ok: true, message: 'moved' };
    if (isResumable(locked, memberId)) return { ok: true, message: 'resumable' };
    markStale(locked, memberId, ctx.now());
    return { ok: true, message: 'stale' };
  });
  return NOTHING;
}

// Before a file-writing tool runs: no write under .opencomms/, and no edit of
// a file another member holds exclusively (one lock-free read; pre-tool.ts).
// Before a shell call, the same for what its command plainly writes or a git
// command resets (reset-check.ts), and, when it may go ahead and others hold
// files, a record of those files (shell-check.ts).
function decidePreTool(options: HookOptions, state: State, event: HookEvent, env: EnvMember, projectDir: string): Outcome {
  const targets = toolTargetsOf(event, options.cwd, projectDir);
  const { shell, trees } = targets;
  // A session with no member yet, or in no channel, is bound like any other.
  const memberId = env.kind === 'id' ? env.memberId : memberBySession(state, event);
  const now = Date.now();
  // Each path as the kernel walks it and as folded, and a held file reached through a hard link (pre-tool.ts).
  const files = judgedFiles(state, memberId, targets.named, projectDir, event.cwd ?? options.cwd, now);
  const ownDir = stateDirAnswer(event, { ...targets, files: [...new Set([...targets.files, ...files])] });
  if (ownDir !== undefined) return { answer: ownDir };
  const verdict = judgeWritesAndResets(state, memberId, files, trees, projectDir, now, options.warn);
  if (shell !== undefined && verdict?.kind !== 'deny') {
    try {
      recordHeldFiles(state, memberId, projectDir, () => shellRecordKey(event, env.kind === 'id' ? env.memberId : undefined), now);
    } catch (err) {
      options.warn(`opencomms: hook could not record the held files before a shell call: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (verdict === undefined) return NOTHING;
  return { answer: preToolAnswer(event, state, memberId, verdict, () => randomHex(8)) };
}

// After a tool ran: log the edits (collision notices, post-tool.ts) and,
// after a shell call, report held files it changed (`shellChanges`, found
// before the state was loaded). Returns the text for the writer's answer, if
// any; trouble is a warning, never a broken hook.
async function afterTool(options: HookOptions, store: Store, state: State, event: HookEvent, env: EnvMember, projectDir: string, shellChanges: string[] | undefined): Promise<string | undefined> {
  const memberId = env.kind === 'id' ? env.memberId : memberBySession(state, event);
  const now = Date.now();
  const files = filesWritten(event)
    .map((file) => repoPath(file, projectDir, event.cwd ?? options.cwd))
    .filter((file): file is string => file !== undefined);
  try {
    if (files.length > 0 && memberId !== undefined) await noteEdits(store, state, memberId, files, projectDir, now);
  } catch (err) {
    options.warn(`opencomms: hook could not record an edit: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (shellChanges === undefined) return undefined;
  try {
    return await reportShellWrites(store, state, event.hosts[0] ?? 'unknown', memberId, shellChanges, now);
  } catch (err) {
    options.warn(`opencomms: hook could not check held files after a shell call: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** The answer with `notice` added to the model's context before whatever it already carries. */
function withNotice(event: HookEvent, outcome: Outcome, notice: string | undefined): Outcome {
  if (notice === undefined) return outcome;
  const output = outcome.answer.hookSpecificOutput as { additionalContext?: unknown } | undefined;
  const text = typeof output?.additionalContext === 'string' ? `${notice}\n\n${output.additionalContext}` : notice;
  return { ...outcome, answer: contextAnswer(event, text) };
}

async function decide(options: HookOptions, event: HookEvent, projectDir: string): Promise<Outcome> {
  // Whether the project may have mail: its state file exists. A Redis project
  // can tell only once it is loaded (below), so it may have until then.
  const store = storeOf(options, projectDir);
  if (!store.hasState()) {
    // A project without OpenComms state has no mail: say nothing, create nothing (and let no agent write one).
    if (options.explicitProjectDir !== undefined && !existsSync(projectDir)) {
      options.warn(`opencomms: hook: project directory ${projectDir} does not exist`);
    }
    return event.kind === 'pre_tool' ? { answer: stateDirAnswer(event, toolTargetsOf(event, options.cwd, projectDir)) ?? EMPTY_ANSWER } : NOTHING;
  }
  // The session's turn, for its server's door (turn.ts); the waiter is a second Stop hook and says nothing.
  if (!options.wait) noteTurn(projectDir, event, options.warn);
  const env = memberFromEnv(options.env);
  if (env.kind === 'invalid') {
    await reportProblem(options, projectDir, env.problem);
    return NOTHING;
  }
  const shellChanges = shellChangesOf(event, options.cwd, env.kind === 'id' ? env.memberId : undefined, projectDir, options.warn);
  await store.refresh();
  const snapshot = store.snapshot();
  // A Redis project nobody has written to yet has no mail either.
  if (!store.hasState()) return NOTHING;
  if (event.kind === 'end') return endSession(store, snapshot, event, env);
  if (event.kind === 'pre_tool') return decidePreTool(options, snapshot, event, env, projectDir);
  // A headless run (`claude -p`, the SDK) waits for a background Stop hook
  // before it exits, so a waiter there would only delay the exit: the turn
  // is over and nobody is idle to wake. The waiter answers at once.
  if (options.wait && isHeadless(options.env)) return NOTHING;
  if (options.wait) {
    const waited = await waitForMail(store, snapshot, event, env, {
      timeoutMs: options.timeoutMs, parentPid: options.parentPid, onSignal: options.onSignal,
    });
    // For an asyncRewake hook, exit code 2 plus stderr is how the notice reaches the agent.
    if (waited.notice !== undefined) options.warn(waited.notice);
    return { answer: waited.answer, exitCode: waited.exitCode };
  }
  const notice = isAfterTool(event) ? await afterTool(options, store, snapshot, event, env, projectDir, shellChanges) : undefined;
  return withNotice(event, await deliverMail(options, store, snapshot, event, env, projectDir), notice);
}

// Mail for this moment: planned on the lock-free snapshot, drained under the lock.
async function deliverMail(options: HookOptions, store: Store, snapshot: State, event: HookEvent, env: EnvMember, projectDir: string): Promise<Outcome> {
  const plan = planMember(snapshot, event, env, projectDir, Date.now());
  if (plan.kind === 'done') {
    if (plan.problem) {
      options.warn(`opencomms: ${plan.problem.message}`);
      await recordOnce(store, snapshot, plan.problem.memberId, plan.problem.message);
    }
    return plan.outcome;
  }

  const locked = await lockedStep(store, plan, event, env, process.pid);
  const { memberId, owner, delivery, reminderIds = [] } = locked;
  if (memberId === undefined || owner === undefined || delivery === undefined || delivery.text === null) return NOTHING;
  const isStop = event.kind === 'stop';
  // No loops at Stop: mail handed over in an earlier block is committed and
  // can never come again, so a continuation (stop_hook_active) blocks again
  // only for messages that go out in this very answer. A notice alone (an
  // oversized message still waiting) is said once, never repeated.
  // A reminder of open requests is given once per request, so it cannot loop either.
  if (isStop && event.isStopHookActive && delivery.ids.length === 0 && reminderIds.length === 0) return NOTHING;
  // A Stop that hands mail over keeps the turn going: busy again, so the door is not rung into it.
  if (isStop) noteTurn(projectDir, event, options.warn, 'busy');
  const answer = isStop ? stopAnswer(event, delivery.text, options.env) : contextAnswer(event, delivery.text);
  if (delivery.ids.length === 0 && reminderIds.length === 0) return { answer };
  return {
    answer,
    settle: async (wasSent) => {
      await store.mutate((state, ctx) => {
        if (wasSent) {
          if (delivery.ids.length > 0) commitHookDelivery(state, memberId, delivery.ids, owner, ctx.now());
          markReminded(state, memberId, reminderIds);
        } else if (delivery.ids.length > 0) {
          requeueHookDelivery(state, memberId, delivery.ids, owner);
        }
        return { ok: true, message: wasSent ? 'committed' : 'requeued' };
      });
    },
  };
}

/** Returns the exit code. Fails open: any trouble answers `{}` and exits 0. */
export async function runHook(options: HookOptions): Promise<number> {
  let projectDir: string | undefined = options.explicitProjectDir === undefined ? undefined : resolvePath(options.explicitProjectDir);
  let outcome: Outcome = NOTHING;
  try {
    const parsed = parseHookEvent(options.input, options.env);
    if (parsed.ok) {
      projectDir = resolvePath(options.explicitProjectDir ?? parsed.event.cwd ?? options.cwd);
      outcome = await decide(options, parsed.event, projectDir);
    } else if (!parsed.ignored) {
      await reportProblem(options, projectDir ?? resolvePath(options.cwd), `hook: ${parsed.problem}; answered {}`);
    }
  } catch (err) {
    await reportProblem(options, projectDir, `hook failed and answered {}: ${err instanceof Error ? err.message : String(err)}`, err);
    outcome = NOTHING;
  }
  let wasSent = false;
  try {
    await options.write(`${JSON.stringify(outcome.answer)}\n`);
    wasSent = true;
  } catch (err) {
    options.warn(`opencomms: hook could not write its answer: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (outcome.settle) {
    try {
      await outcome.settle(wasSent);
    } catch (err) {
      // The mail stays in flight under this (soon dead) pid; the next hook or pull sweeps it back.
      await reportProblem(options, projectDir, `hook could not ${wasSent ? 'commit' : 'requeue'} its delivery (it will be retried): ${err instanceof Error ? err.message : String(err)}`, err);
    }
  }
  return outcome.exitCode ?? 0;
}
