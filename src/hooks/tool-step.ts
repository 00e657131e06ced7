// The hook around a tool call: before it, the judgement of what it would
// write; after it, the record of what it wrote.
import type { State } from '../engine';
import { randomHex } from '../process/crypto';
import type { Store } from '../store';
import { memberBySession, type EnvMember } from './bind';
import type { HookEvent } from './events';
import { noteEdits, reportShellWrites } from './post-tool';
import { filesWritten, judgedFiles, preToolAnswer, repoPath } from './pre-tool';
import { judgeWritesAndResets } from './reset-check';
import { NOTHING, type HookOptions, type Outcome } from './run-context';
import { recordHeldFiles, shellRecordKey } from './shell-check';
import { stateDirAnswer } from './state-dir-guard';
import { toolTargetsOf } from './tool-targets';

// Before a file-writing tool runs: no write under .opencomms/, and no edit of
// a file another member holds exclusively (one lock-free read; pre-tool.ts).
// Before a shell call, the same for what its command plainly writes or a git
// command resets (reset-check.ts), and, when it may go ahead and others hold
// files, a record of those files (shell-check.ts).
export function decidePreTool(options: HookOptions, state: State, event: HookEvent, env: EnvMember, projectDir: string): Outcome {
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
export async function afterTool(options: HookOptions, store: Store, state: State, event: HookEvent, env: EnvMember, projectDir: string, shellChanges: string[] | undefined): Promise<string | undefined> {
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
