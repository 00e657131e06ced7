// Which project's .opencomms/ an OpenCode instance uses. OpenCode may be
// started in a subfolder; the project is the nearest folder, from there up to
// the worktree, that already has OpenComms state or our installed plugin file.
import { existsSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { STATE_DIR_NAME } from '../local/state-dir';

/** Where `install opencode` puts the plugin bundle, relative to the project. */
export const OPENCODE_PLUGIN_FILE = '.opencode/plugin/opencomms.js';

function isProjectRoot(dir: string): boolean {
  return existsSync(join(dir, STATE_DIR_NAME)) || existsSync(join(dir, OPENCODE_PLUGIN_FILE));
}

/** The project folder for `directory`, never above `worktree` (when it is a real one); `directory` when nothing marks one. */
export function findProjectDir(directory: string, worktree?: string | null): string {
  const start = resolvePath(directory);
  const stop = worktree && worktree !== '/' ? resolvePath(worktree) : undefined;
  for (let dir = start; ; dir = dirname(dir)) {
    if (isProjectRoot(dir)) return dir;
    if (dir === stop || dirname(dir) === dir) return start;
  }
}
