// A small TOML editor for the one table we own in a Codex config.toml:
// `[mcp_servers.opencomms]` and its sub-tables (`.env`). Every other byte of
// the file is kept. toml-scanner.ts reads the whole file only far enough to
// know where each table starts and ends; anything it cannot follow is refused
// rather than guessed at.
import { KeyPath, scanSections, Section, SectionEntry, TomlError, TomlValue } from './toml-scanner';
import { CODEX_HOME_VARIABLE } from './launch';

export { TomlError };

export interface OurServer {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Variables Codex forwards from the user's environment (`env_vars`): the store's password and CA, by name only. */
  envVars?: string[];
}

const OUR_PATH: KeyPath = ['mcp_servers', 'opencomms'];

function startsWithPath(path: KeyPath, prefix: KeyPath): boolean {
  return prefix.length <= path.length && prefix.every((part, i) => path[i] === part);
}

function describe(path: KeyPath): string {
  return path.map((p) => (/^[A-Za-z0-9_-]+$/.test(p) ? p : JSON.stringify(p))).join('.');
}

/** Finds our sections and refuses any other way of defining them (twice, as an array, by dotted key or inline). */
function locateOurTables(text: string): Section[] {
  const { sections, rootKeys } = scanSections(text);
  const refuseDotted = (full: KeyPath): void => {
    if (startsWithPath(full, OUR_PATH) || startsWithPath(OUR_PATH, full)) {
      throw new TomlError(`${describe(full)} is set by a dotted key or an inline table, which this installer does not edit`);
    }
  };
  rootKeys.forEach(refuseDotted);
  const seen = new Set<string>();
  const ours: Section[] = [];
  for (const section of sections) {
    const name = describe(section.path);
    const isOurs = startsWithPath(section.path, OUR_PATH);
    if (section.isArray && (isOurs || startsWithPath(OUR_PATH, section.path))) {
      throw new TomlError(`[[${name}]] is an array of tables, which this installer does not edit`);
    }
    if (isOurs) {
      if (seen.has(name)) throw new TomlError(`[${name}] is defined twice`);
      seen.add(name);
      ours.push(section);
      continue;
    }
    for (const entry of section.entries) refuseDotted([...section.path, ...entry.key]);
  }
  return ours;
}

/** A TOML basic string: quotes, backslashes and control characters escaped; everything else kept as UTF-8. */
export function quoteTomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0').toUpperCase()}`;
    else out += ch;
  }
  return `${out}"`;
}

function quoteTomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : quoteTomlString(key);
}

/** Our two tables as text, ending with a newline. */
export function renderOurTables(server: OurServer): string {
  const envLines = Object.entries(server.env).map(([k, v]) => `${quoteTomlKey(k)} = ${quoteTomlString(v)}\n`);
  return (
    '[mcp_servers.opencomms]\n' +
    `command = ${quoteTomlString(server.command)}\n` +
    `args = [${server.args.map(quoteTomlString).join(', ')}]\n` +
    (server.envVars?.length ? `env_vars = [${server.envVars.map(quoteTomlString).join(', ')}]\n` : '') +
    '\n[mcp_servers.opencomms.env]\n' +
    envLines.join('')
  );
}

interface Range {
  start: number;
  end: number;
}

/** A section's removable bytes: the section plus the blank lines just before it. */
function removalRange(text: string, section: Section): Range {
  let start = section.start;
  while (start > 0) {
    const prevLineStart = text.lastIndexOf('\n', start - 2) + 1;
    if (text.slice(prevLineStart, start).trim() !== '') break;
    start = prevLineStart;
  }
  let end = section.contentEnd;
  if (start === 0) {
    // at the top of the file, swallow the blank lines after it instead
    while (end < text.length) {
      const nl = text.indexOf('\n', end);
      const lineEnd = nl === -1 ? text.length : nl + 1;
      if (text.slice(end, lineEnd).trim() !== '') break;
      end = lineEnd;
    }
  }
  return { start, end };
}

function spliceRanges(text: string, ranges: Range[], insert?: { at: number; text: string }): string {
  let out = '';
  let cursor = 0;
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  for (const range of sorted) {
    out += text.slice(cursor, Math.max(cursor, range.start));
    if (insert && insert.at === range.start) out += insert.text;
    cursor = Math.max(cursor, range.end);
  }
  return out + text.slice(cursor);
}

/**
 * Returns `text` with our server set to `server`: appended (after one blank
 * line) when absent; otherwise only the keys we own (`command`, `args` and
 * our variables in `env`) are set, so keys and sub-tables the user added to
 * `[mcp_servers.opencomms]` survive a re-install. Throws TomlError when the
 * file cannot be followed safely.
 */
export function upsertOurTables(text: string, server: OurServer): string {
  const ours = locateOurTables(text);
  // Written in the file's own line endings.
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const block = renderOurTables(server).replace(/\n/g, nl);
  if (ours.length === 0) {
    if (text.trim() === '') return block;
    const separator = /\r?\n[ \t]*\r?\n$/.test(text) ? '' : text.endsWith('\n') ? nl : nl + nl;
    return text + separator + block;
  }
  const main = ours.find((section) => section.path.length === OUR_PATH.length);
  if (main) return setOurKeys(text, main, ours.find(isOurEnv), server);
  // Only sub-tables of ours and no main table: nothing of the user's to keep in it.
  return replaceOurTables(text, ours, block);
}

function isOurEnv(section: Section): boolean {
  return section.path.length === OUR_PATH.length + 1 && section.path[OUR_PATH.length] === 'env';
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function entryNamed(section: Section, key: string): SectionEntry | undefined {
  return section.entries.find((entry) => entry.key.length === 1 && entry.key[0] === key);
}

// Edits our keys in place, line by line; every other line stays as it was.
function setOurKeys(text: string, main: Section, envSection: Section | undefined, server: OurServer): string {
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const edits: Edit[] = [];
  let appendToMain = '';
  const setLine = (section: Section, key: string, line: string, missing: (line: string) => void): void => {
    const entry = entryNamed(section, key);
    if (entry) edits.push({ start: entry.start, end: entry.end, text: line });
    else missing(line);
  };
  setLine(main, 'command', `command = ${quoteTomlString(server.command)}${nl}`, (line) => { appendToMain += line; });
  setLine(main, 'args', `args = [${server.args.map(quoteTomlString).join(', ')}]${nl}`, (line) => { appendToMain += line; });
  if (server.envVars?.length) {
    // The user's own forwarded variables stay, ours follow them.
    const theirs = entryNamed(main, 'env_vars')?.value;
    const names = [...(Array.isArray(theirs) ? theirs : []), ...server.envVars].filter((name, i, all) => all.indexOf(name) === i);
    setLine(main, 'env_vars', `env_vars = [${names.map(quoteTomlString).join(', ')}]${nl}`, (line) => { appendToMain += line; });
  }
  if (main.entries.some((entry) => entry.key.length > 1 && entry.key[0] === 'env')) {
    throw new TomlError('mcp_servers.opencomms sets env by dotted keys, which this installer does not edit');
  }
  const inlineEnv = entryNamed(main, 'env');
  let newEnvTable = '';
  if (inlineEnv) {
    const theirs = inlineEnv.value;
    if (!theirs || typeof theirs !== 'object' || Array.isArray(theirs)) {
      throw new TomlError('mcp_servers.opencomms.env is not a table of strings, which this installer does not edit');
    }
    const merged = { ...theirs, ...server.env };
    const pairs = Object.entries(merged).map(([k, v]) => `${quoteTomlKey(k)} = ${quoteTomlString(v)}`);
    edits.push({ start: inlineEnv.start, end: inlineEnv.end, text: `env = { ${pairs.join(', ')} }${nl}` });
  } else if (envSection) {
    let appendToEnv = '';
    for (const [k, v] of Object.entries(server.env)) {
      setLine(envSection, k, `${quoteTomlKey(k)} = ${quoteTomlString(v)}${nl}`, (line) => { appendToEnv += line; });
    }
    if (appendToEnv) edits.push({ start: envSection.contentEnd, end: envSection.contentEnd, text: lineBreakBefore(text, envSection.contentEnd, nl, edits) + appendToEnv });
  } else {
    const lines = Object.entries(server.env).map(([k, v]) => `${quoteTomlKey(k)} = ${quoteTomlString(v)}${nl}`);
    newEnvTable = `${nl}[mcp_servers.opencomms.env]${nl}${lines.join('')}`;
  }
  if (appendToMain || newEnvTable) {
    edits.push({ start: main.contentEnd, end: main.contentEnd, text: lineBreakBefore(text, main.contentEnd, nl, edits) + appendToMain + newEnvTable });
  }
  let out = text;
  for (const edit of edits.sort((x, y) => y.start - x.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

// A section that ends the file without a final newline needs one before more
// lines, unless an edit already rewrote that last line (with its newline).
function lineBreakBefore(text: string, at: number, nl: string, edits: readonly Edit[]): string {
  if (edits.some((edit) => edit.end === at && edit.start < at)) return '';
  return at > 0 && text[at - 1] !== '\n' ? nl : '';
}

function replaceOurTables(text: string, ours: Section[], block: string): string {
  const [first, ...rest] = ours;
  const replaced = text.slice(0, first.start) + block + text.slice(first.contentEnd);
  const shift = block.length - (first.contentEnd - first.start);
  const later = rest.map((section) => removalRange(replaced, { ...section, start: section.start + shift, contentEnd: section.contentEnd + shift }));
  return spliceRanges(replaced, later);
}

/** Returns `text` without our tables (unchanged when they are absent). Throws TomlError like upsert. */
export function removeOurTables(text: string): string {
  const ours = locateOurTables(text);
  if (ours.length === 0) return text;
  return spliceRanges(text, ours.map((section) => removalRange(text, section)));
}

/** Whether the file has a table of ours. Throws TomlError like upsert. */
export function locateOurServer(text: string): boolean {
  return locateOurTables(text).length > 0;
}

/** Variables our installs write into a server entry: ours, not the user's (uninstall does not list them as additions). */
export const OUR_ENV_NAMES: ReadonlySet<string> = new Set(['OPENCOMMS_MEMBER_ID', 'OPENCOMMS_HOST', 'OPENCOMMS_STORE', 'OPENCOMMS_PROJECT_ID', 'NODE_COMPILE_CACHE']);

/**
 * The lines in our tables that install did not write (a `startup_timeout_sec`,
 * an extra variable, a sub-table of the user's), as they stand in the file,
 * each with the table it is in. Throws TomlError like upsert.
 */
export function listUserAdditions(text: string): string[] {
  const lines: string[] = [];
  for (const section of locateOurTables(text)) {
    const isMain = section.path.length === OUR_PATH.length;
    const isEnv = isOurEnv(section);
    const header = `[${describe(section.path)}]`;
    if (!isMain && !isEnv && section.entries.length === 0) lines.push(header);
    for (const entry of section.entries) {
      const name = entry.key.length === 1 ? entry.key[0] : undefined;
      const isOurs = isMain ? name === 'command' || name === 'args' || (name === 'env' && isOnlyOurEnv(entry.value)) || (name === 'env_vars' && isOnlyOurEnvVars(entry.value))
        : isEnv ? name !== undefined && OUR_ENV_NAMES.has(name) : false;
      if (isOurs) continue;
      const line = text.slice(entry.start, entry.end).replace(/\r?\n$/, '').trim();
      lines.push(`${line} (in ${header})`);
    }
  }
  return lines;
}

// The variables install --store forwards all start OPENCOMMS_STORE.
function isOnlyOurEnvVars(value: TomlValue): boolean {
  return Array.isArray(value) && value.every((name) => name.startsWith('OPENCOMMS_STORE') || name === CODEX_HOME_VARIABLE);
}

function isOnlyOurEnv(value: TomlValue): boolean {
  return !!value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).every((name) => OUR_ENV_NAMES.has(name));
}

/** A key of our main table, as the scanner read it; undefined without the table or the key. Throws TomlError like upsert. */
export function ourMainEntry(text: string, key: string): SectionEntry | undefined {
  const main = locateOurTables(text).find((section) => section.path.length === OUR_PATH.length);
  return main === undefined ? undefined : entryNamed(main, key);
}

/** Our server as the file defines it, or undefined when absent or not a plain command/args/env. */
export function readOurServer(text: string): OurServer | undefined {
  const ours = locateOurTables(text);
  const main = ours.find((s) => s.path.length === 2);
  if (!main) return undefined;
  const command = valueOf(main, 'command');
  const args = valueOf(main, 'args');
  if (typeof command !== 'string' || !Array.isArray(args)) return undefined;
  const env: Record<string, string> = {};
  const envSection = ours.find((s) => s.path.length === 3 && s.path[2] === 'env');
  for (const { key, value } of envSection?.entries ?? []) if (key.length === 1 && typeof value === 'string') env[key[0]] = value;
  const inlineEnv = valueOf(main, 'env');
  if (inlineEnv && typeof inlineEnv === 'object' && !Array.isArray(inlineEnv)) Object.assign(env, inlineEnv);
  return { command, args, env };
}

function valueOf(section: Section, key: string): TomlValue {
  return section.entries.find((entry) => entry.key.length === 1 && entry.key[0] === key)?.value;
}
