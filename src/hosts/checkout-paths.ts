// Paths in a host config that lead out of the project: a clone (or a copy)
// of a project whose configs name folders absolutely still starts the first
// checkout's server and hooks, on that checkout's store, so the two trees'
// mail and reservations mix. This finds each such path, says which checkout it
// belongs to, and points it at this checkout with the edit machinery install
// uses (jsonc-splice for JSON, our own `args` line for TOML): every other byte stays.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path';
import { STATE_DIR_NAME } from '../local/state-dir';
import { bundlePathIn } from './bundle';
import { isJsonObject, parseJsonObject, type JsonObject } from './json-config';
import { blankJsonc } from './jsonc';
import { spliceJsonc } from './jsonc-splice';
import { SpanParser, type Node } from './jsonc-spans';
import { shellQuote } from './launch';
import { readOurServer } from './toml';
import { locateOurArgs, setOurArgs } from './toml-args';

/** Where a config keeps our server entry: the keys down to it in JSON, or Codex's TOML table. */
export type EntryPlace = { format: 'json'; path: readonly string[] } | { format: 'toml' };

/** One path of ours that leads out of this checkout. */
export interface ForeignPath {
  /** `server`: the opencomms.js started; `project`: the --project folder. */
  kind: 'server' | 'project';
  /** As the config names it, made absolute. */
  path: string;
  /** The checkout (project folder) it belongs to, when one can be told. */
  checkout?: string;
  /** The same path in this checkout, when that exists. */
  replacement?: string;
}

/** The foreign paths of one line of a config. */
export interface ForeignLine {
  line: number;
  paths: ForeignPath[];
}

export interface CheckoutScan {
  lines: ForeignLine[];
  /** The text with every path that has a replacement pointed at this checkout; undefined when there is nothing to change or it cannot be edited in place. */
  fixed?: string;
}

// Our hook commands start `node "<script ending opencomms.js>" <verb> … --project "<folder>"` (launch.ts hookCommand).
const OUR_HOOK_SCRIPT = /node ("((?:[^"\\]|\\.)*opencomms\.c?js)")/;
const OUR_HOOK_PROJECT = /--project ("((?:[^"\\]|\\.)*)")/;
// The variables hosts expand to the project, in every form install writes.
const PROJECT_VARIABLE = /\$\{(?:CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR)(?::-[^}]*)?\}|\$(?:CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR)\b|\$\{workspaceFolder\}/g;

function realOrResolved(path: string): string {
  // A path whose end does not exist is judged by the nearest folder that does.
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  try {
    return join(realpathSync(at), relative(at, path));
  } catch {
    return path;
  }
}

function isBelow(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Whether `path` lies in the project, by its name or after following links. */
export function isInCheckout(projectDir: string, path: string): boolean {
  return isBelow(projectDir, path) || isBelow(realOrResolved(projectDir), realOrResolved(path));
}

/**
 * A path as the config names it, made absolute: the variables that stand for
 * the project expanded, a relative path taken from the project (where hosts
 * start servers and hooks). Undefined when another variable is left in it:
 * what it names is the host's business.
 */
export function expandConfigPath(projectDir: string, written: string): string | undefined {
  const expanded = written.replace(PROJECT_VARIABLE, () => projectDir);
  return expanded.includes('$') ? undefined : resolvePath(projectDir, expanded);
}

/**
 * The checkout a foreign path belongs to: the folder above its .opencomms/ (a
 * project's server copy), else the nearest folder holding .git; a --project
 * folder is its own checkout.
 */
function checkoutOf(kind: ForeignPath['kind'], path: string): string | undefined {
  if (kind === 'project') return path;
  const parts = path.split(sep);
  const state = parts.lastIndexOf(STATE_DIR_NAME);
  if (state > 0) return parts.slice(0, state).join(sep) || sep;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The same place in this checkout: the folder itself, or the server at the same place, else this project's server copy. */
function replacementOf(projectDir: string, kind: ForeignPath['kind'], path: string, checkout: string | undefined): string | undefined {
  if (kind === 'project') return projectDir;
  const same = checkout === undefined ? undefined : join(projectDir, relative(checkout, path));
  if (same !== undefined && existsSync(same)) return same;
  const copy = bundlePathIn(projectDir);
  return existsSync(copy) ? copy : undefined;
}

function foreignPath(projectDir: string, kind: ForeignPath['kind'], written: string): ForeignPath | undefined {
  const path = expandConfigPath(projectDir, written);
  if (path === undefined || isInCheckout(projectDir, path)) return undefined;
  const checkout = checkoutOf(kind, path);
  return { kind, path, checkout, replacement: replacementOf(projectDir, kind, path, checkout) };
}

/** The foreign paths in a server's argv, each with its index, and the argv pointed at this checkout. */
function scanArgs(projectDir: string, args: readonly unknown[]): { paths: { index: number; path: ForeignPath }[]; args: unknown[] } {
  const paths: { index: number; path: ForeignPath }[] = [];
  const out = args.map((arg, index) => {
    if (typeof arg !== 'string') return arg;
    const kind = args[index - 1] === '--project' ? 'project' : /opencomms\.c?js$/.test(arg) ? 'server' : undefined;
    const found = kind === undefined ? undefined : foreignPath(projectDir, kind, arg);
    if (found === undefined) return arg;
    paths.push({ index, path: found });
    return found.replacement ?? arg;
  });
  return { paths, args: out };
}

/** The foreign paths in one of our hook commands, and the command pointed at this checkout. */
function scanHookCommand(projectDir: string, command: string): { paths: ForeignPath[]; command: string } {
  const paths: ForeignPath[] = [];
  let out = command;
  for (const [pattern, kind] of [[OUR_HOOK_SCRIPT, 'server'], [OUR_HOOK_PROJECT, 'project']] as const) {
    const match = pattern.exec(out);
    if (match === null) continue;
    const found = foreignPath(projectDir, kind, match[2].replace(/\\(.)/g, '$1'));
    if (found === undefined) continue;
    paths.push(found);
    if (found.replacement === undefined) continue;
    const at = match.index + match[0].length - match[1].length;
    out = out.slice(0, at) + shellQuote(found.replacement) + out.slice(at + match[1].length);
  }
  return { paths, command: out };
}

type Key = string | number;

/** Every string in a JSON text with its key path and where its literal starts. */
function stringsOf(text: string): { keys: Key[]; value: string; start: number }[] {
  const found: { keys: Key[]; value: string; start: number }[] = [];
  const parser = new SpanParser(blankJsonc(text));
  const walk = (node: Node, keys: Key[]): void => {
    if (node.kind === 'scalar') {
      if (text[node.start] === '"') found.push({ keys, value: JSON.parse(text.slice(node.start, node.end)) as string, start: node.start });
      return;
    }
    node.items.forEach((item, i) => walk(item.node, [...keys, item.key ?? i]));
  };
  walk(parser.value(), []);
  return found;
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

function setAt(doc: JsonObject, keys: readonly Key[], value: unknown): void {
  let at: unknown = doc;
  for (const key of keys.slice(0, -1)) at = (at as Record<Key, unknown>)[key];
  (at as Record<Key, unknown>)[keys[keys.length - 1]] = value;
}

function isHookCommand(keys: readonly Key[]): boolean {
  return keys.length === 6 && keys[0] === 'hooks' && keys[3] === 'hooks' && keys[5] === 'command';
}

function scanJson(projectDir: string, text: string, place: readonly string[] | undefined): CheckoutScan {
  const doc = parseJsonObject(text);
  const after = structuredClone(doc);
  const lines: ForeignLine[] = [];
  const add = (start: number, paths: ForeignPath[]): void => {
    if (paths.length === 0) return;
    const line = lineOf(text, start);
    const known = lines.find((l) => l.line === line);
    if (known) known.paths.push(...paths);
    else lines.push({ line, paths });
  };
  let entry: unknown = doc;
  for (const key of place ?? []) entry = isJsonObject(entry) ? entry[key] : undefined;
  const argvKey = isJsonObject(entry) ? (Array.isArray(entry.command) ? 'command' : 'args') : undefined;
  const argv = place !== undefined && isJsonObject(entry) && argvKey !== undefined && Array.isArray(entry[argvKey]) ? entry[argvKey] as unknown[] : undefined;
  const strings = stringsOf(text);
  if (argv !== undefined) {
    const keys = [...place!, argvKey!];
    const { paths, args } = scanArgs(projectDir, argv);
    setAt(after, keys, args);
    for (const { index, path } of paths) {
      const at = strings.find((s) => s.keys.length === keys.length + 1 && keys.every((k, j) => s.keys[j] === k) && s.keys[keys.length] === index);
      if (at !== undefined) add(at.start, [path]);
    }
  }
  for (const s of strings) {
    if (!isHookCommand(s.keys) || !OUR_HOOK_SCRIPT.test(s.value)) continue;
    const { paths, command } = scanHookCommand(projectDir, s.value);
    add(s.start, paths);
    if (command !== s.value) setAt(after, s.keys, command);
  }
  lines.sort((a, b) => a.line - b.line);
  const hasFix = lines.some((l) => l.paths.some((p) => p.replacement !== undefined));
  return { lines, fixed: hasFix ? spliceJsonc(text, doc, after) : undefined };
}

function scanToml(projectDir: string, text: string): CheckoutScan {
  const server = readOurServer(text);
  const place = locateOurArgs(text);
  if (server === undefined || place === undefined) return { lines: [] };
  const { paths, args } = scanArgs(projectDir, server.args);
  const lines: ForeignLine[] = [];
  for (const { index, path } of paths) {
    // Each string's own line where the array can be followed, else the key's.
    const line = lineOf(text, place.strings?.[index]?.start ?? place.start);
    const known = lines.find((l) => l.line === line);
    if (known) known.paths.push(path);
    else lines.push({ line, paths: [path] });
  }
  const hasFix = paths.some(({ path }) => path.replacement !== undefined);
  return { lines, fixed: hasFix ? setOurArgs(text, args as string[]) : undefined };
}

/**
 * The lines of a config whose server entry (at `place`) or hook commands of
 * ours name paths outside this checkout. Throws what the parsers throw on a
 * file they cannot read (doctor's other checks name those).
 */
export function scanCheckoutPaths(projectDir: string, text: string, place: EntryPlace | undefined): CheckoutScan {
  if (place?.format === 'toml') return scanToml(projectDir, text);
  return scanJson(projectDir, text, place?.path);
}
