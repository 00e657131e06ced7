// The tokenizer behind toml.ts: follows a whole TOML document (strings,
// arrays, inline tables, comments, headers) far enough to split it into table
// sections with their byte offsets. Anything it cannot follow is a TomlError.

export class TomlError extends Error {}

export type KeyPath = string[];

export interface Section {
  path: KeyPath;
  isArray: boolean;
  /** Offset of the header line's first byte. */
  start: number;
  /** Offset just past the newline of the section's last header or key/value line. */
  contentEnd: number;
  /** Its key/values; strings, arrays of strings and tables of strings are decoded, other values are undefined. */
  entries: SectionEntry[];
}

export interface SectionEntry {
  key: KeyPath;
  value: TomlValue;
  /** Offset of the entry line's first byte, and just past its newline. */
  start: number;
  end: number;
}

export type TomlValue = string | string[] | Record<string, string> | undefined;

const BARE_KEY = /[A-Za-z0-9_-]/;

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
      const bodyStart = this.pos;
      const end = this.text.indexOf("'''", this.pos);
      if (end === -1) this.fail('an unterminated multi-line string');
      let close = end;
      while (close + 3 < this.text.length && this.text[close + 3] === "'" && close - end < 2) close++;
      this.advance(close + 3 - this.pos);
      return this.text.slice(bodyStart, close);
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

/** Splits a TOML document into its table sections and the key/values before them; throws TomlError on what it cannot follow. */
export function scanSections(text: string): { sections: Section[]; rootKeys: KeyPath[]; rootEntries: SectionEntry[] } {
  const s = new Scanner(text);
  const sections: Section[] = [];
  const rootEntries: SectionEntry[] = [];
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
    const entry = { key, value, start: lineStart, end: s.pos };
    if (current) {
      current.contentEnd = s.pos;
      current.entries.push(entry);
    } else {
      rootEntries.push(entry);
    }
  }
  return { sections, rootKeys: rootEntries.map((entry) => entry.key), rootEntries };
}
