// Repository paths and globs for edit reservations: normalising what a
// member names against the project root, and deciding whether two patterns
// (or a pattern and a file) can name the same file. Globs: `*` is any run of
// characters within one path segment, `**` any run across segments, `?` one
// character other than `/`. Everything else is literal.

/** Why a path was refused, for `invalid_path`. */
export interface PathProblem {
  path: string;
  problem: string;
}

const MAX_PATTERN_CHARS = 512;

/**
 * A repo-relative pattern in one canonical form (forward slashes, no `.`
 * segments, no trailing slash; a folder named with a trailing `/` means
 * everything under it), or the problem with it. `projectDir` is absolute and
 * uses `/`; an absolute path inside it is made relative, one outside it and
 * any `..` that would leave the root are refused.
 */
export function normalizePattern(raw: string, projectDir: string): string | PathProblem {
  const given = raw.trim();
  if (given === '') return { path: raw, problem: 'is empty' };
  if (given.length > MAX_PATTERN_CHARS) return { path: `${given.slice(0, 64)}...`, problem: `is longer than ${MAX_PATTERN_CHARS} characters` };
  if (/[\u0000-\u001f\u007f]/.test(given)) return { path: given, problem: 'holds control characters' };
  let text = given.replace(/\\/g, '/');
  const root = projectDir.replace(/\\/g, '/').replace(/\/+$/, '');
  if (text.startsWith('/') || /^[A-Za-z]:\//.test(text)) {
    if (text === root) return { path: given, problem: 'is the whole project; name files or globs inside it' };
    if (!text.startsWith(`${root}/`)) return { path: given, problem: 'is outside the project' };
    text = text.slice(root.length + 1);
  }
  const isFolder = text.endsWith('/');
  const segments: string[] = [];
  for (const segment of text.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return { path: given, problem: 'leaves the project (..)' };
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  if (segments.length === 0) return { path: given, problem: 'names no file inside the project' };
  if (isFolder && segments[segments.length - 1] !== '**') segments.push('**');
  const pattern = segments.join('/');
  if (/^[*/]+$/.test(pattern)) return { path: given, problem: 'matches every file of the project; reserve narrower paths' };
  return pattern;
}

type Token = { kind: 'char'; char: string } | { kind: 'one' } | { kind: 'star' } | { kind: 'globstar' };

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        // `a/**/b` also matches `a/b`: the globstar takes its following slash with it.
        const takesSlash = pattern[i + 2] === '/' && (i === 0 || pattern[i - 1] === '/');
        tokens.push({ kind: 'globstar' });
        i += takesSlash ? 2 : 1;
      } else {
        tokens.push({ kind: 'star' });
      }
    } else if (c === '?') {
      tokens.push({ kind: 'one' });
    } else {
      tokens.push({ kind: 'char', char: c });
    }
  }
  return tokens;
}

function isRun(token: Token | undefined): boolean {
  return token !== undefined && (token.kind === 'star' || token.kind === 'globstar');
}

// Whether one character can satisfy both tokens (each as a one-character class).
function canShareChar(a: Token, b: Token): boolean {
  if (a.kind === 'char' && b.kind === 'char') return a.char === b.char;
  if (a.kind === 'char') return b.kind === 'globstar' || a.char !== '/';
  if (b.kind === 'char') return a.kind === 'globstar' || b.char !== '/';
  return true; // two wildcards: any character other than `/` satisfies both
}

/** Whether some file path matches both patterns (a plain file path is a pattern without wildcards). */
export function patternsOverlap(a: string, b: string): boolean {
  if (a === b) return true;
  const ta = tokenize(a);
  const tb = tokenize(b);
  const memo = new Map<number, boolean>();
  const width = tb.length + 1;
  const visit = (i: number, j: number): boolean => {
    const key = i * width + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    memo.set(key, false); // a cycle through this pair adds nothing new
    let result = false;
    if (i === ta.length && j === tb.length) result = true;
    if (!result && isRun(ta[i])) result = visit(i + 1, j);
    if (!result && isRun(tb[j])) result = visit(i, j + 1);
    if (!result && i < ta.length && j < tb.length && !(isRun(ta[i]) && isRun(tb[j])) && canShareChar(ta[i]!, tb[j]!)) {
      result = visit(isRun(ta[i]) ? i : i + 1, isRun(tb[j]) ? j : j + 1);
    }
    memo.set(key, result);
    return result;
  };
  return visit(0, 0);
}
