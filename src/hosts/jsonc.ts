// JSON with comments (JSONC), as VS Code reads .vscode/mcp.json and Gemini CLI
// reads settings.json. Reading: comments and trailing commas are blanked out
// (same length, newlines kept), so every offset in the blanked text is the
// offset in the original. Writing: a changed document is spliced back into the
// original text, member by member, so comments and layout outside the values
// that changed are kept; the result is checked to mean exactly the intended
// document, or the edit is refused.
import type { JsonObject } from './json-config';

/** `text` with comments and trailing commas replaced by spaces; newlines stay. */
export function blankJsonc(text: string): string {
  let out = '';
  let i = 0;
  let lastComma = -1; // index in `out` of a comma that may turn out to be trailing
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
      lastComma = -1;
    } else if (ch === '/' && text[i + 1] === '/') {
      const nl = text.indexOf('\n', i);
      const end = nl === -1 ? text.length : nl;
      out += blank(text.slice(i, end));
      i = end;
    } else if (ch === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      const end = close === -1 ? text.length : close + 2;
      out += blank(text.slice(i, end));
      i = end;
    } else if (ch === ',') {
      lastComma = out.length;
      out += ch;
      i++;
    } else if (ch === '}' || ch === ']') {
      if (lastComma !== -1) out = `${out.slice(0, lastComma)} ${out.slice(lastComma + 1)}`;
      lastComma = -1;
      out += ch;
      i++;
    } else {
      if (!/\s/.test(ch)) lastComma = -1;
      out += ch;
      i++;
    }
  }
  return out;
}

function blank(text: string): string {
  return text.replace(/[^\r\n]/g, ' ');
}

// Index just past the closing quote of the string starting at `start` (or the end of the text).
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === '\\') i += 2;
    else if (text[i] === '"') return i + 1;
    else i++;
  }
  return text.length;
}

/** Whether `text` is JSONC rather than plain JSON (it parses only once comments and trailing commas are gone). */
export function isJsoncOnly(raw: string): boolean {
  const text = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
  try {
    JSON.parse(text);
    return false;
  } catch {
    try {
      JSON.parse(blankJsonc(text));
      return true;
    } catch {
      return false;
    }
  }
}

interface Member {
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
  node: Node;
}

type Node =
  | { kind: 'object'; start: number; end: number; members: Member[] }
  | { kind: 'other'; start: number; end: number };

// A span parser over blanked (plain JSON) text; JSON.parse has already accepted it.
class SpanParser {
  pos = 0;
  constructor(private readonly text: string) {}

  skip(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  value(): Node {
    this.skip();
    const start = this.pos;
    const ch = this.text[start];
    if (ch === '{') return this.object();
    if (ch === '[') {
      this.pos++;
      this.skip();
      while (this.text[this.pos] !== ']') {
        this.value();
        this.skip();
        if (this.text[this.pos] === ',') this.pos++;
        this.skip();
      }
      this.pos++;
    } else if (ch === '"') {
      this.pos = stringEnd(this.text, start);
    } else {
      while (this.pos < this.text.length && !/[\s,\]}]/.test(this.text[this.pos])) this.pos++;
    }
    return { kind: 'other', start, end: this.pos };
  }

  object(): Node {
    const start = this.pos;
    this.pos++;
    const members: Member[] = [];
    this.skip();
    while (this.text[this.pos] !== '}') {
      const keyStart = this.pos;
      this.pos = stringEnd(this.text, keyStart);
      const key = JSON.parse(this.text.slice(keyStart, this.pos)) as string;
      this.skip();
      this.pos++; // ':'
      const node = this.value();
      members.push({ key, keyStart, valueStart: node.start, valueEnd: node.end, node });
      this.skip();
      if (this.text[this.pos] === ',') this.pos++;
      this.skip();
    }
    this.pos++;
    return { kind: 'object', start, end: this.pos, members };
  }
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k], b[k]));
}

function lineIndent(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, at))![0];
}

/**
 * `text` (JSONC meaning `before`) rewritten to mean `after`, keeping comments
 * and layout outside the values that changed. Objects are followed two levels
 * down (a server list, a hooks table); below that a changed value is written
 * anew. Returns undefined when the result would not mean exactly `after`.
 */
export function spliceJsonc(text: string, before: JsonObject, after: JsonObject): string | undefined {
  const blanked = blankJsonc(text);
  let root: Node;
  try {
    root = new SpanParser(blanked).value();
  } catch {
    return undefined;
  }
  if (root.kind !== 'object') return undefined;
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const edits: Edit[] = [];
  try {
    spliceObject({ text: blanked, original: text, nl, edits }, root, before, after, 0);
  } catch {
    return undefined; // `before` does not describe `text`
  }
  let out = text;
  for (const edit of edits.sort((x, y) => y.start - x.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  try {
    return sameJson(JSON.parse(blankJsonc(out)), after) ? out : undefined;
  } catch {
    return undefined;
  }
}

function render(value: unknown, indent: string, nl: string): string {
  return JSON.stringify(value, null, 2).split('\n').join(nl + indent);
}

interface SpliceContext {
  /** The blanked text the spans were read from. */
  text: string;
  original: string;
  nl: string;
  edits: Edit[];
}

function spliceObject(context: SpliceContext, node: Extract<Node, { kind: 'object' }>, before: JsonObject, after: JsonObject, depth: number): void {
  const { text, original, nl, edits } = context;
  // JSON.parse keeps the last of duplicate keys; so do we.
  const memberOf = (key: string): Member => {
    const found = [...node.members].reverse().find((m) => m.key === key);
    if (!found) throw new Error(`no member ${JSON.stringify(key)} in the text`);
    return found;
  };
  const removed = Object.keys(before).filter((key) => !Object.prototype.hasOwnProperty.call(after, key));
  const added = Object.keys(after).filter((key) => !Object.prototype.hasOwnProperty.call(before, key));
  const duplicated = new Set(node.members.map((m) => m.key)).size !== node.members.length;
  if ((removed.length > 0 && added.length > 0) || (duplicated && removed.length > 0)) {
    // Members both come and go (or a key repeats): write this object anew rather than stitch around them.
    edits.push({ start: node.start, end: node.end, text: render(after, lineIndent(text, node.start), nl) });
    return;
  }
  const memberIndent = node.members.length > 0 ? lineIndent(text, node.members[0].keyStart) : `${lineIndent(text, node.start)}  `;
  for (const key of Object.keys(after)) {
    if (!Object.prototype.hasOwnProperty.call(before, key) || sameJson(before[key], after[key])) continue;
    const member = memberOf(key);
    const theirs = before[key];
    const ours = after[key];
    if (depth < 1 && isObject(theirs) && isObject(ours) && member.node.kind === 'object') {
      spliceObject(context, member.node, theirs, ours, depth + 1);
    } else {
      edits.push({ start: member.valueStart, end: member.valueEnd, text: render(ours, lineIndent(text, member.keyStart), nl) });
    }
  }
  if (removed.length > 0) removeMembers(node, new Set(removed), edits);
  if (added.length > 0) {
    const lines = added.map((key) => `${memberIndent}${JSON.stringify(key)}: ${render(after[key], memberIndent, nl)}`);
    const last = node.members[node.members.length - 1];
    if (last) edits.push({ start: last.valueEnd, end: last.valueEnd, text: `,${nl}${lines.join(`,${nl}`)}` });
    else if (original.slice(node.start + 1, node.end - 1).trim() === '') {
      edits.push({ start: node.start + 1, end: node.end - 1, text: `${nl}${lines.join(`,${nl}`)}${nl}${lineIndent(text, node.start)}` });
    } else edits.push({ start: node.start + 1, end: node.start + 1, text: `${nl}${lines.join(`,${nl}`)}` }); // only comments inside: keep them
  }
}

// Each removed member goes with the separator after it; removed members after
// the last one kept go with the separator before them, so ranges never overlap.
function removeMembers(node: Extract<Node, { kind: 'object' }>, removed: ReadonlySet<string>, edits: Edit[]): void {
  const { members } = node;
  const kept = members.filter((m) => !removed.has(m.key));
  if (kept.length === 0) {
    edits.push({ start: node.start + 1, end: node.end - 1, text: '' });
    return;
  }
  const lastKept = members.lastIndexOf(kept[kept.length - 1]);
  members.forEach((member, index) => {
    if (index < lastKept && removed.has(member.key)) edits.push({ start: member.keyStart, end: members[index + 1].keyStart, text: '' });
  });
  if (lastKept < members.length - 1) edits.push({ start: members[lastKept].valueEnd, end: members[members.length - 1].valueEnd, text: '' });
}
