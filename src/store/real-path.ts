// Paths as the file system finally names them, so that a file reached
// through a symbolic link is the same file as the one it points at
// (INTERFACE §7: paths are compared after resolving links).
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';

/**
 * The absolute path with every symbolic link resolved: the realpath of the
 * path, or, for a file not yet created, the realpath of its nearest existing
 * ancestor joined with the components that do not exist yet. Never throws: an
 * ancestor that cannot be resolved (a loop, no permission) is skipped for the
 * next one up, and the root ends the walk.
 */
export function realPathOf(path: string): string {
  const absolute = resolvePath(path);
  const missing: string[] = [];
  for (let head = absolute; ; head = dirname(head)) {
    try {
      return join(realpathSync.native(head), ...missing);
    } catch {
      if (dirname(head) === head) return absolute;
      missing.unshift(basename(head));
    }
  }
}
