// Gemini CLI's folder trust: ~/.gemini/trustedFolders.json maps a folder to
// TRUST_FOLDER (it and everything under it), TRUST_PARENT (the folder that
// holds it) or DO_NOT_TRUST. In a folder it does not trust, Gemini CLI starts
// no MCP server and runs no hook, user-level ones included. The file is JSON
// and holds no comment of ours, so what `install gemini-cli --apply` added is
// recorded in .opencomms/ (user-trust.ts) for uninstall to take out.
import { dirname, relative, isAbsolute, sep } from 'node:path';
import { isJsonObject, parseJsonObject, renderChanged, renderJson } from './json-config';
import { isJsoncOnly } from './jsonc';

export const GEMINI_TRUST_VALUE = 'TRUST_FOLDER';

export type GeminiTrustState = 'trusted' | 'missing' | 'distrusted';

function isWithin(folder: string, dir: string): boolean {
  const rel = relative(folder, dir);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Whether the rules trust `projectDir`. Throws ConfigError for a file that is not a JSON object. */
export function readGeminiTrust(text: string | undefined, projectDir: string): GeminiTrustState {
  if (text === undefined) return 'missing';
  const rules = parseJsonObject(text);
  if (rules[projectDir] === 'DO_NOT_TRUST') return 'distrusted';
  for (const [folder, level] of Object.entries(rules)) {
    const covered = level === 'TRUST_FOLDER' ? folder : level === 'TRUST_PARENT' ? dirname(folder) : undefined;
    if (covered !== undefined && isWithin(covered, projectDir)) return 'trusted';
  }
  return 'missing';
}

/** The file with the project trusted (our one key added, every other byte kept). */
export function applyGeminiTrust(text: string | undefined, projectDir: string): string {
  if (text === undefined || text.trim() === '') return renderJson({ [projectDir]: GEMINI_TRUST_VALUE });
  const doc = parseJsonObject(text);
  const before = structuredClone(doc);
  doc[projectDir] = GEMINI_TRUST_VALUE;
  return renderChanged(text, before, doc);
}

/** The file without our key (unchanged when it holds another value); undefined when nothing else is left. */
export function removeGeminiTrust(text: string, projectDir: string): string | undefined {
  const doc = parseJsonObject(text);
  if (!isJsonObject(doc) || doc[projectDir] !== GEMINI_TRUST_VALUE) return text;
  const before = structuredClone(doc);
  delete doc[projectDir];
  if (Object.keys(doc).length === 0 && !isJsoncOnly(text)) return undefined;
  return renderChanged(text, before, doc);
}
