// The reservation check at OpenCode's tool call (PROTOCOL 8.6). OpenCode runs
// every plugin's `tool.execute.before` before a tool runs, and a hook that
// throws stops the tool: its message reaches the model as the tool's error.
// OpenCode's file tools name their file (`edit`, `write`, `multiedit`:
// `filePath`), its patch tool names them on header lines (`apply_patch`:
// `patchText`, in Codex's format), and its `bash` runs a command whose plain
// writes the shell parser reads. Each is judged as every host's hook judges
// an edit, by the same functions. A bash call that may run is checked after
// it too, as every host's shell call is (shell-check.ts): the held files are
// recorded before it, and those that changed are reported after it.
import { describeVerdict, isMemberOfChannel, type State } from '../engine';
import { judgeEvent, judgedFiles, patchHeaderFiles } from '../hooks/pre-tool';
import { hash128Hex } from '../hooks/shell-check';
import { shellWrites } from '../hooks/shell-parse';

const FILE_TOOLS = new Set(['edit', 'write', 'multiedit']);

/** What an OpenCode tool call is about to write, as the tool names it (absolute or relative to `cwd`), and how the refusal calls it. */
export function filesOpenCodeWrites(tool: string, args: Record<string, unknown>, cwd: string): { files: string[]; action: 'edit' | 'command' } {
  if (FILE_TOOLS.has(tool)) {
    return { files: typeof args.filePath === 'string' && args.filePath.trim() !== '' ? [args.filePath] : [], action: 'edit' };
  }
  if (tool === 'apply_patch') return { files: typeof args.patchText === 'string' ? patchHeaderFiles(args.patchText) : [], action: 'edit' };
  if (tool === 'bash') {
    const dir = typeof args.workdir === 'string' && args.workdir.trim() !== '' ? args.workdir : cwd;
    return { files: typeof args.command === 'string' ? shellWrites(args.command, dir) : [], action: 'command' };
  }
  return { files: [], action: 'edit' };
}

/**
 * The refusal of an OpenCode tool call that would write a file another
 * member holds exclusively, or undefined when it may go ahead (a file held
 * shared is not refused here: OpenCode has no way to show a warning before
 * a tool). `memberId` is undefined for a session with no member yet, which is
 * bound like any other.
 */
export function openCodeRefusal(
  state: State, memberId: string | undefined, call: { files: string[]; action: 'edit' | 'command' }, projectDir: string, cwd: string, now: number, nonce: () => string,
): string | undefined {
  const files = judgedFiles(state, memberId, call.files, projectDir, cwd, now);
  if (files.length === 0) return undefined;
  const verdict = judgeEvent(state, memberId, files, now);
  if (verdict.kind !== 'deny') return undefined;
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
