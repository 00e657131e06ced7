// The per-host table: which files each host reads, and what we put in them.
import {
  checkContainer, checkHooks, ConfigError, getEntry, hasOurHooks, isJsonObject, JsonObject, mergeHooks, parseJsonObject, removeEntry,
  removeHooks, renderChanged, renderJson, setEntry,
} from './json-config';
import { listUserAdditions, locateOurServer, readOurServer, removeOurTables, TomlError, upsertOurTables } from './toml';
import { isJsoncOnly } from './jsonc';

export const HOST_NAMES = [
  'claude-code', 'codex', 'gemini-cli', 'opencode', 'cursor', 'vscode', 'claude-desktop', 'windsurf', 'goose',
] as const;
export type HostName = (typeof HOST_NAMES)[number];

export const OPENCODE_SCHEMA = 'https://opencode.ai/config.json';
const CLAUDE_HOOK_TIMEOUT_S = 15;
const CODEX_HOOK_TIMEOUT_S = 15;
// Gemini CLI counts hook timeouts in milliseconds.
const GEMINI_HOOK_TIMEOUT_MS = 15_000;

/** What a config needs to start our server as one member. */
export interface Launch {
  host: HostName;
  projectDir: string;
  /** Absolute path of `<project>/.opencomms/opencomms.js`. */
  bundle: string;
  memberId: string;
}

/** One file a host reads, and how our entry goes in and out of it. */
export interface ConfigEdit {
  /** Relative to the project. */
  file: string;
  /**
   * Other names the host reads the same settings from (opencode.jsonc): an
   * existing one of these is edited instead of creating `file` beside it.
   */
  alternates?: readonly string[];
  /** Whether the text holds our entry. */
  hasOurs(text: string): boolean;
  /**
   * What the user added to our entry, which uninstall takes out with it:
   * one readable line each (a key and its value).
   */
  userAdditions(text: string): string[];
  /** Throws ConfigError/TomlError when the file cannot be edited safely. */
  check(text: string): void;
  /** The member id our entry in this file carries, if any. */
  readMemberId(text: string): string | undefined;
  install(text: string | undefined, launch: Launch): string;
  /**
   * The text without our entries; undefined when nothing of the file's own is
   * left (the file goes), unless `mustKeep` (a link, which is kept).
   */
  uninstall(text: string, mustKeep?: boolean): string | undefined;
  /** Printed after the file name in the summary. */
  what: string;
}

export function serverArgs(launch: Launch): string[] {
  return [launch.bundle, '--project', launch.projectDir, '--host', launch.host];
}

export function serverEnv(launch: Launch): Record<string, string> {
  return { OPENCOMMS_MEMBER_ID: launch.memberId };
}

/** A double-quoted POSIX shell word. */
export function shellQuote(text: string): string {
  return `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
}

/**
 * The hook command. Hosts run hook commands through a shell and give hooks no
 * env from the MCP config, so the member id (and the host, which the runner
 * cannot always tell from the event) travel as shell assignment prefixes.
 * Member ids and host names are [A-Za-z0-9_-] only, so they need no quoting.
 * Residual risk: a host that ran hooks through cmd.exe or PowerShell would
 * not understand the prefix; the ones we write for run them through sh/bash.
 */
export function hookCommand(launch: Launch): string {
  return `OPENCOMMS_MEMBER_ID=${launch.memberId} OPENCOMMS_HOST=${launch.host} node ${shellQuote(launch.bundle)} hook --project ${shellQuote(launch.projectDir)}`;
}

interface JsonEditSpec {
  file: string;
  alternates?: readonly string[];
  what: string;
  container: string;
  /** Hook events, when this file also holds hooks. */
  events?: readonly string[];
  seed?: () => JsonObject;
  /** Our server entry, put at `doc[container].opencomms`; absent for a hooks-only file. */
  entry?(launch: Launch): JsonObject;
  hookEntry?(launch: Launch): JsonObject;
  /** Whether what is left after uninstall is only what install itself would have created. */
  isLeftover?(doc: JsonObject): boolean;
  memberOf?(entry: JsonObject): unknown;
}

function jsonEdit(spec: JsonEditSpec): ConfigEdit {
  const check = (text: string): JsonObject => {
    const doc = parseJsonObject(text);
    checkContainer(doc, spec.container);
    if (spec.events) checkHooks(doc, spec.events);
    return doc;
  };
  return {
    file: spec.file,
    alternates: spec.alternates,
    what: spec.what,
    check: (text) => void check(text),
    hasOurs: (text) => (spec.entry ? getEntry(check(text), spec.container, 'opencomms') !== undefined : hasOurHooks(check(text))),
    userAdditions(text) {
      const entry = spec.entry ? getEntry(check(text), spec.container, 'opencomms') : undefined;
      return entry ? additionsTo(entry, spec.entry!(SAMPLE_LAUNCH)) : [];
    },
    readMemberId(text) {
      const entry = getEntry(check(text), spec.container, 'opencomms');
      const id = entry && spec.entry && spec.memberOf ? spec.memberOf(entry) : undefined;
      return typeof id === 'string' ? id : undefined;
    },
    install(text, launch) {
      const doc = text === undefined ? (spec.seed?.() ?? {}) : check(text);
      const before = text === undefined ? undefined : structuredClone(doc);
      if (spec.entry) setEntry(doc, spec.container, 'opencomms', spec.entry(launch));
      if (spec.events && spec.hookEntry) mergeHooks(doc, spec.events, () => spec.hookEntry!(launch));
      return renderChanged(text, before, doc);
    },
    uninstall(text, mustKeep = false) {
      const doc = check(text);
      const before = structuredClone(doc);
      if (spec.entry) removeEntry(doc, spec.container, 'opencomms');
      removeHooks(doc);
      if (renderJson(doc) === renderJson(before)) return text;
      const isLeftover = spec.isLeftover ?? ((d: JsonObject) => Object.keys(d).length === 0);
      // A file with comments is kept (without our parts) rather than deleted with them.
      if (!mustKeep && isLeftover(doc) && !isJsoncOnly(text)) return undefined;
      return renderChanged(text, before, doc);
    },
  };
}

// Only the keys of our entry matter here, not its values.
const SAMPLE_LAUNCH: Launch = { host: 'claude-code', projectDir: '/p', bundle: '/p/.opencomms/opencomms.js', memberId: 'x' };
/** Variables earlier installs put in our entry's env: ours, not the user's. */
const OUR_ENV_NAMES = new Set(['OPENCOMMS_MEMBER_ID', 'OPENCOMMS_HOST']);

/** The keys of `entry` (one level into tables such as env) that ours does not have. */
function additionsTo(entry: JsonObject, ours: JsonObject): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    const mine = ours[key];
    if (isJsonObject(value) && (isJsonObject(mine) || mine === undefined) && /^env(ironment)?$/.test(key)) {
      for (const [name, inner] of Object.entries(value)) {
        if (!OUR_ENV_NAMES.has(name) && !(isJsonObject(mine) && Object.prototype.hasOwnProperty.call(mine, name))) {
          lines.push(`${key}.${name}: ${JSON.stringify(inner)}`);
        }
      }
    } else if (mine === undefined) lines.push(`${key}: ${JSON.stringify(value)}`);
  }
  return lines;
}

function hookEntryWithTimeout(timeout: number): (launch: Launch) => JsonObject {
  return (launch) => ({ hooks: [{ type: 'command', command: hookCommand(launch), timeout }] });
}

const envOf = (entry: JsonObject): unknown => (entry.env as JsonObject | undefined)?.OPENCOMMS_MEMBER_ID;

const CLAUDE_CODE: ConfigEdit[] = [
  jsonEdit({
    file: '.mcp.json',
    what: 'mcpServers.opencomms',
    container: 'mcpServers',
    entry: (launch) => ({ type: 'stdio', command: 'node', args: serverArgs(launch), env: serverEnv(launch) }),
    memberOf: envOf,
  }),
  jsonEdit({
    file: '.claude/settings.json',
    what: 'hooks SessionStart, UserPromptSubmit, PostToolUse, Stop, SessionEnd',
    container: 'hooks',
    events: ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop', 'SessionEnd'],
    hookEntry: hookEntryWithTimeout(CLAUDE_HOOK_TIMEOUT_S),
  }),
];

function tomlEdit(file: string): ConfigEdit {
  const guard = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof TomlError) throw new ConfigError(`it is not TOML this installer can edit safely (${err.message})`);
      throw err;
    }
  };
  return {
    file,
    what: '[mcp_servers.opencomms] and [mcp_servers.opencomms.env]',
    check: (text) => void guard(() => readOurServer(text)),
    hasOurs: (text) => guard(() => locateOurServer(text)),
    userAdditions: (text) => guard(() => listUserAdditions(text)),
    readMemberId: (text) => guard(() => readOurServer(text))?.env.OPENCOMMS_MEMBER_ID,
    install: (text, launch) =>
      guard(() => upsertOurTables(text ?? '', { command: 'node', args: serverArgs(launch), env: serverEnv(launch) })),
    uninstall(text, mustKeep = false) {
      const left = guard(() => removeOurTables(text));
      return mustKeep || left === text || left.trim() !== '' ? left : undefined;
    },
  };
}

const CODEX: ConfigEdit[] = [
  tomlEdit('.codex/config.toml'),
  jsonEdit({
    file: '.codex/hooks.json',
    what: 'hooks SessionStart, UserPromptSubmit, PostToolUse, Stop',
    container: 'hooks',
    events: ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop'],
    hookEntry: hookEntryWithTimeout(CODEX_HOOK_TIMEOUT_S),
  }),
];

const GEMINI_CLI: ConfigEdit[] = [
  jsonEdit({
    file: '.gemini/settings.json',
    what: 'mcpServers.opencomms and hooks SessionStart, BeforeAgent, AfterAgent',
    container: 'mcpServers',
    events: ['SessionStart', 'BeforeAgent', 'AfterAgent'],
    entry: (launch) => ({ command: 'node', args: serverArgs(launch), env: serverEnv(launch) }),
    hookEntry: hookEntryWithTimeout(GEMINI_HOOK_TIMEOUT_MS),
    memberOf: envOf,
  }),
];

const OPENCODE: ConfigEdit[] = [
  jsonEdit({
    file: 'opencode.json',
    // OpenCode reads opencode.jsonc too (and opencode.json over it).
    alternates: ['opencode.jsonc'],
    what: 'mcp.opencomms',
    container: 'mcp',
    seed: () => ({ $schema: OPENCODE_SCHEMA }),
    entry: (launch) => ({
      type: 'local', command: ['node', ...serverArgs(launch)], environment: serverEnv(launch), enabled: true,
    }),
    isLeftover: (doc) => Object.keys(doc).every((key) => key === '$schema' && doc.$schema === OPENCODE_SCHEMA),
    memberOf: (entry) => (entry.environment as JsonObject | undefined)?.OPENCOMMS_MEMBER_ID,
  }),
];

const CURSOR: ConfigEdit[] = [
  jsonEdit({
    file: '.cursor/mcp.json',
    what: 'mcpServers.opencomms',
    container: 'mcpServers',
    entry: (launch) => ({ type: 'stdio', command: 'node', args: serverArgs(launch), env: serverEnv(launch) }),
    memberOf: envOf,
  }),
];

const VSCODE: ConfigEdit[] = [
  jsonEdit({
    file: '.vscode/mcp.json',
    what: 'servers.opencomms',
    container: 'servers',
    entry: (launch) => ({ type: 'stdio', command: 'node', args: serverArgs(launch), env: serverEnv(launch) }),
    memberOf: envOf,
  }),
];

/** The files each host gets; hosts with none are given a snippet to paste (see snippets.ts). */
export const CONFIG_EDITS: Record<HostName, ConfigEdit[]> = {
  'claude-code': CLAUDE_CODE,
  codex: CODEX,
  'gemini-cli': GEMINI_CLI,
  opencode: OPENCODE,
  cursor: CURSOR,
  vscode: VSCODE,
  'claude-desktop': [],
  windsurf: [],
  goose: [],
};

export function isHostName(name: string): name is HostName {
  return (HOST_NAMES as readonly string[]).includes(name);
}
