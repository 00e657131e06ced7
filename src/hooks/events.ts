// Turning one host hook event (the JSON a host writes on our stdin) into a
// typed value: what kind of moment it is, which host sent it, and which
// session it belongs to. Nothing here touches the disk.

/** What a hook event asks of us. */
export type HookKind =
  /** Mail may be added to the model's context (SessionStart, prompt, after a tool). */
  | 'context'
  /** The agent is about to finish: mail may keep it going (Stop, Gemini AfterAgent). */
  | 'stop'
  /** The session is over: its member goes away. */
  | 'end'
  /** A tool is about to run: a file write may be stopped by another member's reservation. */
  | 'pre_tool';

export interface HookEvent {
  /** The event name exactly as the host sent it; echoed back in hookSpecificOutput. */
  name: string;
  kind: HookKind;
  isSessionStart: boolean;
  /** The host's own session id, when the event carries one. */
  sessionId: string | undefined;
  cwd: string | undefined;
  /** True when the host says this stop is already a continuation forced by a stop hook. */
  isStopHookActive: boolean;
  /** Host labels this event may come from, most likely first (see detectHosts). */
  hosts: string[];
  /** Whether `hosts` was decided by a clear marker rather than a default. */
  isHostCertain: boolean;
  /** Whether OPENCOMMS_HOST named the host (then no other host is ever considered). */
  isHostForced?: boolean;
  /** Pre-tool events: the tool about to run and its input. */
  toolName?: string;
  toolInput?: Record<string, unknown>;
  /** The host's id of this tool call (`tool_use_id`), when it sends one: a call's pre and post events share it. */
  toolUseId?: string;
  /** Prompt events: the text that starts the turn (typed, or a door's notice). */
  prompt?: string;
}

export type ParsedEvent =
  | { ok: true; event: HookEvent }
  | { ok: false; ignored: true }
  | { ok: false; ignored: false; problem: string };

export const HOST_CLAUDE_CODE = 'claude-code';
export const HOST_CODEX = 'codex';
export const HOST_GEMINI = 'gemini-cli';

// Claude Code and Codex share these names and the same JSON shape.
const SHARED_EVENTS: Record<string, HookKind> = {
  SessionStart: 'context',
  UserPromptSubmit: 'context',
  PostToolUse: 'context',
  Stop: 'stop',
  SessionEnd: 'end',
  PreToolUse: 'pre_tool',
};

// Gemini CLI's own names. AfterTool is Gemini's PostToolUse: it also takes
// hookSpecificOutput.additionalContext, appended to the tool result.
const GEMINI_EVENTS: Record<string, HookKind> = {
  BeforeAgent: 'context',
  AfterAgent: 'stop',
  AfterTool: 'context',
  BeforeTool: 'pre_tool',
};

function stringField(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * Which host sent the event. OPENCOMMS_HOST wins; Gemini-only event names
 * and Gemini's ISO `timestamp` base field mark Gemini; `turn_id` marks Codex
 * (Claude Code sends none). Otherwise Claude Code and Codex cannot be told
 * apart (both send SessionStart with model/source), so both are candidates,
 * Claude Code first.
 */
export function detectHosts(raw: Record<string, unknown>, name: string, env: NodeJS.ProcessEnv): { hosts: string[]; certain: boolean } {
  const forced = stringField(env.OPENCOMMS_HOST)?.trim();
  if (forced) return { hosts: [forced], certain: true };
  if (name in GEMINI_EVENTS || typeof raw.timestamp === 'string') return { hosts: [HOST_GEMINI], certain: true };
  if (stringField(raw.turn_id) !== undefined) return { hosts: [HOST_CODEX], certain: true };
  return { hosts: [HOST_CLAUDE_CODE, HOST_CODEX], certain: false };
}

/** Parses stdin. Unknown events are `ignored` (no error); anything unreadable is a `problem`. */
export function parseHookEvent(input: string, env: NodeJS.ProcessEnv): ParsedEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(input);
  } catch {
    return { ok: false, ignored: false, problem: `hook input is not JSON (${input.trim() === '' ? 'empty stdin' : `${input.length} characters`})` };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, ignored: false, problem: 'hook input is not a JSON object' };
  }
  const fields = raw as Record<string, unknown>;
  const name = stringField(fields.hook_event_name);
  if (name === undefined) return { ok: false, ignored: false, problem: 'hook input has no hook_event_name' };
  const kind = Object.prototype.hasOwnProperty.call(SHARED_EVENTS, name)
    ? SHARED_EVENTS[name]
    : Object.prototype.hasOwnProperty.call(GEMINI_EVENTS, name) ? GEMINI_EVENTS[name] : undefined;
  if (kind === undefined) return { ok: false, ignored: true };
  const { hosts, certain } = detectHosts(fields, name, env);
  return {
    ok: true,
    event: {
      name,
      kind,
      isSessionStart: name === 'SessionStart',
      sessionId: stringField(fields.session_id),
      cwd: stringField(fields.cwd),
      isStopHookActive: fields.stop_hook_active === true,
      hosts,
      isHostCertain: certain,
      isHostForced: stringField(env.OPENCOMMS_HOST)?.trim() ? true : undefined,
      toolName: stringField(fields.tool_name),
      toolInput: fields.tool_input !== null && typeof fields.tool_input === 'object' && !Array.isArray(fields.tool_input)
        ? fields.tool_input as Record<string, unknown>
        : undefined,
      toolUseId: stringField(fields.tool_use_id) ?? stringField(fields.call_id),
      prompt: stringField(fields.prompt),
    },
  };
}
