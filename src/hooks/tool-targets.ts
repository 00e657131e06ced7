// What a pre-tool event is about to write, as the project sees it: the files
// its tool names (pre-tool.ts) or its shell command plainly writes
// (shell-parse.ts), made relative to the project (outside it: left out), and
// the folders a git command in it resets (absolute).
import type { HookEvent } from './events';
import { filesWritten, repoPath } from './pre-tool';
import { shellCallOf } from './shell-check';
import { shellTargets } from './shell-parse';

export interface ToolTargets {
  /** The command line and its folder, for a shell tool; undefined for any other tool. */
  shell: { command: string; dir: string } | undefined;
  files: string[];
  trees: string[];
}

/** The targets of a pre-tool event, with `cwd` for an event that names none. */
export function toolTargetsOf(event: HookEvent, cwd: string, projectDir: string): ToolTargets {
  const shell = shellCallOf(event, cwd);
  const targets = shell === undefined ? { files: [], trees: [] } : shellTargets(shell.command, shell.dir);
  const files = [...filesWritten(event), ...targets.files]
    .map((file) => repoPath(file, projectDir, event.cwd ?? cwd))
    .filter((file): file is string => file !== undefined);
  return { shell, files, trees: targets.trees };
}
