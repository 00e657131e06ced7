// The reservation check at OpenCode's tool call (PROTOCOL 8.4). OpenCode runs
// every plugin's `tool.execute.before` before a tool runs, and a hook that
// throws stops the tool: its message reaches the model as the tool's error.
// OpenCode's file tools name their file (`edit`, `write`, `multiedit`:
// `filePath`), its patch tool names them on header lines (`apply_patch`:
// `patchText`, in Codex's format), and its `bash` runs a command whose plain
// writes the shell parser reads (and the folders a git command in it
// resets). Each is judged as every host's hook judges an edit, by the same
// functions, and nothing may be written under .opencomms/. A bash call that may run is checked after
// it too, as every host's shell call is (shell-check.ts): the held files are
// recorded before it, and those that changed are reported after it.
import { describeVerdict, isMemberOfChannel, type State } from '../engine';
import { judgedFiles, patchHeaderFiles } from '../hooks/pre-tool';
import { judgeWritesAndResets } from '../hooks/reset-check';
import { hash128Hex } from '../hooks/shell-check';
import { shellTargets } from '../hooks/shell-parse';
import { stateDirRefusal } from '../hooks/state-dir-guard';

const FILE_TOOLS = new Set(['edit', 'write', 'multiedit']);

/** What an OpenCode tool call is about to write, as the tool names it, and how a refusal calls the call. */
export interface OpenCodeWrites {
  files: string[];
  /** Folders whose tracked files a git command of a bash call resets (absolute). */
  trees?: string[];
  action: 'edit' | 'command';
}

/** What an OpenCode tool call is about to write (absolute or relative to `cwd`). */
export function filesOpenCodeWrites(tool: string, args: Record<string, unknown>, cwd: string): OpenCodeWrites {
  if (FILE_TOOLS.has(tool)) {
    return { files: typeof args.filePath === 'string' && args.filePath.trim() !== '' ? [args.filePath] : [], action: 'edit' };
  }
  if (tool === 'apply_patch') return { files: typeof args.patchText === 'string' ? patchHeaderFiles(args.patchText) : [], action: 'edit' };
  if (tool === 'bash') {
    const dir = typeof args.workdir === 'string' && args.workdir.trim() !== '' ? args.workdir : cwd;
    return { ...(typeof args.command === 'string' ? shellTargets(args.command, dir) : { files: [] }), action: 'command' };
  }
  return { files: [], action: 'edit' };
}

/**
 * The refusal of an OpenCode tool call that would write under .opencomms/,
 * write a file another member holds exclusively or reset one with changes
 * (a git command; trouble asking git goes to `warn` and lets the call run),
 * or undefined when it may go ahead (a file held
 * shared is not refused here: OpenCode has no way to show a warning before
 * a tool). `memberId` is undefined for a session with no member yet, which is
 * bound like any other.
 */
export function openCodeRefusal(
  state: State, memberId: string | undefined, call: OpenCodeWrites, projectDir: string, cwd: string, now: number, nonce: () => string,
  warn: (text: string) => void = () => undefined,
): string | undefined {
  const files = judgedFiles(state, memberId, call.files, projectDir, cwd, now);
  const ownDir = stateDirRefusal(files, call.action);
  if (ownDir !== undefined) return ownDir;
  const verdict = judgeWritesAndResets(state, memberId, files, call.trees ?? [], projectDir, now, warn);
  if (verdict?.kind !== 'deny') return undefined;
  return describeVerdict(verdict, (channel) => isMemberOfChannel(state, memberId, channel), nonce, call.action);
}

/** The command of an OpenCode bash call, or undefined for any other tool. */
export function bashCommandOf(tool: string, args: Record<string, unknown> | undefined): string | undefined {
  return tool === 'bash' && typeof args?.command === 'string' ? args.command : undefined;
}

/** The key of one OpenCode bash call's record (shell-check.ts): its session, call and command, hashed. */
export function openCodeShellKey(sessionId: string | undefined, callId: string | undefined, command: string): string {
  return hash128Hex(['opencode', sessionId ?? '', callId ?? '', command].join('\n'));
}
