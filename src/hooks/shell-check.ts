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
import { sha256Hex } from '../process/crypto';
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
  return sha256Hex([event.hosts[0], event.sessionId ?? '', memberId ?? '', event.toolUseId ?? '', JSON.stringify(input.command ?? input.cmd ?? '')].join('\n')).slice(0, 32);
}

/** What one file looked like: [mtime ms, size, inode], or null when it did not exist. */
type FileMark = [number, number, number] | null;

function markOf(path: string): FileMark {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat === undefined ? null : [stat.mtimeMs, stat.size, stat.ino];
  } catch {
    return null;
  }
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

function marksOf(projectDir: string, patterns: readonly string[]): Record<string, FileMark> {
  const root = realPathOf(projectDir);
  const files = new Set<string>();
  const budget = { left: MAX_WALK_ENTRIES };
  for (const pattern of patterns) filesOf(root, pattern, budget, files);
  const marks: Record<string, FileMark> = {};
  // Repo paths are normalised (`/`-separated, no `.` or `..`): joined by hand, 2,000 path.join calls would cost more than the stats.
  const prefix = root.endsWith(sep) ? root : root + sep;
  for (const file of files) marks[file] = markOf(prefix + (sep === '/' ? file : file.split('/').join(sep)));
  return marks;
}

/**
 * Before a shell call that was not denied: records the files other members
 * hold, when there are any. Trouble writing the record is the caller's to
 * report; the call goes ahead either way.
 */
export function recordHeldFiles(state: State, memberId: string | undefined, projectDir: string, key: string, now: number): number {
  const patterns = patternsHeldByOthers(state, memberId, now, (proc) => isRecordedProcessAlive(proc));
  if (patterns.length === 0) return 0;
  const marks = marksOf(projectDir, patterns);
  writeShellRecord(projectDir, key, JSON.stringify({ patterns, marks }), now);
  return Object.keys(marks).length;
}

/** A held file that changed during the call, and who holds it. */
export interface ChangedHeldFile {
  file: string;
  holders: Conflict[];
}

/** After a shell call: the held files that changed since its record, each with its exclusive holders now. */
export function changedHeldFiles(state: State, memberId: string | undefined, projectDir: string, key: string, now: number): ChangedHeldFile[] {
  const text = takeShellRecord(projectDir, key);
  if (text === undefined) return [];
  let before: { patterns?: unknown; marks?: unknown };
  try {
    before = JSON.parse(text) as typeof before;
  } catch {
    return [];
  }
  if (!Array.isArray(before.patterns) || before.marks === null || typeof before.marks !== 'object') return [];
  const earlier = before.marks as Record<string, FileMark>;
  const after = marksOf(projectDir, before.patterns.filter((p): p is string => typeof p === 'string'));
  const changed: ChangedHeldFile[] = [];
  for (const file of new Set([...Object.keys(earlier), ...Object.keys(after)])) {
    if (isSameMark(earlier[file] ?? null, after[file] ?? null)) continue;
    const verdict = judgeEdit(state, memberId, file, now, (proc) => isRecordedProcessAlive(proc));
    if (verdict.kind === 'deny') changed.push({ file, holders: verdict.conflicts });
  }
  return changed;
}

function isSameMark(a: FileMark, b: FileMark): boolean {
  return a === null || b === null ? a === b : a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

/** What the writer's hook answer says about held files its shell call changed. */
export function shellWriteText(changed: readonly ChangedHeldFile[]): string {
  const lines = changed.slice(0, 10).map(({ file, holders }) => `${file} (held exclusively by ${[...new Set(holders.map((h) => `${h.role} (${h.holder}) in channel "${h.channel}"`))].join(', ')})`);
  const more = changed.length > 10 ? ` and ${changed.length - 10} more` : '';
  return `OpenComms: your shell command changed ${changed.length === 1 ? 'a file' : 'files'} another agent holds exclusively: ${lines.join('; ')}${more}. `
    + 'The holder has been told. Do not change held files; ask the holder (opencomms_send), and restore the file if your change was not wanted.';
}
