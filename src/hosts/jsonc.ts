// JSON and JSON with comments (JSONC), as VS Code reads .vscode/mcp.json and
// Gemini CLI reads settings.json: reading. Comments and trailing commas are
// blanked out (same length, newlines kept), so every offset in the blanked
// text is the offset in the original (jsonc-splice.ts writes through them).

/** A parsed JSON object, as the config readers and the splice see one. */
export type JsonObject = Record<string, unknown>;

/** `text` with comments and trailing commas replaced by spaces; newlines stay. */
export function blankJsonc(text: string): string {
  return blankOut(text, true);
}

/** `text` with comments replaced by spaces; commas, trailing ones too, stay. */
export function blankComments(text: string): string {
  return blankOut(text, false);
}

function blankOut(text: string, isTrailingCommaBlanked: boolean): string {
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
      out += spaces(text.slice(i, end));
      i = end;
    } else if (ch === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      const end = close === -1 ? text.length : close + 2;
      out += spaces(text.slice(i, end));
      i = end;
    } else if (ch === ',') {
      lastComma = out.length;
      out += ch;
      i++;
    } else if (ch === '}' || ch === ']') {
      if (lastComma !== -1 && isTrailingCommaBlanked) out = `${out.slice(0, lastComma)} ${out.slice(lastComma + 1)}`;
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

function spaces(text: string): string {
  return text.replace(/[^\r\n]/g, ' ');
}

// Index just past the closing quote of the string starting at `start` (or the end of the text).
export function stringEnd(text: string, start: number): number {
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
