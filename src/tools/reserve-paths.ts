// The paths an agent reserves or releases, named as the files they reach:
// the part of each pattern before its first wildcard is resolved through
// symbolic links, so `alias/**` (alias -> src) holds src/**, the files the
// pre-tool check sees when alias/a.ts is edited (it compares real paths too).
import { isAbsolute, join, relative } from 'node:path';
import { normalizePattern } from '../engine';
import { realPathOf } from '../files/real-path';

const WILDCARD = /[*?]/;

/** The real project root and each pattern relative to it; a pattern the engine will refuse is left as written, so the refusal quotes it. */
export function realPatterns(paths: readonly string[], projectDir: string): { projectDir: string; paths: string[] } {
  const root = realPathOf(projectDir);
  return { projectDir: root, paths: paths.map((raw) => realPattern(raw, projectDir, root)) };
}

function realPattern(raw: string, projectDir: string, root: string): string {
  // An absolute path may name the project by its link or by its real path.
  let lexical = normalizePattern(raw, projectDir);
  if (typeof lexical !== 'string' && root !== projectDir) lexical = normalizePattern(raw, root);
  if (typeof lexical !== 'string') return raw;
  const segments = lexical.split('/');
  const wild = segments.findIndex((segment) => WILDCARD.test(segment));
  const literal = wild === -1 ? segments : segments.slice(0, wild);
  if (literal.length === 0) return lexical;
  const real = realPathOf(join(root, ...literal));
  const inside = relative(root, real);
  // Through a link that leads out of the project: its real path, which the engine refuses as outside.
  if (inside.startsWith('..') || isAbsolute(inside)) return real.split('\\').join('/');
  return [...(inside === '' ? [] : inside.split(/[\\/]/)), ...segments.slice(literal.length)].join('/');
}
