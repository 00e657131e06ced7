// What Codex needs in the user's ~/.codex/config.toml before it runs a
// project's config and hooks: the project trusted, and each project hook
// trusted by its hash. `codex exec` skips an untrusted hook without a word.
//
// The hash is Codex's own: sha256 over the compact JSON, keys sorted at every
// level, of the hook's normalized identity { event_name (snake_case), matcher
// (when the group has one), hooks: [{ type: "command", command, timeout
// (seconds, 600 when unset), async }] }, written "sha256:<hex>". The key is
// "<abs path of .codex/hooks.json>:<event_name>:<group index>:<hook index>".
// Checked against `codex app-server` hooks/list (0.171.0), which reports
// both; test/hosts/codex-trust.test.ts keeps one vector it gave.
//
// `install codex --apply` writes the missing lines as one block, opened by a
// comment naming the project; uninstall takes out exactly that block (and the
// blank line install put before it). Lines the user had written are never
// touched, except a hook's outdated trusted_hash, which --apply brings up to
// date where it stands (and says so).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { canonicalJson, isJsonObject, parseJsonObject } from './json-config';
import { findWrittenHookGroups } from './project-review';
import { quoteTomlString } from './toml';
import { KeyPath, scanSections, Section, TomlError } from './toml-scanner';

/** Codex's default hook timeout, in seconds, which the hash counts when a hook names none. */
const CODEX_DEFAULT_HOOK_TIMEOUT_S = 600;

/** One table of trust: [projects."<dir>"] or [hooks.state."<key>"], and the one value it must hold. */
export interface CodexTrustEntry {
  path: KeyPath;
  name: 'trust_level' | 'trusted_hash';
  value: string;
  /** What it trusts, for the output: "the project" or "the SessionStart hook". */
  label: string;
}

/** "PreToolUse" → "pre_tool_use", as Codex labels events in hashes and keys. */
export function codexEventLabel(event: string): string {
  return event.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
}

/** The hash Codex trusts one command hook by. */
export function codexHookHash(event: string, hook: { command: string; timeout?: number; async?: boolean }, matcher?: string): string {
  const identity = {
    event_name: codexEventLabel(event),
    matcher,
    hooks: [{ type: 'command', command: hook.command, timeout: Math.max(1, hook.timeout ?? CODEX_DEFAULT_HOOK_TIMEOUT_S), async: hook.async === true }],
  };
  return `sha256:${createHash('sha256').update(canonicalJson(identity), 'utf8').digest('hex')}`;
}

/**
 * The trust our install needs: the project, then each hook group exactly as
 * install wrote it, under the events it writes, in file order. `command` is
 * the hook command install writes; doctor, which does not know it, leaves it
 * out and takes any command with our marker in a group of that exact shape.
 * A hook merely carrying our marker elsewhere is never trusted.
 */
export function codexTrustEntries(projectDir: string, hooksJsonText: string | undefined, command?: string): CodexTrustEntry[] {
  const entries: CodexTrustEntry[] = [{ path: ['projects', projectDir], name: 'trust_level', value: 'trusted', label: 'the project' }];
  if (hooksJsonText === undefined) return entries;
  const file = join(projectDir, '.codex', 'hooks.json');
  for (const { event, index, group } of findWrittenHookGroups('codex', '.codex/hooks.json', parseJsonObject(hooksJsonText).hooks, command)) {
    const hook = (group.hooks as unknown[])[0];
    if (!isJsonObject(hook) || typeof hook.command !== 'string') continue;
    entries.push({
      path: ['hooks', 'state', `${file}:${codexEventLabel(event)}:${index}:0`],
      name: 'trusted_hash',
      value: codexHookHash(event, { command: hook.command, timeout: typeof hook.timeout === 'number' ? hook.timeout : undefined }, typeof group.matcher === 'string' ? group.matcher : undefined),
      label: `the ${event} hook`,
    });
  }
  return entries;
}

function sectionHeader(path: KeyPath): string {
  return `[${path.map((part) => (/^[A-Za-z0-9_-]+$/.test(part) ? part : quoteTomlString(part))).join('.')}]`;
}

/** The lines that trust `entries`, one table each, a blank line between tables; "\n" line ends. */
export function renderCodexTrust(entries: readonly CodexTrustEntry[]): string {
  return entries.map((entry) => `${sectionHeader(entry.path)}\n${entry.name} = ${quoteTomlString(entry.value)}\n`).join('\n');
}

/** The comment that opens our block: the path as a TOML string, so no character of it can end the comment line. */
export function codexTrustMarker(projectDir: string): string {
  return markerNaming(quoteTomlString(projectDir));
}

function markerNaming(shown: string): string {
  return `# Trust for OpenComms in ${shown}, added by \`opencomms install codex --apply\`; \`opencomms uninstall codex\` takes it out.`;
}

/** The markers uninstall knows: ours, and the bare path older installs wrote where quoting would change nothing inside it. */
function markersOf(projectDir: string): string[] {
  const quoted = quoteTomlString(projectDir);
  return quoted.slice(1, -1) === projectDir ? [markerNaming(quoted), markerNaming(projectDir)] : [markerNaming(quoted)];
}

const samePath = (a: KeyPath, b: KeyPath): boolean => a.length === b.length && a.every((part, i) => part === b[i]);
const isPrefix = (prefix: KeyPath, path: KeyPath): boolean => prefix.length <= path.length && prefix.every((part, i) => part === path[i]);

interface Block {
  start: number;
  end: number;
}

/** Our block in `text`: the marker line and the trust tables right after it. */
function findMarkerLine(text: string, marker: string): number {
  for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + 1)) {
    const lineEnd = text.slice(at + marker.length).match(/^\r?\n|^$/);
    if ((at === 0 || text[at - 1] === '\n') && lineEnd) return at;
  }
  return -1;
}

function findTrustBlock(text: string, sections: Section[], projectDir: string): Block | undefined {
  const at = markersOf(projectDir).map((marker) => findMarkerLine(text, marker)).find((found) => found !== -1);
  if (at === undefined) return undefined;
  let end = text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at) + 1;
  const hooksFile = join(projectDir, '.codex', 'hooks.json');
  for (const section of sections.filter((s) => s.start >= end)) {
    const isOurs = samePath(section.path, ['projects', projectDir]) ||
      (section.path.length === 3 && isPrefix(['hooks', 'state'], section.path) && section.path[2].startsWith(`${hooksFile}:`));
    if (!isOurs || text.slice(end, section.start).trim() !== '') break;
    end = section.contentEnd;
  }
  return { start: at, end };
}

/** `text` without our block, and without the blank line install put before it. */
function cutBlock(text: string, block: Block): string {
  let start = block.start;
  const before = text.slice(0, start);
  const blank = /(\r?\n)(\r?\n)$/.exec(before);
  if (blank) start -= blank[2].length;
  return text.slice(0, start) + text.slice(block.end);
}

/** The user config without our block for `projectDir` (unchanged when there is none). Throws TomlError. */
export function removeCodexTrust(text: string, projectDir: string): string {
  const block = findTrustBlock(text, scanSections(text).sections, projectDir);
  return block ? cutBlock(text, block) : text;
}

/**
 * The hook keys our block for `projectDir` trusts beyond `entries`: trust an
 * older --apply wrote for a hook install does not write (earlier builds
 * trusted any hook carrying our marker), which Codex runs without asking.
 * Throws TomlError when the file cannot be followed.
 */
export function strayCodexTrust(text: string, projectDir: string, entries: readonly CodexTrustEntry[]): string[] {
  const { sections } = scanSections(text);
  const block = findTrustBlock(text, sections, projectDir);
  if (!block) return [];
  return sections
    .filter((section) => section.start >= block.start && section.start < block.end && section.path[0] === 'hooks')
    .filter((section) => !entries.some((entry) => samePath(entry.path, section.path)))
    .map((section) => section.path[2]);
}

/** Where one entry stands in a user config. */
export type CodexTrustState = 'trusted' | 'missing' | 'different' | 'disabled';

export interface CodexTrustFinding {
  entry: CodexTrustEntry;
  state: CodexTrustState;
  /** What the config holds instead, for 'different'. */
  found?: string;
}

/** How each entry stands in `text` (the user's config.toml). Throws TomlError when the file cannot be followed. */
export function readCodexTrust(text: string, entries: readonly CodexTrustEntry[]): CodexTrustFinding[] {
  const { sections, rootKeys } = scanSections(text);
  return entries.map((entry) => {
    const refuseKey = (full: KeyPath): void => {
      if (isPrefix(full, entry.path) || isPrefix(entry.path, full)) throw new TomlError(`${full.join('.')} is set by a dotted key or an inline table`);
    };
    rootKeys.forEach(refuseKey);
    for (const section of sections) {
      if (!samePath(section.path, entry.path)) for (const item of section.entries) refuseKey([...section.path, ...item.key]);
    }
    const table = sections.find((section) => samePath(section.path, entry.path));
    if (!table) return { entry, state: 'missing' };
    const value = table.entries.find((item) => samePath(item.key, [entry.name]))?.value;
    const enabled = table.entries.find((item) => samePath(item.key, ['enabled']));
    if (enabled && text.slice(enabled.start, enabled.end).replace(/#.*/, '').includes('false')) return { entry, state: 'disabled' };
    if (value === entry.value) return { entry, state: 'trusted' };
    return { entry, state: 'different', found: typeof value === 'string' ? value : undefined };
  });
}

export interface CodexTrustPlan {
  /** The new text, or the old one when nothing changes. */
  after: string;
  /** The entries written into our block. */
  added: CodexTrustEntry[];
  /** Outdated hashes of the user's brought up to date in place. */
  updated: CodexTrustEntry[];
  /** What --apply will not change: a project the user marked otherwise, a hook the user turned off. */
  refused: CodexTrustFinding[];
}

/**
 * The user config with every entry trusted: our block rewritten in place (or
 * appended after one blank line), the user's outdated hook hashes updated.
 * Throws TomlError when the file cannot be followed safely.
 */
export function applyCodexTrust(text: string, projectDir: string, entries: readonly CodexTrustEntry[]): CodexTrustPlan {
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const block = findTrustBlock(text, scanSections(text).sections, projectDir);
  const outside = block ? cutBlock(text, block) : text;
  const findings = readCodexTrust(outside, entries);
  const added = findings.filter((f) => f.state === 'missing').map((f) => f.entry);
  const updated = findings.filter((f) => f.state === 'different' && f.entry.name === 'trusted_hash').map((f) => f.entry);
  const refused = findings.filter((f) => f.state === 'disabled' || (f.state === 'different' && f.entry.name === 'trust_level'));
  let after = outside;
  if (added.length > 0) {
    const ours = `${codexTrustMarker(projectDir)}\n${renderCodexTrust(added)}`.replace(/\n/g, nl);
    if (block) {
      // Where the old block stood (cutBlock took it and the blank line before it), so the file keeps its order.
      const at = block.start - (text.length - outside.length - (block.end - block.start));
      after = outside.slice(0, at) + (at > 0 ? nl : '') + ours + outside.slice(at);
    } else if (outside.trim() === '') after = outside + ours;
    else after = `${outside}${outside.endsWith('\n') ? '' : nl}${nl}${ours}`;
  }
  for (const entry of updated) {
    // The user's own table (ours are all in `added`): its one line set where it stands.
    const section = scanSections(after).sections.find((s) => samePath(s.path, entry.path))!;
    const line = section.entries.find((item) => samePath(item.key, [entry.name]));
    const set = `${entry.name} = ${quoteTomlString(entry.value)}${nl}`;
    after = line ? after.slice(0, line.start) + set + after.slice(line.end) : after.slice(0, section.contentEnd) + set + after.slice(section.contentEnd);
  }
  return { after, added, updated, refused };
}
