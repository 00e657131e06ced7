// The pure half of the command line that resumes a host session with a batch
// of mail: which hosts can be resumed, the arguments that resume one, and
// whether the whole argv fits the platform's limit. Finding the binary
// (an override may name a file on disk) stays outside the engine, in
// delivery/spawn-command.ts. argv only, never a shell.

/** Hosts we know how to resume headlessly, and the env var that overrides each binary. */
export const SPAWN_HOSTS = {
  'claude-code': { bin: 'claude', override: 'OPENCOMMS_CLAUDE_BIN' },
  codex: { bin: 'codex', override: 'OPENCOMMS_CODEX_BIN' },
} as const;

export type SpawnHost = keyof typeof SPAWN_HOSTS;

export function isSpawnHost(host: string): host is SpawnHost {
  return Object.prototype.hasOwnProperty.call(SPAWN_HOSTS, host);
}

/** The executable and the arguments that go before ours. */
export interface HostBinary {
  file: string;
  prefix: string[];
}

/** Longest host session id we pass on; real ids (UUIDs) are far shorter. */
export const MAX_HOST_SESSION_ID_CHARS = 256;

// Any C0 control or DEL: CR, LF and NUL would break the argv or a log line, the rest have no business in an id.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a host session id cannot be resumed, or undefined when it can. */
export function hostSessionIdProblem(id: string | null | undefined): string | undefined {
  if (typeof id !== 'string' || id.trim() === '') return 'no host_session_id';
  if (id.startsWith('-')) return 'host_session_id starts with "-" and would read as an option';
  if (CONTROL.test(id)) return 'host_session_id contains a control character';
  if (id.length > MAX_HOST_SESSION_ID_CHARS) return `host_session_id is longer than ${MAX_HOST_SESSION_ID_CHARS} characters`;
  return undefined;
}

/**
 * The OpenComms tools a headless Claude Code resume may use: the plain
 * install's server (mcp__opencomms__*) and the --plugin install's
 * (mcp__plugin_opencomms_opencomms__*). `claude -p` refuses every MCP tool
 * no allow rule grants; install writes the rule into the project's
 * .claude/settings.local.json, and this flag covers a session whose settings
 * lack it (a plugin install, a deleted local file), so the resumed session
 * can answer its mail with a tool. Nothing beyond our own tools is granted.
 */
export const CLAUDE_RESUME_ALLOWED_TOOLS = 'mcp__opencomms,mcp__plugin_opencomms_opencomms';

/** The arguments that resume `hostSessionId` with `batch`; the batch is always last. */
export function resumeArgs(host: SpawnHost, hostSessionId: string, batch: string): string[] {
  return host === 'claude-code'
    ? ['-p', '--allowedTools', CLAUDE_RESUME_ALLOWED_TOOLS, '--resume', hostSessionId, batch]
    : ['exec', 'resume', hostSessionId, batch];
}

/** Budget for the whole argv (command included), with room left for the environment. */
export function argvBudget(platform: string): number {
  return platform === 'win32' ? 30_000 : 120_000;
}

/** How many bytes `text` takes in UTF-8 (a lone surrogate as the three of its replacement character). */
export function countUtf8Bytes(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * What one argument costs against the budget. POSIX passes UTF-8 bytes
 * plus a NUL; Windows builds one UTF-16 command line in which an argument
 * may be quoted and every character may need an escape.
 */
export function argCost(value: string, platform: string): number {
  return platform === 'win32' ? 2 * value.length + 3 : countUtf8Bytes(value) + 1;
}

/** Estimated cost of a whole command line; 64 covers the pointers and padding around it. */
export function argvCost(file: string, args: readonly string[], platform: string): number {
  return [file, ...args].reduce((sum, value) => sum + argCost(value, platform), 64);
}

/**
 * How many of `frames` (oldest first) fit in one batch argument next to a
 * command that already costs `fixedCost`. Whole messages only: a batch is
 * split between messages, never inside one.
 */
export function fittingPrefix(frames: readonly string[], separator: string, fixedCost: number, budget: number, platform: string): number {
  const units = (text: string): number => (platform === 'win32' ? text.length : countUtf8Bytes(text));
  const sepUnits = units(separator);
  let total = 0;
  let count = 0;
  for (const frame of frames) {
    total += units(frame) + (count > 0 ? sepUnits : 0);
    const cost = platform === 'win32' ? 2 * total + 3 : total + 1;
    if (fixedCost + cost > budget) break;
    count += 1;
  }
  return count;
}
