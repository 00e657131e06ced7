// Shell tool calls and held files (PROTOCOL 8.5; docs/internals.md "The pre-tool check"). Before the
// call: the files the command plainly writes (shell-parse.ts) are judged like
// an edit, and, when other members hold files, which of those files exist is
// recorded in a small file of this call (store: writeShellRecord), never in
// the state. After the call: each held file is judged against the record
// (judgeShellRecord) and the record is removed; a held file that changed is
// reported to the writer and, as a `system` message, to its holder. Nothing
// held by others: nothing is read, walked or written.
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { judgeEdit, patternsHeldByOthers, patternsOverlap, shownFileName, type Conflict, type State } from '../engine';
import { isRecordedProcessAlive } from '../process/liveness';
import { hasShellRecord, readShellRecord, removeShellRecord, writeShellRecord } from '../local/side-files';
import { joinAsWritten, realPathOf } from '../files/real-path';
import type { HookEvent } from './events';

/**
 * Each host's shell tools, as their hook events name them. Codex's
 * `write_stdin` types `chars` into a command it started: judged as a command
 * line of its own, should a hook event name it (Codex 0.171.0 sends none:
 * PROTOCOL 8.5).
 */
const SHELL_TOOLS = new Set(['Bash', 'exec_command', 'shell', 'local_shell', 'shell_command', 'run_shell_command', 'write_stdin']);
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
  const raw = commandFieldOf(input);
  const command = typeof raw === 'string' ? raw : Array.isArray(raw) && raw.every((w) => typeof w === 'string') ? argvText(raw as string[]) : undefined;
  if (command === undefined) return undefined;
  const base = event.cwd ?? cwd;
  // Codex names the command's folder `workdir`, Gemini CLI `directory` (or `dir_path`).
  const named = [input.workdir, input.directory, input.dir_path].find((d): d is string => typeof d === 'string' && d.trim() !== '');
  return { command, dir: named === undefined ? base : joinAsWritten(base, named) };
}

// The command line's field: Claude Code and Gemini CLI `command`, Codex `cmd` (or argv in `command`), write_stdin `chars`.
function commandFieldOf(input: Record<string, unknown>): unknown {
  return input.command ?? input.cmd ?? input.chars;
}

// Codex passes argv: `bash -lc SCRIPT` is the script; anything else is its words, quoted.
function argvText(argv: readonly string[]): string {
  if (argv.length >= 3 && /(?:^|\/)(?:ba|z|da|k)?sh$/.test(argv[0]!) && /^-[a-z]*c$/.test(argv[1]!)) return argv[2]!;
  return argv.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
}

/**
 * The key of one call's record: its host, session, the member its
 * environment names (if any) and tool call, hashed into a file name. Known
 * before the state is read, so the check after the call can find its record
 * first (changedSinceRecord).
 */
export function shellRecordKey(event: HookEvent, envMemberId: string | undefined): string {
  const input = event.toolInput ?? {};
  return hash128Hex([event.hosts[0], event.sessionId ?? '', envMemberId ?? '', event.toolUseId ?? '', JSON.stringify(commandFieldOf(input) ?? '')].join('\n'));
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

// What the record keeps and how the call is judged. Before the call: the
// held files that exist (a plain path is probed with existsSync, a glob is
// walked), and the record's own write time, which the file system stamps.
// After the call: a held file changed during the call if it is gone, if it
// is new, or if its ctime is not older than the record's write. ctime moves
// on every write, truncation, rename onto the path and chmod, and both
// stamps come from the same file-system clock, so no stat is needed before
// the call; only one after it, per file. The cost of that clock's
// granularity: a write in the same tick (a few ms) just before the call
// counts as one during it, never the other way round. Both stamps are read
// as node's float milliseconds, made from seconds and nanoseconds by one
// formula whose rounding keeps their order, so a ctime not older than the
// record never reads as older. (Bigint stamps made about 30,000 BigInts per
// 2,000 files: the garbage cost a fresh hook process some 10 ms.)
const STAT_OPTIONS = { throwIfNoEntry: false } as const;

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

/** The project-relative files the patterns name (plain paths whether or not they exist, globs walked within MAX_WALK_ENTRIES), and how to reach each on disk. */
export function candidatesOf(projectDir: string, patterns: readonly string[]): { files: Set<string>; onDisk: (file: string) => string } {
  const root = realPathOf(projectDir);
  const files = new Set<string>();
  const budget = { left: MAX_WALK_ENTRIES };
  for (const pattern of patterns) filesOf(root, pattern, budget, files);
  // Repo paths are normalised (`/`-separated, no `.` or `..`): joined by hand, 2,000 path.join calls would cost more than the probes.
  const prefix = root.endsWith(sep) ? root : root + sep;
  return { files, onDisk: (file) => prefix + (sep === '/' ? file : file.split('/').join(sep)) };
}

/** A folder with at least this many candidates is listed once rather than probed file by file. */
const LIST_FOLDER_AT = 16;

/** The candidates that exist now: probed one by one, or by one listing of a folder that holds many of them. */
function presentOf(files: ReadonlySet<string>, onDisk: (file: string) => string): string[] {
  const byFolder = new Map<string, string[]>();
  for (const file of files) {
    const folder = folderOf(file);
    const group = byFolder.get(folder);
    if (group === undefined) byFolder.set(folder, [file]);
    else group.push(file);
  }
  const present: string[] = [];
  for (const [folder, group] of byFolder) {
    let names: Set<string> | undefined;
    if (group.length >= LIST_FOLDER_AT) {
      try {
        names = new Set(readdirSync(onDisk(folder === '' ? '.' : folder)));
      } catch {
        names = new Set(); // no such folder: none of its files exist
      }
    }
    for (const file of group) {
      const isOnDisk = names === undefined ? lstatOrUndefined(onDisk(file)) !== undefined : names.has(file.slice(file.lastIndexOf('/') + 1));
      if (isOnDisk) present.push(file);
    }
  }
  return present;
}

/** The folder of a project-relative path ('' for the root). */
function folderOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

/**
 * Before a shell call that was not denied: records the files other members
 * hold that exist now, when others hold any (`key` names the record; asked
 * for only then). Trouble writing the record is the caller's to report; the
 * call goes ahead either way.
 */
export function recordHeldFiles(state: State, memberId: string | undefined, projectDir: string, key: () => string, now: number): number {
  const patterns = patternsHeldByOthers(state, memberId, now, (proc) => isRecordedProcessAlive(proc));
  if (patterns.length === 0) return 0;
  const { files, onDisk } = candidatesOf(projectDir, patterns);
  const present = presentOf(files, onDisk);
  // A plain path that is present is named once, in `present`: the check after the call takes both lists.
  const named = new Set(present);
  const rest = patterns.filter((p) => /[*?]/.test(p) || !named.has(p));
  writeShellRecord(projectDir, key(), JSON.stringify({ patterns: rest, present }), now);
  return present.length;
}

/** A held file that changed during the call, and who holds it. */
export interface ChangedHeldFile {
  file: string;
  holders: Conflict[];
}

/** The patterns and present files of a record, or undefined when it is not one this version wrote. */
function recordedFiles(text: string): { patterns: string[]; present: string[] } | undefined {
  let before: { patterns?: unknown; present?: unknown };
  try {
    before = JSON.parse(text) as typeof before;
  } catch {
    return undefined;
  }
  const { patterns, present } = before;
  if (!Array.isArray(patterns) || !Array.isArray(present) || !present.every((f) => typeof f === 'string')) return undefined;
  return { patterns: patterns.filter((p): p is string => typeof p === 'string'), present: present as string[] };
}

/** The files that changed since the record was written at `writtenAtMs` (by the file system's clock). */
function changedFiles(before: { patterns: string[]; present: string[] }, projectDir: string, writtenAtMs: number): string[] {
  const { files, onDisk } = candidatesOf(projectDir, before.patterns);
  const was = new Set(before.present);
  for (const file of was) files.add(file);
  const changed: string[] = [];
  for (const file of files) {
    const path = onDisk(file);
    const stat = lstatOrUndefined(path);
    if (stat === undefined ? was.has(file) : !was.has(file) || changedSince(stat, path, writtenAtMs)) changed.push(file);
  }
  return changed;
}

// The name's own status (lstat): a held file replaced by a link is a new
// entry at the name, whatever the link points at; unreadable is gone.
function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path, STAT_OPTIONS);
  } catch {
    return undefined;
  }
}

// A held name that is a link changed when the link did, or when the file it
// leads to did (a write through the link); a link to nothing, by its own stamp.
function changedSince(stat: Stats, path: string, writtenAtMs: number): boolean {
  if (stat.ctimeMs >= writtenAtMs) return true;
  if (!stat.isSymbolicLink()) return false;
  try {
    return (statSync(path, STAT_OPTIONS)?.ctimeMs ?? Number.NEGATIVE_INFINITY) >= writtenAtMs;
  } catch {
    return false;
  }
}

/**
 * The held files of the shell call `key` that changed since its record was
 * written, or undefined when it has no record (of this version). Removes nothing.
 */
function judgeShellRecord(projectDir: string, key: string): string[] | undefined {
  const record = readShellRecord(projectDir, key);
  if (record === undefined) return undefined;
  const before = recordedFiles(record.text);
  return before === undefined ? undefined : changedFiles(before, projectDir, record.writtenAtMs);
}

/**
 * After a shell call: the files held before the call that changed during it
 * (none without a record); then the record is removed. Reads no state:
 * the hook runs it before loading the state, where the 2,000 stats of 2,000
 * held files cost a fresh post-tool hook process 5-8 ms less than after the
 * load (measured twice, paired runs).
 */
export function changedSinceRecord(projectDir: string, key: string): string[] {
  if (!hasShellRecord(projectDir, key)) return [];
  try {
    return judgeShellRecord(projectDir, key) ?? [];
  } finally {
    removeShellRecord(projectDir, key);
  }
}

/** Of the files a shell call changed, those another member holds exclusively now, each with its holders. */
export function heldByOthers(state: State, memberId: string | undefined, files: readonly string[], now: number): ChangedHeldFile[] {
  const changed: ChangedHeldFile[] = [];
  for (const file of files) {
    const verdict = judgeEdit(state, memberId, file, now, (proc) => isRecordedProcessAlive(proc));
    if (verdict.kind === 'deny') changed.push({ file, holders: verdict.conflicts });
  }
  return changed;
}

/**
 * What the writer's hook answer says about held files its shell call
 * changed: our sentence, then each file on a line of its own, its name as
 * shownFileName shows it (a name is peer data: it cannot add a line).
 */
export function shellWriteText(changed: readonly ChangedHeldFile[]): string {
  const lines = changed.slice(0, 10).map(({ file, holders }) => `- ${shownFileName(file)} (held exclusively by ${[...new Set(holders.map((h) => `${h.role} (${h.holder}) in channel "${h.channel}"`))].join(', ')})`);
  const more = changed.length > 10 ? [`- and ${changed.length - 10} more`] : [];
  return [`OpenComms: your shell command changed ${changed.length === 1 ? 'a file' : 'files'} another agent holds exclusively:`, ...lines, ...more,
    'The holder has been told. Do not change held files; ask the holder (opencomms_send), and restore the file if your change was not wanted.'].join('\n');
}
