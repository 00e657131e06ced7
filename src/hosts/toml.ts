// A small TOML editor for the one table we own in a Codex config.toml:
// `[mcp_servers.opencomms]` and its sub-tables (`.env`). Every other byte of
// the file is kept. The scanner below reads the whole file (strings, arrays,
// inline tables, comments) only far enough to know where each table starts
// and ends; anything it cannot follow is refused rather than guessed at.

export interface OurServer {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export class TomlError extends Error {}

type KeyPath = string[];

interface Section {
  path: KeyPath;
  isArray: boolean;
  /** Offset of the header line's first byte. */
  start: number;
  /** Offset just past the newline of the section's last header or key/value line. */
  contentEnd: number;
  /** Its key/values; strings, arrays of strings and tables of strings are decoded, other values are undefined. */
  entries: { key: KeyPath; value: TomlValue }[];
}

type TomlValue = string | string[] | Record<string, string> | undefined;

const OUR_PATH: KeyPath = ['mcp_servers', 'opencomms'];
const BARE_KEY = /[A-Za-z0-9_-]/;

function startsWithPath(path: KeyPath, prefix: KeyPath): boolean {
  return prefix.length <= path.length && prefix.every((part, i) => path[i] === part);
}

class Scanner {
  pos = 0;
  line = 1;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new TomlError(`${what} on line ${this.line}`);
  }

  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }

  isAtEnd(): boolean {
    return this.pos >= this.text.length;
  }

  advance(count = 1): void {
    for (let i = 0; i < count; i++) {
      if (this.text[this.pos] === '\n') this.line++;
      this.pos++;
    }
  }

  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.advance();
  }

  /** Skips a comment if one starts here; control characters other than tab are refused. */
  skipComment(): void {
    if (this.peek() !== '#') return;
    while (!this.isAtEnd() && this.peek() !== '\n' && !(this.peek() === '\r' && this.peek(1) === '\n')) {
      if (isControl(this.peek()) && this.peek() !== '\t') this.fail('a control character in a comment');
      this.advance();
    }
  }

  /** Consumes the end of a line (or the end of the file); anything else is an error. */
  expectLineEnd(): void {
    this.skipSpaces();
    this.skipComment();
    if (this.isAtEnd()) return;
    if (this.peek() === '\n') return this.advance();
    if (this.peek() === '\r' && this.peek(1) === '\n') return this.advance(2);
    this.fail(`unexpected ${JSON.stringify(this.peek())}`);
  }

  /** Spaces, newlines and comments, as allowed inside arrays. */
  skipBlank(): void {
    for (;;) {
      this.skipSpaces();
      if (this.peek() === '#') this.skipComment();
      else if (this.peek() === '\n') this.advance();
      else if (this.peek() === '\r' && this.peek(1) === '\n') this.advance(2);
      else return;
    }
  }

  readKey(): KeyPath {
    const parts: string[] = [];
    for (;;) {
      this.skipSpaces();
      const c = this.peek();
      if (c === '"') parts.push(this.readBasicString());
      else if (c === "'") parts.push(this.readLiteralString());
      else {
        const begin = this.pos;
        while (BARE_KEY.test(this.peek())) this.advance();
        if (this.pos === begin) this.fail('a missing or malformed key');
        parts.push(this.text.slice(begin, this.pos));
      }
      this.skipSpaces();
      if (this.peek() !== '.') return parts;
      this.advance();
    }
  }

  readBasicString(): string {
    if (this.text.startsWith('"""', this.pos)) return this.readMultilineBasic();
    this.advance();
    let out = '';
    for (;;) {
      const c = this.peek();
      if (this.isAtEnd() || c === '\n') this.fail('an unterminated string');
      this.advance();
      if (c === '"') return out;
      if (c === '\\') out += this.readEscape();
      else if (isControl(c) && c !== '\t') this.fail('a control character in a string');
      else out += c;
    }
  }

  readMultilineBasic(): string {
    this.advance(3);
    if (this.peek() === '\n') this.advance();
    else if (this.peek() === '\r' && this.peek(1) === '\n') this.advance(2);
    let out = '';
    for (;;) {
      if (this.isAtEnd()) this.fail('an unterminated multi-line string');
      if (this.text.startsWith('"""', this.pos)) {
        // up to two quotes may sit right before the closing delimiter
        let extra = 0;
        while (extra < 2 && this.peek(3 + extra) === '"') extra++;
        out += '"'.repeat(extra);
        this.advance(3 + extra);
        return out;
      }
      const c = this.peek();
      this.advance();
      if (c === '\\') {
        const rest = /^[ \t]*\r?\n/.exec(this.text.slice(this.pos));
        if (rest) {
          this.advance(rest[0].length);
          this.skipBlankOnly();
        } else out += this.readEscape();
      } else if (isControl(c) && c !== '\t' && c !== '\n' && c !== '\r') this.fail('a control character in a string');
      else out += c;
    }
  }

  private skipBlankOnly(): void {
    while (/[ \t\r\n]/.test(this.peek()) && !this.isAtEnd()) this.advance();
  }

  readEscape(): string {
    const c = this.peek();
    this.advance();
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };
    if (Object.prototype.hasOwnProperty.call(simple, c)) return simple[c];
    const width = c === 'u' ? 4 : c === 'U' ? 8 : c === 'x' ? 2 : 0;
    if (width === 0) this.fail(`an unknown escape "\\${c}"`);
    const hex = this.text.slice(this.pos, this.pos + width);
    if (!new RegExp(`^[0-9A-Fa-f]{${width}}$`).test(hex)) this.fail('a malformed unicode escape');
    this.advance(width);
    const code = parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail('an escape that is not a unicode scalar value');
    return String.fromCodePoint(code);
  }

  readLiteralString(): string {
    if (this.text.startsWith("'''", this.pos)) {
      this.advance(3);
      if (this.peek() === '\n') this.advance();
      else if (this.peek() === '\r' && this.peek(1) === '\n') this.advance(2);
      const begin = this.pos;
      const end = this.text.indexOf("'''", this.pos);
      if (end === -1) this.fail('an unterminated multi-line string');
      let close = end;
      while (close + 3 < this.text.length && this.text[close + 3] === "'" && close - end < 2) close++;
      this.advance(close + 3 - this.pos);
      return this.text.slice(begin, close);
    }
    this.advance();
    const begin = this.pos;
    while (this.peek() !== "'") {
      if (this.isAtEnd() || this.peek() === '\n') this.fail('an unterminated string');
      if (isControl(this.peek()) && this.peek() !== '\t') this.fail('a control character in a string');
      this.advance();
    }
    const value = this.text.slice(begin, this.pos);
    this.advance();
    return value;
  }

  /** Reads one value; returns it decoded when it is a string, an array of strings or a table of strings. */
  readValue(depth = 0): TomlValue {
    if (depth > 64) this.fail('values nested too deeply');
    const c = this.peek();
    if (c === '"') return this.readBasicString();
    if (c === "'") return this.readLiteralString();
    if (c === '[') return this.readArray(depth);
    if (c === '{') return this.readInlineTable(depth);
    const begin = this.pos;
    // numbers, booleans, dates and times: one run of these characters (a date-time may hold one space)
    while (/[A-Za-z0-9_+\-.:]/.test(this.peek()) || (this.peek() === ' ' && /^ \d\d:/.test(this.text.slice(this.pos, this.pos + 4)))) {
      this.advance();
    }
    if (this.pos === begin) this.fail('a missing or malformed value');
    return undefined;
  }

  private readArray(depth: number): string[] | undefined {
    this.advance();
    const items: TomlValue[] = [];
    for (;;) {
      this.skipBlank();
      if (this.isAtEnd()) this.fail('an unterminated array');
      if (this.peek() === ']') break;
      items.push(this.readValue(depth + 1));
      this.skipBlank();
      if (this.peek() === ',') this.advance();
      else if (this.peek() !== ']') this.fail(this.isAtEnd() ? 'an unterminated array' : 'a missing comma in an array');
    }
    this.advance();
    return items.every((item) => typeof item === 'string') ? (items as string[]) : undefined;
  }

  private readInlineTable(depth: number): Record<string, string> | undefined {
    this.advance();
    const table: Record<string, string> = {};
    let isStrings = true;
    this.skipBlank();
    if (this.peek() === '}') {
      this.advance();
      return table;
    }
    for (;;) {
      this.skipBlank();
      const key = this.readKey();
      if (this.peek() !== '=') this.fail('a missing "=" in an inline table');
      this.advance();
      this.skipSpaces();
      const value = this.readValue(depth + 1);
      if (typeof value === 'string' && key.length === 1) table[key[0]] = value;
      else isStrings = false;
      this.skipBlank();
      if (this.isAtEnd()) this.fail('an unterminated inline table');
      if (this.peek() === '}') break;
      if (this.peek() !== ',') this.fail('a missing comma in an inline table');
      this.advance();
    }
    this.advance();
    return isStrings ? table : undefined;
  }
}

function isControl(c: string): boolean {
  const code = c.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}

/** Splits a TOML document into its table sections; throws TomlError on what it cannot follow. */
function scanSections(text: string): { sections: Section[]; rootKeys: KeyPath[] } {
  const s = new Scanner(text);
  const sections: Section[] = [];
  const rootKeys: KeyPath[] = [];
  let current: Section | undefined;
  for (;;) {
    s.skipBlank();
    if (s.isAtEnd()) break;
    const lineStart = text.lastIndexOf('\n', s.pos - 1) + 1;
    if (s.peek() === '[') {
      const isArray = s.peek(1) === '[';
      s.advance(isArray ? 2 : 1);
      const path = s.readKey();
      if (s.peek() !== ']' || (isArray && s.peek(1) !== ']')) s.fail('a malformed table header');
      s.advance(isArray ? 2 : 1);
      s.expectLineEnd();
      current = { path, isArray, start: lineStart, contentEnd: s.pos, entries: [] };
      sections.push(current);
      continue;
    }
    const key = s.readKey();
    if (s.peek() !== '=') s.fail('a missing "=" after a key');
    s.advance();
    s.skipSpaces();
    const value = s.readValue();
    s.expectLineEnd();
    if (current) {
      current.contentEnd = s.pos;
      current.entries.push({ key, value });
    } else {
      rootKeys.push(key);
    }
  }
  return { sections, rootKeys };
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
 * Returns `text` with our tables set to `server`: replaced where they are,
 * appended (after one blank line) when absent. Throws TomlError when the
 * file cannot be followed safely.
 */
export function upsertOurTables(text: string, server: OurServer): string {
  const ours = locateOurTables(text);
  const block = renderOurTables(server);
  if (ours.length === 0) {
    if (text.trim() === '') return block;
    const separator = /\r?\n[ \t]*\r?\n$/.test(text) ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    return text + separator + block;
  }
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
