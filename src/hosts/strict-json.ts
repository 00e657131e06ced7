// Files a host reads as strict JSON. Our own reader takes comments and
// trailing commas (jsonc.ts), so without this check install would edit, and
// doctor pass, a file the host then refuses whole, starting none of its servers.
import { blankJsonc } from './jsonc';

/**
 * The config files (relative to the project) a host reads as strict JSON, and
 * that host. Observed with Claude Code 2.1.332: a comment or a trailing comma
 * in `.mcp.json` makes `claude mcp list` report "MCP config is not a valid
 * JSON" and start no project server; in either settings file, `claude -p`
 * reports "Invalid or malformed JSON" and loads none of it, hooks included.
 * Codex 0.171.0 (`codex exec`) warns "failed to parse hooks config" and runs
 * none of the hooks in a `.codex/hooks.json` with either.
 */
export const STRICT_JSON_FILES: Readonly<Record<string, { host: string; shown: string }>> = {
  '.mcp.json': { host: 'claude-code', shown: 'Claude Code' },
  '.claude/settings.json': { host: 'claude-code', shown: 'Claude Code' },
  '.claude/settings.local.json': { host: 'claude-code', shown: 'Claude Code' },
  '.codex/hooks.json': { host: 'codex', shown: 'Codex' },
};

/**
 * Why the host that reads `file` strictly would refuse `text`, naming the line
 * and column of the first comment or trailing comma; undefined when the file
 * is not read strictly, is strict JSON, or is not even JSON with comments
 * (the JSONC reader reports that one).
 */
export function strictJsonProblem(file: string, text: string): string | undefined {
  const host = STRICT_JSON_FILES[file]?.shown;
  if (host === undefined) return undefined;
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (body.trim() === '' || parsesAs(body) || !parsesAs(blankJsonc(body))) return undefined;
  // Blanking keeps every offset, so the first changed character is the first comment or trailing comma.
  const blanked = blankJsonc(body);
  let at = 0;
  while (at < body.length && body[at] === blanked[at]) at++;
  const what = body[at] === ',' ? 'a trailing comma' : `a comment (${body.slice(at, at + 2)})`;
  const { line, column } = lineAndColumn(body, at);
  return `${host} reads it as strict JSON and refuses it whole (nothing in it takes effect): line ${line}, column ${column} holds ${what}, which strict JSON does not allow`;
}

function parsesAs(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** 1-based line and column of `offset`, columns counted in UTF-16 units as editors show them. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastNewline = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastNewline };
}
