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
  /** The paths as the tool or the command names them (absolute or relative to the event's folder). */
  named: string[];
  /** The same, relative to the project as written (lexically), for a check that needs no state. */
  files: string[];
  trees: string[];
}

/** The targets of a pre-tool event, with `cwd` for an event that names none. */
export function toolTargetsOf(event: HookEvent, cwd: string, projectDir: string): ToolTargets {
  const shell = shellCallOf(event, cwd);
  const targets = shell === undefined ? { files: [], trees: [] } : shellTargets(shell.command, shell.dir);
  const named = [...filesWritten(event), ...targets.files];
  const files = named
    .map((file) => repoPath(file, projectDir, event.cwd ?? cwd))
    .filter((file): file is string => file !== undefined);
  return { shell, named, files, trees: targets.trees };
}
