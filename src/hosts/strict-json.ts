// Files a host reads as strict JSON, or as JSON with comments but no trailing
// commas. Our own reader takes both (jsonc.ts), so without this check install
// would edit, and doctor pass, a file the host then refuses whole.
import { blankComments, blankJsonc } from './jsonc';

/**
 * The config files (relative to the project) a host reads strictly, that host,
 * and whether it takes comments in them. Observed with Claude Code 2.1.332: a
 * comment or a trailing comma in `.mcp.json` makes `claude mcp list` report
 * "MCP config is not a valid JSON" and start no project server; in either
 * settings file, `claude -p` reports "Invalid or malformed JSON" and loads
 * none of it, hooks included. Codex 0.171.0 (`codex exec`) warns "failed to
 * parse hooks config" and runs none of the hooks in a `.codex/hooks.json` with
 * either. Gemini CLI 0.61.0 (`gemini -p`) takes comments in its settings but
 * stops at a trailing comma (exit 52) before starting.
 */
export const STRICT_JSON_FILES: Readonly<Record<string, { host: string; shown: string; takesComments?: true }>> = {
  '.mcp.json': { host: 'claude-code', shown: 'Claude Code' },
  '.claude/settings.json': { host: 'claude-code', shown: 'Claude Code' },
  '.claude/settings.local.json': { host: 'claude-code', shown: 'Claude Code' },
  '.codex/hooks.json': { host: 'codex', shown: 'Codex' },
  '.gemini/settings.json': { host: 'gemini-cli', shown: 'Gemini CLI', takesComments: true },
};

/**
 * Why the host that reads `file` strictly would refuse `text`, naming the line
 * and column of the first comment or trailing comma it does not take;
 * undefined when the file is not read strictly, the host takes it, or it is
 * not even JSON with comments (the JSONC reader reports that one).
 */
export function strictJsonProblem(file: string, text: string): string | undefined {
  const reader = STRICT_JSON_FILES[file];
  if (reader === undefined) return undefined;
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const taken = reader.takesComments ? blankComments(body) : body;
  const blanked = blankJsonc(body);
  if (body.trim() === '' || parsesAs(taken) || !parsesAs(blanked)) return undefined;
  // Blanking keeps every offset, so the first character that differs is the first mark the host refuses.
  let at = 0;
  while (at < taken.length && taken[at] === blanked[at]) at++;
  const what = body[at] === ',' ? 'a trailing comma' : `a comment (${body.slice(at, at + 2)})`;
  const { line, column } = lineAndColumn(body, at);
  const kind = reader.takesComments ? 'JSON with comments but no trailing commas' : 'strict JSON';
  return `${reader.shown} reads it as ${kind} and refuses it whole (nothing in it takes effect): line ${line}, column ${column} holds ${what}`;
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
