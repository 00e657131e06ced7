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
import { openStore, type Store } from '../store';
import { StoreFault } from '../files/faults';
import { contextAnswer, EMPTY_ANSWER } from './answer';
import { memberFromEnv, memberBySession } from './bind';
import { parseHookEvent, type HookEvent } from './events';
import { deliverMail } from './mail-step';
import { isAfterTool, shellChangesOf } from './post-tool';
import { NOTHING, type HookOptions, type Outcome } from './run-context';
import { endSession } from './session-end';
import { stateDirAnswer } from './state-dir-guard';
import { afterTool, decidePreTool } from './tool-step';
import { toolTargetsOf } from './tool-targets';
import { waitForMail } from './wait';
import { withBoard } from './board';
import { isHeadless, noteTurn } from './turn';

export { isHeadless } from './turn';
export type { HookOptions } from './run-context';

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
    await store.mutate('hook_note_problem', { message });
  } catch {
    // The store itself is the trouble (unreadable, locked for too long); the warning above is all we can do.
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
  const mailed = withNotice(event, await deliverMail(options, store, snapshot, event, env, projectDir), notice);
  return withBoard(store, snapshot, event, env.kind === 'id' ? env.memberId : memberBySession(snapshot, event), mailed, options.env);
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
