// Taking one variable out of our server's env in a Codex config.toml, every
// other byte kept. upsertOurTables only ever sets keys, so an install without
// --member would keep the OPENCOMMS_MEMBER_ID an older install wrote; and a
// [mcp_servers.opencomms.env] table left with nothing in it goes too, so a
// fresh install writes no empty table.
import { KeyPath, scanSections, Section } from './toml-scanner';
import { quoteTomlString } from './toml';

const OUR_SERVER: KeyPath = ['mcp_servers', 'opencomms'];
const OUR_ENV: KeyPath = [...OUR_SERVER, 'env'];

function isTable(section: Section, path: KeyPath): boolean {
  return !section.isArray && section.path.length === path.length && path.every((part, i) => section.path[i] === part);
}

function lineEndingOf(line: string): string {
  return line.endsWith('\r\n') ? '\r\n' : line.endsWith('\n') ? '\n' : '';
}

/** Returns `text` without `name` in our env (as its own table or inline); unchanged when it is not there. Throws TomlError as the scanner does. */
export function dropOurTomlVariable(text: string, name: string): string {
  const { sections } = scanSections(text);
  const table = sections.find((section) => isTable(section, OUR_ENV));
  if (table) {
    const entry = table.entries.find((e) => e.key.length === 1 && e.key[0] === name);
    const without = entry ? text.slice(0, entry.start) + text.slice(entry.end) : text;
    return dropEmptyEnvTable(without);
  }
  const inline = sections.find((section) => isTable(section, OUR_SERVER))?.entries.find((e) => e.key.length === 1 && e.key[0] === 'env');
  const value = inline?.value;
  if (!inline || !value || typeof value !== 'object' || Array.isArray(value) || !(name in value)) return text;
  const pairs = Object.entries(value).filter(([key]) => key !== name)
    .map(([key, v]) => `${/^[A-Za-z0-9_-]+$/.test(key) ? key : quoteTomlString(key)} = ${quoteTomlString(v)}`);
  const line = pairs.length === 0 ? '' : `env = { ${pairs.join(', ')} }${lineEndingOf(text.slice(inline.start, inline.end))}`;
  return text.slice(0, inline.start) + line + text.slice(inline.end);
}

/** Removes our env table when it holds no key and no comment, with the blank lines before it. */
function dropEmptyEnvTable(text: string): string {
  const { sections } = scanSections(text);
  const index = sections.findIndex((section) => isTable(section, OUR_ENV));
  const table = sections[index];
  if (!table || table.entries.length > 0) return text;
  const next = sections.slice(index + 1).reduce((at, section) => Math.min(at, section.start), text.length);
  if (text.slice(table.contentEnd, next).trim() !== '') return text; // a comment of the user's: keep the table
  let start = table.start;
  while (start > 0) {
    const previous = text.lastIndexOf('\n', start - 2) + 1;
    if (text.slice(previous, start).trim() !== '') break;
    start = previous;
  }
  let end = table.contentEnd;
  if (start === 0) end = next; // at the top of the file, the blank lines after it go instead
  return text.slice(0, start) + text.slice(end);
}

/**
 * Returns `text` with `names` taken out of our server's `env_vars` (the line
 * goes when nothing else is left in it); unchanged when they are not there.
 * Throws TomlError as the scanner does.
 */
export function dropOurEnvVars(text: string, names: readonly string[]): string {
  const { sections } = scanSections(text);
  const entry = sections.find((section) => isTable(section, OUR_SERVER))?.entries.find((e) => e.key.length === 1 && e.key[0] === 'env_vars');
  const value = entry?.value;
  if (!entry || !Array.isArray(value) || !value.some((name) => names.includes(name))) return text;
  const left = value.filter((name) => !names.includes(name));
  const line = left.length === 0 ? '' : `env_vars = [${left.map(quoteTomlString).join(', ')}]${lineEndingOf(text.slice(entry.start, entry.end))}`;
  return text.slice(0, entry.start) + line + text.slice(entry.end);
}
