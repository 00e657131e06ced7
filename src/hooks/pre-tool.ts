// The pre-tool decision: before a host runs a file-writing tool, is the file
// held by another member's reservation? Denied in the host's own deny format
// when held exclusively, allowed with a warning when held shared, silent
// otherwise. It costs one lock-free read; anything that goes wrong lets the
// edit proceed (fail open) and says why on stderr.
import { statSync, type Stats } from 'node:fs';
import { isAbsolute, relative, resolve as resolvePath } from 'node:path';
import { describeVerdict, isMemberOfChannel, judgeEdit, liveReservations, normalizePattern, type EditVerdict, type State } from '../engine';
import { isRecordedProcessAlive } from '../process/liveness';
import { joinAsWritten, realPathOf } from '../files/real-path';
import { denyAnswer, type HookAnswer } from './answer';
import { HOST_GEMINI, type HookEvent } from './events';
import { candidatesOf, isShellTool } from './shell-check';

/** Claude Code's file-writing tools and the input field naming the file. */
const CLAUDE_WRITERS: Record<string, readonly string[]> = {
  Edit: ['file_path'],
  Write: ['file_path'],
  MultiEdit: ['file_path'],
  NotebookEdit: ['notebook_path'],
};

/** Gemini CLI's file-writing tools (its BeforeTool tool names). */
const GEMINI_WRITERS: Record<string, readonly string[]> = {
  write_file: ['file_path'],
  replace: ['file_path'],
};

// Codex edits through apply_patch, whose patch text names each file on a
// header line. Codex (codex-rs/apply-patch/src/parser.rs) splits the patch at
// LF (dropping a CR before it) and reads each hunk header after trimming the
// line of whitespace as Rust's str::trim counts it, so an indented or
// CR-padded header names a file all the same. Every line that reads as a
// header once trimmed is taken as one: a context line of another hunk that
// only looks like a header can make the check stricter, never looser.
const PATCH_HEADER = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$/;
// Rust's White_Space (str::trim); JavaScript's trim() misses NEL (U+0085) and adds U+FEFF.
const RUST_SPACE = '[\\t\\n\\u000b\\u000c\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const RUST_TRIM = new RegExp(`^${RUST_SPACE}+|${RUST_SPACE}+$`, 'g');
// Codex also runs `cd <dir> && apply_patch <<'EOF'`, with the patch's paths relative to <dir>.
const CD_THEN_PATCH = /^\s*cd\s+(?:'([^']*)'|"([^"\\$`]*)"|([^\s'"&|;<>()$`\\]+))\s*&&\s*(?:apply_patch|applypatch)\s*<</;

/** The files one text names on apply_patch header lines, as Codex reads them. */
export function patchHeaderFiles(text: string): string[] {
  // Most texts (every plain shell command) hold no header: the line split and the trim are skipped.
  if (!text.includes('*** ')) return [];
  const files: string[] = [];
  for (const line of text.split('\n')) {
    const match = PATCH_HEADER.exec(line.replace(RUST_TRIM, ''));
    if (match && match[1]!.trim() !== '') files.push(match[1]!.trim());
  }
  const cd = CD_THEN_PATCH.exec(text);
  const dir = cd ? (cd[1] ?? cd[2] ?? cd[3]!) : undefined;
  return dir === undefined ? files : files.map((file) => joinAsWritten(dir, file));
}

function stringsIn(value: unknown, out: string[], depth = 0): string[] {
  if (depth > 4) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, out, depth + 1);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) stringsIn(item, out, depth + 1);
  return out;
}

/** The files a pre-tool event is about to write, as the tool named them (absolute or relative to `cwd`). */
export function filesWritten(event: HookEvent): string[] {
  const name = event.toolName ?? '';
  const input = event.toolInput ?? {};
  const writers = event.hosts.length === 1 && event.hosts[0] === HOST_GEMINI ? GEMINI_WRITERS : CLAUDE_WRITERS;
  const fields = Object.prototype.hasOwnProperty.call(writers, name) ? writers[name]! : undefined;
  if (fields) return fields.map((f) => input[f]).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  // Codex's shell tools take the command's directory as `workdir`; the patch's paths are relative to it.
  const workdir = typeof input.workdir === 'string' && input.workdir.trim() !== '' ? input.workdir : undefined;
  const files = stringsIn(input, []).flatMap(patchHeaderFiles);
  return workdir === undefined ? files : files.map((file) => joinAsWritten(workdir, file));
}

/**
 * A written file as a repo-relative path, or undefined when it lies outside
 * the project. Both sides are compared as the kernel names them (every link
 * resolved before the `..` after it: realPathOf), so a file reached through
 * a link inside the project, or a project reached through a link, is the
 * file a reservation names; a link that leads out of the project leads to a
 * file outside it.
 */
export function repoPath(file: string, projectDir: string, cwd: string): string | undefined {
  return insideProject(realPathOf(file, cwd), realPathOf(projectDir));
}

function insideProject(absolute: string, root: string): string | undefined {
  const inside = relative(root, absolute);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
  const normalized = normalizePattern(inside.split('\\').join('/'), '/');
  return typeof normalized === 'string' ? normalized : undefined;
}

// The files a written path may name: as the kernel walks it (a `..` after a
// link is the parent of the link's target: shells, Claude Code, Gemini CLI),
// and with its `..` folded first, as a host that normalises a path before it
// opens it writes (Codex's apply_patch: seen with Codex 0.171.0). Judging
// both can deny a path that only one reading holds, never pass one.
function readingsOf(file: string, cwd: string): string[] {
  const asWalked = realPathOf(file, cwd);
  const folded = realPathOf(resolvePath(cwd, file));
  return asWalked === folded ? [asWalked] : [asWalked, folded];
}

/**
 * The repo-relative files a tool call writes, to be judged: each named file
 * where it may be written (inside the project; readingsOf), and, for one that
 * exists with more than one hard link (anywhere), every file another member
 * holds that is the same inode, since a write through either name changes
 * both. The held files are found as the shell record finds them (plain
 * paths, globs walked within a budget); only a multi-linked target costs
 * that walk.
 */
export function judgedFiles(state: State, memberId: string | undefined, named: readonly string[], projectDir: string, cwd: string, now: number): string[] {
  const root = realPathOf(projectDir);
  const files: string[] = [];
  const inodes: { dev: number; ino: number }[] = [];
  for (const absolute of named.flatMap((file) => readingsOf(file, cwd))) {
    const inside = insideProject(absolute, root);
    if (inside !== undefined) files.push(inside);
    const stat = statOrUndefined(absolute);
    if (stat !== undefined && stat.isFile() && stat.nlink > 1) inodes.push({ dev: stat.dev, ino: stat.ino });
  }
  if (inodes.length === 0) return files;
  const held = new Set<string>();
  for (const channel of Object.values(state.channels)) {
    for (const r of liveReservations(state, channel, now, (proc) => isRecordedProcessAlive(proc))) if (r.member_id !== memberId) held.add(r.path);
  }
  const { files: candidates, onDisk } = candidatesOf(projectDir, [...held]);
  for (const candidate of candidates) {
    const stat = statOrUndefined(onDisk(candidate));
    if (stat !== undefined && inodes.some((i) => i.dev === stat.dev && i.ino === stat.ino)) files.push(candidate);
  }
  return files;
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // unreadable: no inode to compare
  }
}

/**
 * The verdict for every file this event writes; the strictest wins. Every
 * session is judged, member of a channel or not (`memberId` undefined when
 * its session has no member yet).
 */
export function judgeEvent(state: State, memberId: string | undefined, files: readonly string[], now: number): EditVerdict {
  const verdicts = files.map((file) => judgeEdit(state, memberId, file, now, (proc) => isRecordedProcessAlive(proc)));
  const deny = verdicts.filter((v) => v.kind === 'deny');
  if (deny.length > 0) return { kind: 'deny', conflicts: deny.flatMap((v) => v.conflicts) };
  const warn = verdicts.filter((v) => v.kind === 'warn');
  return warn.length > 0 ? { kind: 'warn', conflicts: warn.flatMap((v) => v.conflicts) } : { kind: 'pass', conflicts: [] };
}

/** The host's own answer for a verdict: its deny format, a warning the agent reads, or nothing. `nonce` frames the holders' reasons. */
export function preToolAnswer(event: HookEvent, state: State, memberId: string | undefined, verdict: EditVerdict, nonce: () => string): HookAnswer {
  if (verdict.kind === 'pass') return {};
  const action = event.toolName !== undefined && isShellTool(event.toolName) ? 'command' : 'edit';
  const text = describeVerdict(verdict, (channel) => isMemberOfChannel(state, memberId, channel), nonce, action);
  const isGemini = event.hosts.length === 1 && event.hosts[0] === HOST_GEMINI;
  if (verdict.kind === 'deny') return denyAnswer(event, text);
  // Gemini's BeforeTool takes no context for the model: the user sees the note instead.
  return isGemini ? { systemMessage: text } : { hookSpecificOutput: { hookEventName: event.name, additionalContext: text } };
}
