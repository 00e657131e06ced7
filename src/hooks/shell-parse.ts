// Which files a shell command plainly writes, for the pre-tool check of
// shell tools (PROTOCOL 8.5). A tokenizer, not a shell: quotes and escapes,
// the separators `&&` `||` `;` `|` `&` and new lines, redirections (with a
// descriptor, `&>`, `>|`), `cd DIR` before later commands, and the writers
// `tee`, `sed -i`, `cp`, `mv`, `rm`, `truncate`, `dd of=`, and what a git
// command resets (git-writes.ts). A word whose
// value the shell would compute (`$VAR`, `$(…)`, backquotes) is not a path
// we can name and is skipped; a glob is kept as a pattern. Best effort: a
// write through any other program is caught after the call (shell-check.ts).
import { basename, isAbsolute, join } from 'node:path';
import { joinAsWritten } from '../files/real-path';
import { gitResets } from './git-writes';

type Token = { kind: 'word'; text: string; isPlain: boolean } | { kind: 'op'; text: string };

const SEPARATORS = new Set(['&&', '||', ';', ';;', '|', '|&', '&', '(', ')', '\n']);
const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);
const READ_REDIRECTS = new Set(['<', '<&', '<<<', '<<', '<<-']);
// Longest first, so `>>` is not read as two `>`.
const OPERATORS = ['&>>', '<<<', '<<-', '&&', '||', ';;', '|&', '&>', '>>', '>|', '>&', '<>', '<&', '<<', '>', '<', '|', '&', ';', '(', ')'];
// Commands that run the rest of their words as a command.
const WRAPPERS = new Set(['sudo', 'command', 'exec', 'nohup', 'time', 'builtin', 'env', 'doas']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Splits a command line into words and operators. Heredoc bodies are skipped; a comment ends its line. */
export function tokenizeShell(command: string): Token[] {
  const tokens: Token[] = [];
  const heredocs: string[] = [];
  let word = '';
  let isWord = false;
  let isPlain = true;
  let isQuoted = false;
  const endWord = (): void => {
    if (isWord) tokens.push({ kind: 'word', text: word, isPlain });
    word = '';
    isWord = false;
    isPlain = true;
    isQuoted = false;
  };
  let i = 0;
  while (i < command.length) {
    const ch = command[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      endWord();
      i += 1;
    } else if (ch === '\n') {
      endWord();
      tokens.push({ kind: 'op', text: '\n' });
      i += 1;
      // A heredoc's body runs from the next line to its delimiter line.
      while (heredocs.length > 0 && i < command.length) {
        const end = command.indexOf('\n', i);
        const line = command.slice(i, end === -1 ? command.length : end);
        i = end === -1 ? command.length : end + 1;
        if (line.replace(/^\t+/, '') === heredocs[0]) heredocs.shift();
      }
    } else if (ch === '#' && !isWord) {
      while (i < command.length && command[i] !== '\n') i += 1;
    } else if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      word += command.slice(i + 1, end === -1 ? command.length : end);
      isWord = true;
      isQuoted = true;
      i = end === -1 ? command.length : end + 1;
    } else if (ch === '"') {
      i += 1;
      while (i < command.length && command[i] !== '"') {
        if (command[i] === '\\' && '$`"\\\n'.includes(command[i + 1] ?? '')) {
          word += command[i + 1];
          i += 2;
        } else {
          if (command[i] === '$' || command[i] === '`') isPlain = false;
          word += command[i];
          i += 1;
        }
      }
      isWord = true;
      isQuoted = true;
      i += 1;
    } else if (ch === '\\') {
      if (command[i + 1] !== '\n') word += command[i + 1] ?? '';
      isWord = true;
      i += 2;
    } else if (ch === '$' || ch === '`') {
      // A value the shell computes: keep its text, mark the word as not a path we can name.
      const start = i;
      i = ch === '`' ? skipTo(command, i + 1, '`') : command[i + 1] === '(' ? skipParens(command, i + 1) : i + 1;
      word += command.slice(start, i);
      isWord = true;
      isPlain = false;
    } else {
      const op = OPERATORS.find((o) => command.startsWith(o, i));
      if (op === undefined) {
        word += ch;
        isWord = true;
        i += 1;
        continue;
      }
      // `2>` and `10>>`: a descriptor number right before a redirection belongs to it.
      if (isWord && !isQuoted && /^\d+$/.test(word) && (op[0] === '>' || op[0] === '<')) {
        word = '';
        isWord = false;
      }
      endWord();
      tokens.push({ kind: 'op', text: op });
      i += op.length;
      if (op === '<<' || op === '<<-') {
        const match = /^[ \t]*(?:'([^']*)'|"([^"]*)"|([^\s;&|<>()]+))/.exec(command.slice(i));
        if (match) heredocs.push((match[1] ?? match[2] ?? match[3]!).replace(/\\/g, ''));
      }
    }
  }
  endWord();
  return tokens;
}

function skipTo(text: string, from: number, close: string): number {
  const end = text.indexOf(close, from);
  return end === -1 ? text.length : end + 1;
}

function skipParens(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    if (text[i] === '(') depth += 1;
    else if (text[i] === ')' && --depth === 0) return i + 1;
  }
  return text.length;
}

/** Operands of a command (its words after the name), without options; `withArg` are options that take the next word. */
function operandsOf(args: readonly string[], withArg: ReadonlySet<string>): string[] {
  const operands: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') return [...operands, ...args.slice(i + 1)];
    if (arg.startsWith('-') && arg !== '-') {
      if (withArg.has(arg)) i += 1;
      continue;
    }
    operands.push(arg);
  }
  return operands;
}

// sed writes its file operands only with -i / -i.bak / --in-place[=.bak], alone or in a cluster (-Ei).
function sedWrites(args: readonly string[]): string[] {
  let isInPlace = false;
  let hasScript = false;
  const operands: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      if (arg === '--in-place' || arg.startsWith('--in-place=')) isInPlace = true;
      if (arg === '--expression' || arg === '--file') { hasScript = true; i += 1; }
      if (arg.startsWith('--expression=') || arg.startsWith('--file=')) hasScript = true;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      operands.push(arg);
      continue;
    }
    for (let k = 1; k < arg.length; k += 1) {
      const letter = arg[k];
      if (letter === 'i') { isInPlace = true; break; }
      if (letter === 'e' || letter === 'f' || letter === 'l') {
        if (letter !== 'l') hasScript = true;
        if (k === arg.length - 1) i += 1;
        break;
      }
    }
  }
  if (!isInPlace) return [];
  return hasScript ? operands : operands.slice(1);
}

// cp and mv write their destination: the last operand (and, if it is a
// folder, each source's name in it), or each source's name in `-t DIR`. mv
// also takes its sources away, so they are written too.
function copyWrites(name: string, args: readonly string[]): string[] {
  let target: string | undefined;
  const operands: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') { operands.push(...args.slice(i + 1)); break; }
    if (arg === '--target-directory' || arg === '--suffix') { if (arg === '--target-directory') target = args[i + 1]; i += 1; continue; }
    if (arg.startsWith('--target-directory=')) { target = arg.slice('--target-directory='.length); continue; }
    if (arg.startsWith('-') && arg !== '-') {
      const t = arg.indexOf('t', 1);
      const s = arg.indexOf('S', 1);
      if (t !== -1 && !arg.startsWith('--') && (s === -1 || t < s)) {
        target = t === arg.length - 1 ? args[i + 1] : arg.slice(t + 1);
        if (t === arg.length - 1) i += 1;
      } else if (s !== -1 && !arg.startsWith('--') && s === arg.length - 1) {
        i += 1;
      }
      continue;
    }
    operands.push(arg);
  }
  const sources = target === undefined ? operands.slice(0, -1) : operands;
  const dest = target ?? operands[operands.length - 1];
  if (dest === undefined || (target === undefined && operands.length < 2)) return [];
  const written = target === undefined ? [dest] : [];
  written.push(...sources.map((s) => joinAsWritten(dest, basename(s))));
  if (name === 'mv') written.push(...sources);
  return written;
}

/** Where the command itself starts in its words: after assignments and wrappers (`sudo`, `env -i`). */
function commandStart(words: readonly string[]): number {
  let start = 0;
  while (start < words.length && (ASSIGNMENT.test(words[start]!) || WRAPPERS.has(words[start]!) || (words[start - 1] === 'env' && words[start]!.startsWith('-')))) start += 1;
  return start;
}

/** The folders whose tracked files a command resets (git-writes.ts), relative to its folder. */
function commandTrees(words: readonly string[]): string[] {
  const start = commandStart(words);
  return start < words.length && basename(words[start]!) === 'git' ? gitResets(words.slice(start + 1)).trees : [];
}

function commandWrites(words: readonly string[]): string[] {
  const start = commandStart(words);
  if (start >= words.length) return [];
  const name = basename(words[start]!);
  const args = words.slice(start + 1);
  switch (name) {
    case 'tee': return operandsOf(args, new Set()).filter((a) => a !== '-');
    case 'sed': return sedWrites(args);
    case 'cp': case 'mv': return copyWrites(name, args);
    case 'rm': return operandsOf(args, new Set());
    case 'truncate': return operandsOf(args, new Set(['-s', '-r', '--size', '--reference']));
    case 'dd': return args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3));
    case 'git': return gitResets(args).paths;
    default: return [];
  }
}

/**
 * The paths a command plainly writes, each relative to `cwd` (or absolute),
 * with a `cd DIR` earlier in the line applied. Reads (`cat f`, `< f`) are not writes.
 */
export function shellWrites(command: string, cwd: string): string[] {
  return shellTargets(command, cwd).files;
}

/** `path` without its `.` names: no-ops for the kernel (unlike `..`, which follows the link before it). */
function withoutDotNames(path: string): string {
  const kept = path.split('/').filter((name, i) => i === 0 || name !== '.').join('/');
  return kept === '' ? '/' : kept;
}

/**
 * What a command plainly writes (`files`, as shellWrites) and the folders
 * whose tracked files a git command in it resets (`trees`, absolute, `/` for
 * a whole work tree).
 */
export function shellTargets(command: string, cwd: string): { files: string[]; trees: string[] } {
  const tokens = tokenizeShell(command);
  const written: string[] = [];
  const trees: string[] = [];
  let dir = cwd;
  let words: { text: string; isPlain: boolean }[] = [];
  // A written path as the kernel reads it (its `..` after a link); `cd` folds `..` first, as the shell's logical cd does.
  const place = (path: string): string => withoutDotNames(joinAsWritten(dir, path));
  const finish = (): void => {
    const plain = words.every((w) => w.isPlain);
    const texts = words.map((w) => w.text);
    if (texts[0] === 'cd' && texts.length >= 2 && words[1]!.isPlain) dir = isAbsolute(texts[1]!) ? texts[1]! : join(dir, texts[1]!);
    // A command with a computed word is judged only on its plain words: a computed one is never a path.
    else {
      const named = plain ? texts : texts.filter((_, k) => words[k]!.isPlain);
      written.push(...commandWrites(named).map(place));
      // git reads its pathspecs lexically from its folder: a tree is folded as written.
        trees.push(...commandTrees(named).map((path) => (isAbsolute(path) ? path : join(dir, path))));
    }
    words = [];
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.kind === 'word') {
      words.push(token);
      continue;
    }
    if (SEPARATORS.has(token.text)) {
      finish();
      continue;
    }
    const next = tokens[i + 1];
    if (next?.kind !== 'word') continue;
    i += 1;
    if (READ_REDIRECTS.has(token.text) || !WRITE_REDIRECTS.has(token.text) || !next.isPlain) continue;
    // `>&2` and `>&-` duplicate or close a descriptor; `>& file` writes the file.
    if (token.text === '>&' && /^(?:\d+|-)$/.test(next.text)) continue;
    written.push(place(next.text));
  }
  finish();
  return { files: written.filter((p) => p !== '' && !p.startsWith('/dev/')), trees };
}
