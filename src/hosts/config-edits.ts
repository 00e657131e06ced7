// The per-host table: which files each host reads, and how our entries go in and out of them.
import {
  checkContainer, checkHooks, ConfigError, getEntry, hasOurHooks, isJsonObject, JsonObject, mergeHooks, OUR_HOOK_MARKER,
  parseJsonObject, removeEntry, removeHooks, renderChanged, renderJson, setEntry,
} from './json-config';
import { listUserAdditions, locateOurServer, OUR_ENV_NAMES, readOurServer, removeOurTables, TomlError, upsertOurTables } from './toml';
import { dropOurEnvVars, dropOurTomlVariable } from './toml-env';
import { isJsoncOnly } from './jsonc';
import { CLAUDE_GRANTS_EDIT } from './claude-permissions';
import {
  addUnique, CODEX_HOME_VARIABLE, COMPILE_CACHE_VARIABLE, hookCommand, HostName, Launch, OurParts, readHookCommand, serverArgs, serverEnv, STORE_SECRET_VARIABLES, STORE_VARIABLES, storeOfEnv,
} from './launch';

export const OPENCODE_SCHEMA = 'https://opencode.ai/config.json';
const CLAUDE_HOOK_TIMEOUT_S = 15;
const CODEX_HOOK_TIMEOUT_S = 15;
// Gemini CLI counts hook timeouts in milliseconds.
const GEMINI_HOOK_TIMEOUT_MS = 15_000;

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
  /** What of ours the file holds (checked as by `check`). */
  ours(text: string): OurParts;
  /** The text with our entries; undefined leaves an absent file absent. */
  install(text: string | undefined, launch: Launch): string | undefined;
  /**
   * The text without our entries; undefined when nothing of the file's own is
   * left (the file goes), unless `mustKeep` (a link, which is kept).
   */
  uninstall(text: string, mustKeep?: boolean): string | undefined;
  /** Printed after the file name in the summary. */
  what: string;
  /** Set for a file that only grants permissions (no server, no hooks): the --plugin install does not count it as the plain one. */
  isGrant?: true;
  /** For a file that holds hooks: the hook group install writes under each event, around one hook command. */
  hookGroups?(command: string): Record<string, JsonObject>;
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
  hookEntry?(command: string, event: string): JsonObject;
  /** Whether what is left after uninstall is only what install itself would have created. */
  isLeftover?(doc: JsonObject): boolean;
  /** The key of our entry that holds its variables (default `env`). */
  envKey?: string;
}

/** The server argv of an entry: `args`, or all but the first of a `command` array (OpenCode). */
function argsOf(entry: JsonObject): unknown[] {
  if (Array.isArray(entry.command)) return entry.command.slice(1);
  return Array.isArray(entry.args) ? entry.args : [];
}

/**
 * Takes our variables out of an entry's variables, and the variables key with
 * them when that left it empty: a re-install without --member must not keep
 * the id an older install (or an earlier --member) wrote, nor one with
 * `--store file` the store, and the merge that keeps the user's own variables
 * would keep them.
 */
function dropVariables(entry: JsonObject | undefined, envKey: string, names: readonly string[]): void {
  const env = entry?.[envKey];
  if (!entry || !isJsonObject(env) || !names.some((name) => Object.prototype.hasOwnProperty.call(env, name))) return;
  for (const name of names) delete env[name];
  if (Object.keys(env).length === 0) delete entry[envKey];
}

function jsonEdit(spec: JsonEditSpec): ConfigEdit {
  const check = (text: string): JsonObject => {
    const doc = parseJsonObject(text);
    checkContainer(doc, spec.container);
    if (spec.events) checkHooks(doc, spec.events);
    return doc;
  };
  const { events, hookEntry } = spec;
  return {
    file: spec.file,
    alternates: spec.alternates,
    what: spec.what,
    ...(events && hookEntry ? { hookGroups: (command: string) => Object.fromEntries(events.map((event) => [event, hookEntry(command, event)])) } : {}),
    check: (text) => void check(text),
    hasOurs: (text) => (spec.entry ? getEntry(check(text), spec.container, 'opencomms') !== undefined : hasOurHooks(check(text))),
    userAdditions(text) {
      const entry = spec.entry ? getEntry(check(text), spec.container, 'opencomms') : undefined;
      return entry ? additionsTo(entry, spec.entry!(SAMPLE_LAUNCH)) : [];
    },
    ours(text) {
      const doc = check(text);
      const parts: OurParts = { memberIds: [], hookScripts: [] };
      const entry = spec.entry ? getEntry(doc, spec.container, 'opencomms') : undefined;
      if (entry) {
        const env = entry[spec.envKey ?? 'env'];
        const id = isJsonObject(env) ? env.OPENCOMMS_MEMBER_ID : undefined;
        if (typeof id === 'string') addUnique(parts.memberIds, id);
        parts.store = storeOfEnv(env);
        const script = argsOf(entry).find((arg) => typeof arg === 'string' && /opencomms\.c?js$/.test(arg));
        if (typeof script === 'string') parts.serverScript = script;
      }
      for (const command of ourHookCommands(doc)) readHookCommand(command, parts);
      return parts;
    },
    install(text, launch) {
      const doc = text === undefined ? (spec.seed?.() ?? {}) : check(text);
      const before = text === undefined ? undefined : structuredClone(doc);
      if (spec.entry) {
        setEntry(doc, spec.container, 'opencomms', spec.entry(launch));
        const entry = getEntry(doc, spec.container, 'opencomms');
        if (launch.memberId === undefined) dropVariables(entry, spec.envKey ?? 'env', ['OPENCOMMS_MEMBER_ID']);
        if (launch.store === undefined) dropVariables(entry, spec.envKey ?? 'env', STORE_VARIABLES);
        if (launch.compileCache === undefined) dropVariables(entry, spec.envKey ?? 'env', [COMPILE_CACHE_VARIABLE]);
      }
      if (spec.events && spec.hookEntry) mergeHooks(doc, spec.events, (event) => spec.hookEntry!(hookCommand(launch), event));
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

/** The commands of our hooks in a parsed config, in file order. */
function ourHookCommands(doc: JsonObject): string[] {
  const commands: string[] = [];
  if (!isJsonObject(doc.hooks)) return commands;
  for (const list of Object.values(doc.hooks)) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const inner = isJsonObject(item) && Array.isArray(item.hooks) ? item.hooks : [];
      for (const hook of inner) {
        if (isJsonObject(hook) && typeof hook.command === 'string' && hook.command.includes(OUR_HOOK_MARKER)) commands.push(hook.command);
      }
    }
  }
  return commands;
}

// Only the keys of our entry matter here, not its values (a fixed id, so `env` counts as ours).
const SAMPLE_LAUNCH: Launch = { host: 'claude-code', projectDir: '/p', memberId: 'x', compileCache: { home: '/h' } };

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

/**
 * Our hook entry for one event. `matchers` limits an event to some tools (the
 * pre-tool reservation check runs only for the host's file-writing tools).
 */
function hookEntryWithTimeout(timeout: number, matchers: Readonly<Record<string, string>> = {}): (command: string, event: string) => JsonObject {
  return (command, event) => {
    const matcher = Object.prototype.hasOwnProperty.call(matchers, event) ? matchers[event] : undefined;
    return { ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: 'command', command, timeout }] };
  };
}

/** Claude Code's file-writing tools and its shell, for its PreToolUse reservation and shell-write checks. */
export const CLAUDE_WRITE_TOOLS = 'Edit|Write|MultiEdit|NotebookEdit|Bash';
/** Gemini CLI's file-writing tools and its shell, for BeforeTool (reservations, shell writes) and AfterTool (collision notices, shell writes). */
export const GEMINI_WRITE_TOOLS = 'write_file|replace|run_shell_command';

/** A server entry: `command` and `args`, plus `env` only for a fixed --member id. */
function stdioEntry(launch: Launch, extra: JsonObject = {}): JsonObject {
  const env = serverEnv(launch);
  return { ...extra, command: 'node', args: serverArgs(launch), ...(env ? { env } : {}) };
}

const CLAUDE_CODE: ConfigEdit[] = [
  jsonEdit({
    file: '.mcp.json',
    what: 'mcpServers.opencomms',
    container: 'mcpServers',
    entry: (launch) => stdioEntry(launch, { type: 'stdio' }),
  }),
  jsonEdit({
    file: '.claude/settings.json',
    what: 'hooks SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, SessionEnd',
    container: 'hooks',
    events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'],
    hookEntry: hookEntryWithTimeout(CLAUDE_HOOK_TIMEOUT_S, { PreToolUse: CLAUDE_WRITE_TOOLS }),
  }),
  CLAUDE_GRANTS_EDIT,
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
    what: '[mcp_servers.opencomms]',
    check: (text) => void guard(() => readOurServer(text)),
    hasOurs: (text) => guard(() => locateOurServer(text)),
    userAdditions: (text) => guard(() => listUserAdditions(text)),
    ours(text) {
      const server = guard(() => readOurServer(text));
      const parts: OurParts = { memberIds: [], hookScripts: [], store: storeOfEnv(server?.env) };
      addUnique(parts.memberIds, server?.env.OPENCOMMS_MEMBER_ID);
      parts.serverScript = server?.args.find((arg) => /opencomms\.c?js$/.test(arg));
      return parts;
    },
    install: (text, launch) => guard(() => {
      let written = upsertOurTables(text ?? '', {
        command: 'node', args: serverArgs(launch), env: serverEnv(launch) ?? {}, envVars: [CODEX_HOME_VARIABLE, ...(launch.store === undefined ? [] : STORE_SECRET_VARIABLES)],
      });
      if (launch.memberId === undefined) written = dropOurTomlVariable(written, 'OPENCOMMS_MEMBER_ID');
      if (launch.compileCache === undefined) written = dropOurTomlVariable(written, COMPILE_CACHE_VARIABLE);
      if (launch.store === undefined) {
        for (const name of STORE_VARIABLES) written = dropOurTomlVariable(written, name);
        written = dropOurEnvVars(written, STORE_SECRET_VARIABLES);
      }
      return written;
    }),
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
    what: 'hooks SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop',
    container: 'hooks',
    events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
    hookEntry: hookEntryWithTimeout(CODEX_HOOK_TIMEOUT_S),
  }),
];

const GEMINI_CLI: ConfigEdit[] = [
  jsonEdit({
    file: '.gemini/settings.json',
    what: 'mcpServers.opencomms and hooks SessionStart, BeforeAgent, BeforeTool, AfterTool, AfterAgent',
    container: 'mcpServers',
    events: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent'],
    entry: (launch) => stdioEntry(launch),
    hookEntry: hookEntryWithTimeout(GEMINI_HOOK_TIMEOUT_MS, { BeforeTool: GEMINI_WRITE_TOOLS, AfterTool: GEMINI_WRITE_TOOLS }),
  }),
];

// OpenCode's tools come from the plugin, which speaks as the member of the
// calling OpenCode session (PROTOCOL 7.3). An MCP server as well would give
// each session a second set of tools speaking for another member, so install
// registers none, and takes out the one an older install registered.
const OPENCODE_SERVER = jsonEdit({
  file: 'opencode.json',
  // OpenCode reads opencode.jsonc too (and opencode.json over it).
  alternates: ['opencode.jsonc'],
  what: 'mcp.opencomms',
  container: 'mcp',
  seed: () => ({ $schema: OPENCODE_SCHEMA }),
  entry: (launch) => {
    const environment = serverEnv(launch);
    return { type: 'local', command: ['node', ...serverArgs(launch)], ...(environment ? { environment } : {}), enabled: true };
  },
  isLeftover: (doc) => Object.keys(doc).every((key) => key === '$schema' && doc.$schema === OPENCODE_SCHEMA),
  envKey: 'environment',
});

const OPENCODE: ConfigEdit[] = [{
  ...OPENCODE_SERVER,
  what: 'mcp.opencomms taken out: OpenCode gets its tools from the plugin, one set per session',
  install: (text) => (text === undefined || !OPENCODE_SERVER.hasOurs(text) ? text : OPENCODE_SERVER.uninstall(text, true)),
}];

const CURSOR: ConfigEdit[] = [
  jsonEdit({
    file: '.cursor/mcp.json',
    what: 'mcpServers.opencomms',
    container: 'mcpServers',
    entry: (launch) => stdioEntry(launch, { type: 'stdio' }),
  }),
];

const VSCODE: ConfigEdit[] = [
  jsonEdit({
    file: '.vscode/mcp.json',
    what: 'servers.opencomms',
    container: 'servers',
    entry: (launch) => stdioEntry(launch, { type: 'stdio' }),
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
