// Paths as the kernel finally names them, so that a file reached through a
// symbolic link is the same file as the one it points at (INTERFACE section 7:
// paths are compared after resolving links). The kernel walks a path one
// name at a time and follows each link before it reads the next name, so
// `alias/..` is the parent of alias's target, not the folder holding alias:
// no `..` is folded before the links in front of it are resolved.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, parse as parsePath, sep } from 'node:path';

// Linux's MAXSYMLINKS: past this many links in one walk the kernel answers ELOOP.
const MAX_LINKS_PER_WALK = 40;

/** `path` as written, relative to `dir` unless absolute: no `.` or `..` folded (path.join would fold them). */
export function joinAsWritten(dir: string, path: string): string {
  if (isAbsolute(path)) return path;
  return dir.endsWith('/') || dir.endsWith(sep) ? dir + path : dir + sep + path;
}

/**
 * The absolute path the kernel would reach by `path` (relative to `from`,
 * else to the working folder): every link resolved in the order the kernel
 * meets it, up to the longest prefix that exists, with the names that do not
 * exist yet appended. A final link to nothing is followed (a write creates
 * its target); a link that leads nowhere before more names, or a loop, is
 * kept by its own name. Never throws.
 */
export function realPathOf(path: string, from?: string): string {
  const absolute = joinAsWritten(from ?? process.cwd(), path);
  try {
    // realpath(3) resolves each link before the `..` after it, as the kernel does.
    return realpathSync.native(absolute);
  } catch {
    const root = parsePath(absolute).root;
    return walkNames(root, absolute.slice(root.length).split(/[\\/]/), { left: MAX_LINKS_PER_WALK }).path;
  }
}

// Walks `names` from the real folder `dir`; `found` says whether the whole path exists.
function walkNames(dir: string, names: readonly string[], links: { left: number }): { path: string; found: boolean } {
  let at = dir;
  for (let i = 0; i < names.length; i += 1) {
    const name = names[i]!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      at = dirname(at);
      continue;
    }
    const next = join(at, name);
    const rest = names.slice(i + 1);
    // What does not exist yet is appended; folding its `..` can only name a file the kernel would fail to reach.
    const missing = { path: join(next, ...rest), found: false };
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      return missing;
    }
    if (!isLink) {
      at = next;
      continue;
    }
    let target: string;
    try {
      target = readlinkSync(next);
    } catch {
      return missing;
    }
    if (--links.left < 0) return missing;
    const base = isAbsolute(target) ? parsePath(target).root : at;
    const through = walkNames(base, isAbsolute(target) ? target.slice(base.length).split(/[\\/]/) : target.split(/[\\/]/), links);
    if (through.found) {
      at = through.path;
      continue;
    }
    const isLast = rest.every((n) => n === '' || n === '.');
    return isLast && links.left >= 0 ? through : missing;
  }
  return { path: at, found: true };
}
