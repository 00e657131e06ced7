// The board at a hook (INTERFACE section 8): a session that starts (also after
// compaction, a resume or a clear) is reminded of the tasks it holds, and a
// member rung because a task became ready is told so once, at its next
// context or stop hook. The wake is taken off the board only once the answer
// carrying it was written, like mail.
import { TASK_READY_NOTICE, taskDigest, type State } from '../engine';
import { randomHex } from '../process/crypto';
import type { Store } from '../store';
import { contextAnswer, stopAnswer, type HookAnswer } from './answer';
import type { HookEvent } from './events';

export interface BoardOutcome {
  answer: HookAnswer;
  exitCode?: number;
  settle?: (wasSent: boolean) => Promise<void>;
}

/** What the board adds to this event for `memberId`: the start digest and a pending wake, or nothing. */
export function boardTexts(state: State, event: HookEvent, memberId: string | undefined, now: number): { text: string; wake: boolean } | undefined {
  if (memberId === undefined || !state.board || (event.kind !== 'context' && event.kind !== 'stop')) return undefined;
  const parts: string[] = [];
  if (event.isSessionStart) {
    const digest = taskDigest(state, memberId, now, randomHex(8));
    if (digest !== undefined) parts.push(digest);
  }
  const wake = Object.prototype.hasOwnProperty.call(state.board.wakes, memberId);
  // A turn the door's notice started has told the model already: saying it again is noise.
  const isToldByPrompt = event.prompt?.includes(TASK_READY_NOTICE) === true;
  if (wake && !isToldByPrompt) parts.push(`[OpenComms] ${TASK_READY_NOTICE}.`);
  return parts.length === 0 && !wake ? undefined : { text: parts.join('\n\n'), wake };
}

/**
 * `outcome` with the board's texts put before whatever it carries. At a stop
 * with nothing else to say, a pending wake keeps the agent going (it has
 * work). The wake is cleared after the answer went out; a wake the answer
 * could not carry stays for the next hook or door.
 */
export function withBoard(store: Store, state: State, event: HookEvent, memberId: string | undefined, outcome: BoardOutcome, env: NodeJS.ProcessEnv): BoardOutcome {
  const board = boardTexts(state, event, memberId, Date.now());
  if (board === undefined || outcome.exitCode !== undefined) return outcome;
  if (event.kind === 'stop' && !board.wake) return outcome;
  if (event.kind === 'stop' && event.isStopHookActive && outcome.settle === undefined) return outcome;
  const merged = board.text === '' ? outcome.answer : mergedAnswer(event, outcome.answer, board.text, env);
  if (!board.wake) return { ...outcome, answer: merged };
  const earlier = outcome.settle;
  return {
    ...outcome,
    answer: merged,
    settle: async (wasSent) => {
      if (earlier) await earlier(wasSent);
      if (!wasSent) return;
      // The same change as the OpenCode plugin's: the wake comes off the board (refused, nothing saved, when it is gone already).
      await store.mutate('push_take_wake', { member: memberId! }, { member: memberId! });
    },
  };
}

/** `answer` with `text` put before the context or stop reason it carries. */
function mergedAnswer(event: HookEvent, answer: HookAnswer, text: string, env: NodeJS.ProcessEnv): HookAnswer {
  const fields = answer as { hookSpecificOutput?: { additionalContext?: unknown }; reason?: unknown };
  const carried = typeof fields.hookSpecificOutput?.additionalContext === 'string' ? fields.hookSpecificOutput.additionalContext
    : typeof fields.reason === 'string' ? fields.reason : undefined;
  const joined = carried === undefined ? text : `${text}\n\n${carried}`;
  return event.kind === 'stop' ? stopAnswer(event, joined, env) : contextAnswer(event, joined);
}
