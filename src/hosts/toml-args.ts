// Our `args` in a Codex config.toml, string by string: where each argument
// sits (for doctor to name its line) and a rewrite of the arguments that
// changed alone, in their own quotes, so the array's layout and comments stay.
import { ourMainEntry, quoteTomlString } from './toml';

/** Where our `args` key is, and each of its strings when they can be followed (a string on each element, in order). */
export interface ArgsPlace {
  /** Offset of the key's line. */
  start: number;
  end: number;
  strings?: { start: number; end: number; isLiteral: boolean }[];
}

function decodeToken(token: string): string | undefined {
  if (token.startsWith("'")) return token.slice(1, -1);
  try {
    return JSON.parse(token) as string; // TOML's basic strings share JSON's escapes, but for \e and \U, which no path of ours holds
  } catch {
    return undefined;
  }
}

/** Our `args` key and its strings; undefined without one. Throws TomlError like upsert. */
export function locateOurArgs(text: string): ArgsPlace | undefined {
  const entry = ourMainEntry(text, 'args');
  if (entry === undefined) return undefined;
  const values = entry.value;
  if (!Array.isArray(values)) return { start: entry.start, end: entry.end };
  const token = /"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|#[^\n]*/g;
  token.lastIndex = text.indexOf('=', entry.start) + 1;
  const strings: NonNullable<ArgsPlace['strings']> = [];
  for (let match = token.exec(text); match !== null && match.index < entry.end; match = token.exec(text)) {
    if (!match[0].startsWith('#')) strings.push({ start: match.index, end: match.index + match[0].length, isLiteral: match[0].startsWith("'") });
  }
  const isFollowed = strings.length === values.length && strings.every((at, i) => decodeToken(text.slice(at.start, at.end)) === values[i]);
  return { start: entry.start, end: entry.end, ...(isFollowed ? { strings } : {}) };
}

/**
 * `text` with our `args` set to `args`: where each string can be followed,
 * only those of the arguments that changed are written anew, in their own
 * quotes, so the layout and comments of the array stay; else the key's line
 * is written anew as install writes it. Throws TomlError like upsert.
 */
export function setOurArgs(text: string, args: readonly string[]): string | undefined {
  const place = locateOurArgs(text);
  if (place === undefined) return undefined;
  if (place.strings !== undefined && place.strings.length === args.length) {
    let out = text;
    for (let i = args.length - 1; i >= 0; i--) {
      const at = place.strings[i];
      const quoted = at.isLiteral && !/['\n]/.test(args[i]) ? `'${args[i]}'` : quoteTomlString(args[i]);
      if (decodeToken(text.slice(at.start, at.end)) !== args[i]) out = out.slice(0, at.start) + quoted + out.slice(at.end);
    }
    return out;
  }
  const line = text.slice(place.start, place.end);
  const nl = line.endsWith('\r\n') ? '\r\n' : line.endsWith('\n') ? '\n' : '';
  return `${text.slice(0, place.start)}args = [${args.map(quoteTomlString).join(', ')}]${nl}${text.slice(place.end)}`;
}
