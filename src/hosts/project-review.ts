// What trusting a project hands a host besides OpenComms. A trusted project
// makes Codex load its .codex/config.toml (servers, approval_policy,
// sandbox_mode) and Gemini CLI start every server and hook of
// .gemini/settings.json and load the project's .env. Before --apply writes
// that trust, every entry of those files that install did not write, every
// other file in the host's folder and the .env Gemini CLI would load are
// listed here, so the user trusts only what was shown (docs/threat-model.md).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tryReadBytes } from './bundle';
import { CONFIG_EDITS } from './config-edits';
import { canonicalJson, isJsonObject, type JsonObject, OUR_HOOK_MARKER, parseJsonObject } from './json-config';
import type { HostName } from './launch';
import { listUserAdditions, quoteTomlString } from './toml';
import { scanSections, type KeyPath } from './toml-scanner';

/** One thing in the project's host config that OpenComms did not write. */
export interface ForeignEntry {
  /** Relative to the project. */
  file: string;
  /** The entry as the file has it, on one line, escaped and shortened for a terminal. */
  text: string;
  /** A hook that carries our hook's marker though install did not write it: never trusted. */
  isLookalike?: true;
}

/** One hook group exactly as install writes it. */
export interface WrittenGroup {
  event: string;
  index: number;
  group: JsonObject;
}

const SHOWN_MAX_CHARS = 240;
const LISTED_FILES_MAX = 50;
const WALK_DEPTH_MAX = 8;

// C0, DEL, C1, zero-width and bidi controls, line and paragraph separators: nothing that can move a terminal's cursor or hide text.
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

/** `text` fit for one terminal line: line breaks folded, every control character escaped, shortened with a count. */
export function showText(text: string): string {
  const folded = text.slice(0, SHOWN_MAX_CHARS * 4).split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '').join(' ');
  const safe = folded.replace(UNSHOWABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return safe.length <= SHOWN_MAX_CHARS ? safe : `${safe.slice(0, SHOWN_MAX_CHARS)}… (${text.length} characters in all; read the file)`;
}

/** The hook groups install writes into `file` of `host`, around one command. */
function hookGroupsOf(host: HostName, file: string): ((command: string) => Record<string, JsonObject>) | undefined {
  return CONFIG_EDITS[host].find((edit) => edit.file === file)?.hookGroups;
}

function firstCommandOf(group: unknown): string | undefined {
  const hooks = isJsonObject(group) && Array.isArray(group.hooks) ? group.hooks : [];
  const first: unknown = hooks[0];
  return isJsonObject(first) && typeof first.command === 'string' ? first.command : undefined;
}

/**
 * Under each event install writes, the first group that is exactly what it
 * writes there. `command` is the hook command install writes; left out
 * (doctor, which does not know the launch), any command with our marker.
 */
export function findWrittenHookGroups(host: HostName, file: string, hooks: unknown, command?: string): WrittenGroup[] {
  const groupsFor = hookGroupsOf(host, file);
  if (!groupsFor || !isJsonObject(hooks)) return [];
  const found: WrittenGroup[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const index = groups.findIndex((group) => {
      const candidate = command ?? firstCommandOf(group);
      if (candidate === undefined || !candidate.includes(OUR_HOOK_MARKER)) return false;
      const written = groupsFor(candidate);
      return Object.prototype.hasOwnProperty.call(written, event) && canonicalJson(group) === canonicalJson(written[event]);
    });
    if (index !== -1) found.push({ event, index, group: groups[index] as JsonObject });
  }
  return found;
}

function hasOurMarker(group: unknown): boolean {
  const hooks = isJsonObject(group) && Array.isArray(group.hooks) ? group.hooks : [];
  return hooks.some((hook) => isJsonObject(hook) && typeof hook.command === 'string' && hook.command.includes(OUR_HOOK_MARKER));
}

/** Every key of a JSON config but our server entry and the hook groups install wrote. */
function foreignInJson(host: HostName, file: string, text: string | undefined, command: string, servers?: string): ForeignEntry[] {
  if (text === undefined) return [];
  const doc = parseJsonObject(text);
  const found: ForeignEntry[] = [];
  const add = (where: string, value: unknown, isLookalike = false): void => {
    found.push({ file, text: showText(`${where}: ${JSON.stringify(value)}`), ...(isLookalike ? { isLookalike: true as const } : {}) });
  };
  const written = findWrittenHookGroups(host, file, doc.hooks, command);
  for (const [key, value] of Object.entries(doc)) {
    if (key === servers && isJsonObject(value)) {
      for (const [name, server] of Object.entries(value)) if (name !== 'opencomms') add(`${key}.${name}`, server);
    } else if (key === 'hooks' && isJsonObject(value)) {
      for (const [event, groups] of Object.entries(value)) {
        if (!Array.isArray(groups)) add(`hooks.${event}`, groups);
        else {
          groups.forEach((group, g) => {
            if (!written.some((w) => w.event === event && w.index === g)) add(`hooks.${event}[${g}]`, group, hasOurMarker(group));
          });
        }
      }
    } else add(key, value);
  }
  if (servers === undefined) return found;
  for (const line of CONFIG_EDITS[host].find((e) => e.file === file)?.userAdditions(text) ?? []) found.push({ file, text: showText(`${servers}.opencomms.${line}`) });
  return found;
}

function headerOf(path: KeyPath, isArray: boolean): string {
  const name = path.map((part) => (/^[A-Za-z0-9_-]+$/.test(part) ? part : quoteTomlString(part))).join('.');
  return isArray ? `[[${name}]]` : `[${name}]`;
}

/** Every key/value of a Codex config.toml outside our [mcp_servers.opencomms] tables, and what was added inside them. */
function foreignInToml(file: string, text: string | undefined): ForeignEntry[] {
  if (text === undefined) return [];
  const { sections, rootEntries } = scanSections(text);
  const found = rootEntries.map((entry) => ({ file, text: showText(text.slice(entry.start, entry.end)) }));
  for (const section of sections) {
    if (section.path[0] === 'mcp_servers' && section.path[1] === 'opencomms') continue;
    const header = headerOf(section.path, section.isArray);
    if (section.entries.length === 0) found.push({ file, text: showText(header) });
    for (const entry of section.entries) found.push({ file, text: showText(`${header} ${text.slice(entry.start, entry.end)}`) });
  }
  for (const line of listUserAdditions(text)) found.push({ file, text: showText(line) });
  return found;
}

/** Every file under `folder` but the ones install owns; links are named, never followed. */
function otherFiles(projectDir: string, folder: string, owned: readonly string[]): ForeignEntry[] {
  const found: ForeignEntry[] = [];
  let unlisted = 0;
  const note = (file: string, text: string): void => {
    if (found.length < LISTED_FILES_MAX) found.push({ file: showText(file), text });
    else unlisted++;
  };
  const walk = (rel: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(join(projectDir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (depth < WALK_DEPTH_MAX) walk(child, depth + 1);
        else note(child, 'a folder of more files OpenComms did not write');
      } else if (!(rel === folder && owned.includes(entry.name))) {
        note(child, entry.isSymbolicLink() ? 'a link OpenComms did not make; the host may follow it' : 'a file OpenComms did not write; the host may read it');
      }
    }
  };
  walk(folder, 0);
  if (unlisted > 0) found.push({ file: folder, text: `and ${unlisted} more files OpenComms did not write` });
  return found;
}

/** The project's .env, which a trusted Gemini CLI loads whole into its own environment (an untrusted one only its login variables). */
function dotenvOf(projectDir: string): ForeignEntry[] {
  let text: string | undefined;
  try {
    text = tryReadBytes(join(projectDir, '.env'))?.toString('utf8');
  } catch {
    text = '';
  }
  if (text === undefined) return [];
  const names = [...text.matchAll(/^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*[=:]/gm)].map((match) => match[1]);
  return [{ file: '.env', text: showText(`Gemini CLI puts its variables into its own environment, and so into every server and hook it starts: ${names.length > 0 ? names.join(', ') : '(none found)'}`) }];
}

/**
 * What trusting the project would hand `host` that OpenComms did not write,
 * given the project files as install leaves them and the hook command it
 * writes. Empty for hosts whose trust OpenComms does not write.
 */
export function reviewProjectConfig(host: HostName, projectDir: string, projectFileText: (rel: string) => string | undefined, command: string): ForeignEntry[] {
  if (host === 'codex') {
    return [
      ...foreignInToml('.codex/config.toml', projectFileText('.codex/config.toml')),
      ...foreignInJson(host, '.codex/hooks.json', projectFileText('.codex/hooks.json'), command),
      ...otherFiles(projectDir, '.codex', ['config.toml', 'hooks.json']),
    ];
  }
  if (host === 'gemini-cli') {
    return [
      ...foreignInJson(host, '.gemini/settings.json', projectFileText('.gemini/settings.json'), command, 'mcpServers'),
      ...otherFiles(projectDir, '.gemini', ['settings.json']),
      ...dotenvOf(projectDir),
    ];
  }
  return [];
}
