// Shell tool calls and held files (PROTOCOL 8.6, "Shell writes"). Before the
// call: the files the command plainly writes (shell-parse.ts) are judged like
// an edit, and, when other members hold files, what those files look like
// (mtime, size, inode) is recorded in a small file of this call
// (store: writeShellRecord), never in the state. After the call: the record
// is taken and compared; a held file that changed is reported to the writer
// and, as a `system` message, to its holder. Nothing held by others: nothing
// is read, walked or written.
import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { judgeEdit, patternsHeldByOthers, patternsOverlap, type Conflict, type State } from '../engine';
import { isRecordedProcessAlive } from '../process/liveness';
import { realPathOf, takeShellRecord, writeShellRecord } from '../store';
import type { HookEvent } from './events';

/** Each host's shell tools, as their hook events name them. */
const SHELL_TOOLS = new Set(['Bash', 'exec_command', 'shell', 'local_shell', 'shell_command', 'run_shell_command']);
/** A glob reservation is matched against at most this many entries of the project per call. */
export const MAX_WALK_ENTRIES = 5_000;
// Folders a glob is not looked for in unless the pattern names them.
const SKIPPED_DIRS = new Set(['.git', 'node_modules', '.opencomms']);

/** Whether a tool (as a hook event names it) is one of the hosts' shell tools. */
export function isShellTool(name: string): boolean {
  return SHELL_TOOLS.has(name);
}

/** The command line of a shell tool call and the folder it runs in, or undefined for any other tool. */
export function shellCallOf(event: HookEvent, cwd: string): { command: string; dir: string } | undefined {
  if (event.toolName === undefined || !isShellTool(event.toolName)) return undefined;
  const input = event.toolInput ?? {};
  const raw = input.command ?? input.cmd;
  const command = typeof raw === 'string' ? raw : Array.isArray(raw) && raw.every((w) => typeof w === 'string') ? argvText(raw as string[]) : undefined;
  if (command === undefined) return undefined;
  const base = event.cwd ?? cwd;
  // Codex names the command's folder `workdir`, Gemini CLI `directory` (or `dir_path`).
  const named = [input.workdir, input.directory, input.dir_path].find((d): d is string => typeof d === 'string' && d.trim() !== '');
  return { command, dir: named === undefined ? base : isAbsolute(named) ? named : join(base, named) };
}

// Codex passes argv: `bash -lc SCRIPT` is the script; anything else is its words, quoted.
function argvText(argv: readonly string[]): string {
  if (argv.length >= 3 && /(?:^|\/)(?:ba|z|da|k)?sh$/.test(argv[0]!) && /^-[a-z]*c$/.test(argv[1]!)) return argv[2]!;
  return argv.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
}

/** The key of one call's record: its host, session and tool call, hashed into a file name. */
export function shellRecordKey(event: HookEvent, memberId: string | undefined): string {
  const input = event.toolInput ?? {};
  return hash128Hex([event.hosts[0], event.sessionId ?? '', memberId ?? '', event.toolUseId ?? '', JSON.stringify(input.command ?? input.cmd ?? '')].join('\n'));
}

/**
 * A 128-bit hash of `text` as 32 hex digits: four FNV-1a lanes over its
 * UTF-16 code units, each with its own offset and a final avalanche. Not a
 * cryptographic hash: it only names one call's record so the pre-tool and
 * post-tool hooks of that call find it. Loading node:crypto for a sha256
 * would cost a fresh hook process about 6 ms, twice per shell call.
 */
export function hash128Hex(text: string): string {
  const lanes = [0x811c9dc5, 0x01000193 ^ 0x9e3779b9, 0x85ebca6b, 0xc2b2ae35];
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    for (let l = 0; l < 4; l += 1) lanes[l] = Math.imul(lanes[l]! ^ (unit + l), 0x01000193);
  }
  return lanes.map((h, l) => {
    let x = h ^ Math.imul(text.length, l + 1);
    x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
    x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
    return ((x ^ (x >>> 16)) >>> 0).toString(16).padStart(8, '0');
  }).join('');
}

// What one file looked like, as three numbers: mtime ms, size, inode; a file
// that did not exist is three -1s. Kept flat, three numbers per file, so
// 2,000 files are one array to write and parse, not 2,000 objects.
const STAT_OPTIONS = { throwIfNoEntry: false } as const;

function pushMark(marks: number[], path: string): void {
  let stat;
  try {
    stat = statSync(path, STAT_OPTIONS);
  } catch {
    stat = undefined;
  }
  if (stat === undefined) marks.push(-1, -1, -1);
  else marks.push(stat.mtimeMs, stat.size, stat.ino);
}

// The files a pattern names in the project: the file itself for a plain path;
// for a glob, the files under its fixed leading folders that it matches,
// walking at most `budget.left` entries.
function filesOf(root: string, pattern: string, budget: { left: number }, out: Set<string>): void {
  if (!/[*?]/.test(pattern)) {
    out.add(pattern);
    return;
  }
  const segments = pattern.split('/');
  const firstGlob = segments.findIndex((s) => /[*?]/.test(s));
  const walk = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(rel === '' ? root : join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (--budget.left < 0) return;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(path);
      } else if (patternsOverlap(path, pattern)) {
        out.add(path);
      }
    }
  };
  walk(segments.slice(0, firstGlob).join('/'));
}

/** The files the patterns name, and their marks (three numbers each, in the same order). */
interface Marks {
  files: string[];
  marks: number[];
}

function marksOf(projectDir: string, patterns: readonly string[]): Marks {
  const root = realPathOf(projectDir);
  const found = new Set<string>();
  const budget = { left: MAX_WALK_ENTRIES };
  for (const pattern of patterns) filesOf(root, pattern, budget, found);
  const files = [...found];
  const marks: number[] = [];
  // Repo paths are normalised (`/`-separated, no `.` or `..`): joined by hand, 2,000 path.join calls would cost more than the stats.
  const prefix = root.endsWith(sep) ? root : root + sep;
  for (const file of files) pushMark(marks, prefix + (sep === '/' ? file : file.split('/').join(sep)));
  return { files, marks };
}

/**
 * Before a shell call that was not denied: records the files other members
 * hold, when there are any (`key` names the record; asked for only then).
 * Trouble writing the record is the caller's to report; the call goes ahead
 * either way.
 */
export function recordHeldFiles(state: State, memberId: string | undefined, projectDir: string, key: () => string, now: number): number {
  const patterns = patternsHeldByOthers(state, memberId, now, (proc) => isRecordedProcessAlive(proc));
  if (patterns.length === 0) return 0;
  const { files, marks } = marksOf(projectDir, patterns);
  writeShellRecord(projectDir, key(), JSON.stringify({ patterns, files, marks }), now);
  return files.length;
}

/** A held file that changed during the call, and who holds it. */
export interface ChangedHeldFile {
  file: string;
  holders: Conflict[];
}

/** The earlier marks of a record, or undefined when it is not one this version wrote. */
function recordedMarks(text: string): (Marks & { patterns: string[] }) | undefined {
  let before: { patterns?: unknown; files?: unknown; marks?: unknown };
  try {
    before = JSON.parse(text) as typeof before;
  } catch {
    return undefined;
  }
  const { patterns, files, marks } = before;
  if (!Array.isArray(patterns) || !Array.isArray(files) || !Array.isArray(marks) || marks.length !== files.length * 3) return undefined;
  if (!files.every((f) => typeof f === 'string') || !marks.every((m) => typeof m === 'number')) return undefined;
  return { patterns: patterns.filter((p): p is string => typeof p === 'string'), files: files as string[], marks: marks as number[] };
}

function sameMark(a: readonly number[], i: number, b: readonly number[], j: number): boolean {
  return a[i * 3] === b[j * 3] && a[i * 3 + 1] === b[j * 3 + 1] && a[i * 3 + 2] === b[j * 3 + 2];
}

/** The files whose marks differ between two takes (a file in one take only counts as changed unless it is missing in both). */
function changedFiles(before: Marks, after: Marks): string[] {
  const changed: string[] = [];
  const sameList = before.files.length === after.files.length && before.files.every((f, i) => f === after.files[i]);
  if (sameList) {
    // The usual case (plain paths, or globs over an unchanged folder): compared in order.
    for (let i = 0; i < before.files.length; i += 1) if (!sameMark(before.marks, i, after.marks, i)) changed.push(before.files[i]!);
    return changed;
  }
  const MISSING = [-1, -1, -1];
  const at = new Map(after.files.map((f, i) => [f, i]));
  const was = new Map(before.files.map((f, i) => [f, i]));
  for (const [file, i] of was) {
    const j = at.get(file);
    if (j === undefined ? !sameMark(before.marks, i, MISSING, 0) : !sameMark(before.marks, i, after.marks, j)) changed.push(file);
  }
  for (const [file, j] of at) if (!was.has(file) && !sameMark(after.marks, j, MISSING, 0)) changed.push(file);
  return changed;
}

/** After a shell call: the held files that changed since its record, each with its exclusive holders now. */
export function changedHeldFiles(state: State, memberId: string | undefined, projectDir: string, key: string, now: number): ChangedHeldFile[] {
  const text = takeShellRecord(projectDir, key);
  if (text === undefined) return [];
  const before = recordedMarks(text);
  if (before === undefined) return [];
  const changed: ChangedHeldFile[] = [];
  for (const file of changedFiles(before, marksOf(projectDir, before.patterns))) {
    const verdict = judgeEdit(state, memberId, file, now, (proc) => isRecordedProcessAlive(proc));
    if (verdict.kind === 'deny') changed.push({ file, holders: verdict.conflicts });
  }
  return changed;
}

/** What the writer's hook answer says about held files its shell call changed. */
export function shellWriteText(changed: readonly ChangedHeldFile[]): string {
  const lines = changed.slice(0, 10).map(({ file, holders }) => `${file} (held exclusively by ${[...new Set(holders.map((h) => `${h.role} (${h.holder}) in channel "${h.channel}"`))].join(', ')})`);
  const more = changed.length > 10 ? ` and ${changed.length - 10} more` : '';
  return `OpenComms: your shell command changed ${changed.length === 1 ? 'a file' : 'files'} another agent holds exclusively: ${lines.join('; ')}${more}. `
    + 'The holder has been told. Do not change held files; ask the holder (opencomms_send), and restore the file if your change was not wanted.';
}
