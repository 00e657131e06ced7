// Finding the binary that resumes a host session: the override from the
// environment (which may name a file on disk), else the plain name. The rest
// of the command line (its arguments and whether it fits) is pure and lives
// in the engine (engine/spawn-argv.ts), re-exported here for the callers.
import { existsSync } from 'node:fs';
import { SPAWN_HOSTS, type HostBinary, type SpawnHost } from '../engine';

export {
  argCost, argvBudget, argvCost, CLAUDE_RESUME_ALLOWED_TOOLS, fittingPrefix, hostSessionIdProblem, isSpawnHost,
  MAX_HOST_SESSION_ID_CHARS, resumeArgs, SPAWN_HOSTS,
} from '../engine';
export type { HostBinary, SpawnHost } from '../engine';

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

/** Each resumable host's binary as this process's environment names it; null where the override is unusable. */
export function resolveHostBinaries(env: Readonly<Record<string, string | undefined>>): Record<SpawnHost, HostBinary | null> {
  return {
    'claude-code': resolveHostBinary('claude-code', env) ?? null,
    codex: resolveHostBinary('codex', env) ?? null,
  };
}
