// The command line that resumes a host session with a batch of mail: which
// binary, which arguments, and whether the whole argv fits the platform's
// limit. argv only, never a shell: nothing here is ever re-parsed by one.
import { existsSync } from 'node:fs';

/** Hosts we know how to resume headlessly, and the env var that overrides each binary. */
export const SPAWN_HOSTS = {
  'claude-code': { bin: 'claude', override: 'OPENCOMMS_CLAUDE_BIN' },
  codex: { bin: 'codex', override: 'OPENCOMMS_CODEX_BIN' },
} as const;

export type SpawnHost = keyof typeof SPAWN_HOSTS;

export function isSpawnHost(host: string): host is SpawnHost {
  return Object.prototype.hasOwnProperty.call(SPAWN_HOSTS, host);
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
 * Splits an override template on whitespace; a double-quoted segment stays
 * one token (quotes removed). No escapes, variables or globs: this is not a
 * shell. Returns undefined for an unterminated quote or an empty template.
 */
export function splitTemplate(template: string): string[] | undefined {
  const tokens: string[] = [];
  let current = '';
  let hasToken = false;
  let quoted = false;
  for (const ch of template) {
    if (ch === '"') {
      quoted = !quoted;
      hasToken = true;
    } else if (!quoted && /\s/.test(ch)) {
      if (hasToken) tokens.push(current);
      current = '';
      hasToken = false;
    } else {
      current += ch;
      hasToken = true;
    }
  }
  if (quoted) return undefined;
  if (hasToken) tokens.push(current);
  return tokens.length > 0 && tokens[0] !== '' ? tokens : undefined;
}

/** The executable and the arguments that go before ours. */
export interface HostBinary {
  file: string;
  prefix: string[];
}

/**
 * The binary for `host`: the override when set (an existing path verbatim,
 * even with spaces; otherwise a template), else the plain name looked up on
 * PATH by the OS. Undefined when the override is unusable.
 */
export function resolveHostBinary(host: SpawnHost, env: Readonly<Record<string, string | undefined>>): HostBinary | undefined {
  const { bin, override } = SPAWN_HOSTS[host];
  const raw = env[override];
  if (raw === undefined || raw.trim() === '') return { file: bin, prefix: [] };
  if (existsSync(raw)) return { file: raw, prefix: [] };
  const tokens = splitTemplate(raw.trim());
  return tokens ? { file: tokens[0]!, prefix: tokens.slice(1) } : undefined;
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

/**
 * What one argument costs against the budget. POSIX passes UTF-8 bytes
 * plus a NUL; Windows builds one UTF-16 command line in which an argument
 * may be quoted and every character may need an escape.
 */
export function argCost(value: string, platform: string): number {
  return platform === 'win32' ? 2 * value.length + 3 : Buffer.byteLength(value, 'utf8') + 1;
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
  const units = (text: string): number => (platform === 'win32' ? text.length : Buffer.byteLength(text, 'utf8'));
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
