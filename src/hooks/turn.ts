// Whether the session is running a turn, as its own hook events say, kept in
// its turn record (store/turn-records) for its server: the server rings the
// host's door (the Claude Code inbox, `codex queue`) only while the session
// is idle, and a sender is told how its mail will arrive. One small write per
// event, no lock; trouble is a warning, never a broken hook.
import { writeTurnRecord, type TurnPhase } from '../local/turn-records';
import type { HookEvent } from './events';

const PHASE_OF_EVENT: Readonly<Record<string, TurnPhase>> = {
  SessionStart: 'idle',
  UserPromptSubmit: 'busy',
  PostToolUse: 'busy',
  Stop: 'idle',
  SessionEnd: 'ended',
  // Gemini CLI's names for the same moments.
  BeforeAgent: 'busy',
  AfterTool: 'busy',
  AfterAgent: 'idle',
};

/** What `event` says the session is doing; undefined for events that say nothing (before a tool). */
export function phaseOf(event: HookEvent): TurnPhase | undefined {
  return Object.prototype.hasOwnProperty.call(PHASE_OF_EVENT, event.name) ? PHASE_OF_EVENT[event.name] : undefined;
}

/** Records `phase` (by default what the event says) for the event's session. */
export function noteTurn(projectDir: string, event: HookEvent, warn: (text: string) => void, phase = phaseOf(event)): void {
  if (phase === undefined || event.sessionId === undefined) return;
  try {
    writeTurnRecord(projectDir, event.sessionId, { phase, at: Date.now(), event: event.name });
  } catch (err) {
    warn(`opencomms: hook could not record the session's turn: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Whether the host runs without a person at it. Claude Code says how it was
 * started in CLAUDE_CODE_ENTRYPOINT: `cli` for the interactive terminal,
 * `sdk-cli` for `claude -p`, `sdk-ts`/`sdk-py` for the SDKs.
 */
export function isHeadless(env: NodeJS.ProcessEnv): boolean {
  const entry = env.CLAUDE_CODE_ENTRYPOINT?.trim();
  return entry !== undefined && entry !== '' && entry !== 'cli';
}
