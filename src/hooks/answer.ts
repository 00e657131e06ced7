// What a hook prints: the host's answer formats, and the text that carries
// mail into them, kept under the host's size cap.
//
// The cap is the hosts' own: Claude Code cuts additionalContext and a Stop
// reason at 10,000 characters, and a cut would leave half a framed message
// (an open UNTRUSTED marker) in the model's context. So the batch is built
// whole messages at a time, and whatever does not fit stays queued.
export { batchText, fitBatch, HOOK_TEXT_MAX_CHARS, oversizeText, type FittedBatch } from '../engine/hook-batch';
import { HOST_CLAUDE_CODE, HOST_GEMINI, type HookEvent } from './events';


export type HookAnswer = Record<string, unknown>;

/** Nothing to say: the host carries on as if no hook ran. */
export const EMPTY_ANSWER: HookAnswer = {};

/** Mail (or a notice) added to the model's context at this event. */
export function contextAnswer(event: HookEvent, text: string): HookAnswer {
  return { hookSpecificOutput: { hookEventName: event.name, additionalContext: text } };
}

/** A tool call refused before it runs, in the host's own deny format (Gemini CLI's BeforeTool, else PreToolUse). */
export function denyAnswer(event: HookEvent, text: string): HookAnswer {
  return event.hosts.length === 1 && event.hosts[0] === HOST_GEMINI
    ? { decision: 'deny', reason: text }
    : { hookSpecificOutput: { hookEventName: event.name, permissionDecision: 'deny', permissionDecisionReason: text } };
}

/** The first Claude Code that goes on with the turn when a Stop hook answers with additionalContext. */
const CLAUDE_STOP_CONTEXT_SINCE: readonly number[] = [2, 1, 163];

/**
 * The Claude Code version its hooks see in AI_AGENT (`claude-code_2-1-332_harness`),
 * or undefined when the variable names no Claude Code version.
 */
export function claudeCodeVersion(env: NodeJS.ProcessEnv): number[] | undefined {
  const match = /^claude-code_(\d{1,6})-(\d{1,6})-(\d{1,6})(?:_|$)/.exec(env.AI_AGENT ?? '');
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function atLeast(version: readonly number[], floor: readonly number[]): boolean {
  for (let i = 0; i < floor.length; i += 1) {
    if (version[i] !== floor[i]) return version[i]! > floor[i]!;
  }
  return true;
}

/**
 * Mail that keeps the agent going instead of finishing. A Claude Code that
 * names itself 2.1.163 or later takes it as Stop context (shown to the model
 * as plain hook context, not as "Stop hook feedback"); an older one ignores
 * that and would end the turn with the mail unseen, so it, an unnamed one and
 * Codex get "block". Gemini's AfterAgent says "deny" (the reason becomes a new
 * prompt either way).
 */
/**
 * Gemini CLI prints an AfterAgent deny as a warning ("Agent execution
 * blocked: …"); this line, shown to the user beside it, says what happened.
 */
export const GEMINI_STOP_NOTE =
  'OpenComms: peer mail (or a reminder of an open request) arrived as this turn ended; Gemini CLI reports that as "Agent execution blocked" and the agent goes on to read it. Nothing failed.';

export function stopAnswer(event: HookEvent, text: string, env: NodeJS.ProcessEnv): HookAnswer {
  if (event.name === 'AfterAgent') return { decision: 'deny', reason: text, systemMessage: GEMINI_STOP_NOTE };
  const version = event.hosts[0] === HOST_CLAUDE_CODE ? claudeCodeVersion(env) : undefined;
  if (version !== undefined && atLeast(version, CLAUDE_STOP_CONTEXT_SINCE)) return contextAnswer(event, text);
  return { decision: 'block', reason: text };
}

/** A line for the user's terminal (not the model), e.g. how to choose between pins. */
export function guidanceAnswer(message: string): HookAnswer {
  return { systemMessage: message };
}

