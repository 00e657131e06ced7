// How a host starts our server and hooks (argv, env, the hook command line),
// and how to read those back out of a config: the part of install every host shares.
import { STATE_DIR_NAME } from '../local/state-dir';
import { BUNDLE_NAME, bundlePathIn } from './bundle';
import { isJsonObject } from './json-config';

export const HOST_NAMES = [
  'claude-code', 'codex', 'gemini-cli', 'opencode', 'cursor', 'vscode', 'claude-desktop', 'windsurf', 'goose',
] as const;
export type HostName = (typeof HOST_NAMES)[number];

/**
 * What a config needs to start our server. Without `memberId` nothing names a
 * member: each host session finds its own when it starts (PROTOCOL 6.1).
 */
export interface Launch {
  host: HostName;
  /** Absolute project directory. */
  projectDir: string;
  /** --member: a fixed id written into the config, so every session of the host speaks as it. */
  memberId?: string;
  /** Name the project by its absolute path whatever the host expands (the Claude Code plugin, registered per project path). */
  isAbsolute?: boolean;
  /** --store: the Redis store every server and hook of the host uses (never its password). */
  store?: StoreChoice;
  /** Set when the Node that runs install caches compiled code (Node ≥ 22.1): NODE_COMPILE_CACHE is written, under this home folder. */
  compileCache?: CompileCacheHome;
}

/** The user's home folder (absolute), under which Node keeps our compiled code. */
export interface CompileCacheHome {
  home: string;
}

/** A Redis store as a host config names it: the URL (no password) and the project id. */
export interface StoreChoice {
  url: string;
  projectId: string;
}

/**
 * The variables that carry a store's password and CA from the user's
 * environment to our processes; none is ever written into a config. Codex
 * passes a server only a few variables by default, so its entry names these
 * in `env_vars`.
 */
export const STORE_SECRET_VARIABLES = ['OPENCOMMS_STORE_PASSWORD_FILE', 'OPENCOMMS_STORE_PASSWORD', 'OPENCOMMS_STORE_CA'] as const;
/**
 * Where the user's Codex keeps its sessions. Codex hands an MCP server only a
 * few variables of its own environment, and without this one the server's
 * `codex queue` (the door that wakes an idle Codex session) looks in
 * ~/.codex and never finds a session kept elsewhere. Named in `env_vars`
 * like the store's secrets: forwarded when set, nothing when not.
 */
export const CODEX_HOME_VARIABLE = 'CODEX_HOME';
/** The store's two variables, taken out of an entry whose install names no store. */
export const STORE_VARIABLES = ['OPENCOMMS_STORE', 'OPENCOMMS_PROJECT_ID'] as const;

/**
 * Node ≥ 22.1 keeps the V8 code it compiled for a script in the folder
 * NODE_COMPILE_CACHE names, so every later start skips reading and compiling
 * the whole bundle (start-up, README). The folder is per user and outside the
 * project: a repository must not be able to ship compiled code that our
 * processes would run. Older Nodes ignore the variable.
 */
export const COMPILE_CACHE_VARIABLE = 'NODE_COMPILE_CACHE';
/** The cache folder, under the user's home folder. */
export const COMPILE_CACHE_UNDER_HOME = '.cache/opencomms/node-compile-cache';

/**
 * How a host's config can name the project without its absolute path:
 * `claude` — Claude Code expands `${CLAUDE_PROJECT_DIR:-.}` in .mcp.json and
 * sets CLAUDE_PROJECT_DIR for hooks; `gemini` — Gemini CLI starts servers and
 * hooks in the project folder and sets GEMINI_PROJECT_DIR for hooks;
 * `workspace` — Cursor and VS Code expand `${workspaceFolder}`; `absolute` —
 * the host expands nothing that names the project, so its absolute path is written.
 */
type ProjectRef = 'claude' | 'gemini' | 'workspace' | 'absolute';

const PROJECT_REF: Record<HostName, ProjectRef> = {
  'claude-code': 'claude',
  codex: 'absolute',
  'gemini-cli': 'gemini',
  opencode: 'absolute',
  cursor: 'workspace',
  vscode: 'workspace',
  'claude-desktop': 'absolute',
  windsurf: 'absolute',
  goose: 'absolute',
};

/** Why a host's config holds the project's absolute path, for the install output; absent for hosts that need none. */
export const ABSOLUTE_PATH_REASON: Partial<Record<HostName, string>> = {
  codex: 'Codex expands no variables in them and may start the server and hooks outside the project',
  'claude-desktop': 'that config lives outside the project, where no variable stands for it',
  windsurf: 'that config lives outside the project, where no variable stands for it',
  goose: 'that config lives outside the project, where no variable stands for it',
};

function refOf(launch: Launch): ProjectRef {
  return launch.isAbsolute ? 'absolute' : PROJECT_REF[launch.host];
}

const BUNDLE_REL = `${STATE_DIR_NAME}/${BUNDLE_NAME}`;

/** The project folder as a server argument. */
function projectArg(launch: Launch): string {
  switch (refOf(launch)) {
    case 'claude':
      // The default keeps the server starting where CLAUDE_PROJECT_DIR is missing: Claude Code starts project servers in the project.
      return '${CLAUDE_PROJECT_DIR:-.}';
    case 'gemini':
      return '.';
    case 'workspace':
      return '${workspaceFolder}';
    case 'absolute':
      return launch.projectDir;
  }
}

export function serverArgs(launch: Launch): string[] {
  const project = projectArg(launch);
  const bundle = refOf(launch) === 'absolute' ? bundlePathIn(launch.projectDir) : `${project}/${BUNDLE_REL}`;
  return [bundle, '--project', project, '--host', launch.host];
}

/**
 * NODE_COMPILE_CACHE for the server entry, with the home folder named as the
 * host expands it, so a config inside the project holds no user's path:
 * Claude Code and Gemini CLI expand `${HOME}` in an entry's variables, Cursor
 * and VS Code `${userHome}`; a config in the user's own files gets the path.
 * Residual risk: a host that left the name unexpanded would hand Node a
 * relative path, which it resolves in the server's working folder (the project).
 */
function compileCacheOf(launch: Launch, home: string): string {
  switch (refOf(launch)) {
    case 'claude':
    case 'gemini':
      return `\${HOME}/${COMPILE_CACHE_UNDER_HOME}`;
    case 'workspace':
      return `\${userHome}/${COMPILE_CACHE_UNDER_HOME}`;
    case 'absolute':
      return `${home}/${COMPILE_CACHE_UNDER_HOME}`;
  }
}

/** Our variables for the server entry: a fixed --member id, the --store choice and the compile cache; undefined when there is none. */
export function serverEnv(launch: Launch): Record<string, string> | undefined {
  if (launch.memberId === undefined && launch.store === undefined && launch.compileCache === undefined) return undefined;
  return {
    ...(launch.memberId === undefined ? {} : { OPENCOMMS_MEMBER_ID: launch.memberId }),
    ...(launch.store === undefined ? {} : { OPENCOMMS_STORE: launch.store.url, OPENCOMMS_PROJECT_ID: launch.store.projectId }),
    ...(launch.compileCache === undefined ? {} : { [COMPILE_CACHE_VARIABLE]: compileCacheOf(launch, launch.compileCache.home) }),
  };
}

/** The shell assignment that hands a hook Node's compile cache; '' without one. Hooks run through sh, which expands $HOME. */
export function compileCachePrefix(launch: Launch): string {
  return launch.compileCache === undefined ? '' : `${COMPILE_CACHE_VARIABLE}="$HOME/${COMPILE_CACHE_UNDER_HOME}" `;
}

/** The shell assignments that hand the store to a hook (or watch) process; '' without one. */
export function storePrefix(launch: Launch): string {
  // The URL is quoted (an IPv6 host has brackets); a project id is [A-Za-z0-9._-] only.
  return launch.store === undefined ? '' : `OPENCOMMS_STORE=${shellQuote(launch.store.url)} OPENCOMMS_PROJECT_ID=${launch.store.projectId} `;
}

/** A double-quoted POSIX shell word. */
export function shellQuote(text: string): string {
  return `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
}

/**
 * The hook command: `node "<bundle>" <verb> --project "<project>"`, with the
 * project named as the host lets a hook find it. Claude Code sets
 * CLAUDE_PROJECT_DIR for hooks. Gemini CLI sets GEMINI_PROJECT_DIR (and runs
 * hooks in the project); it also rewrites a bare `$GEMINI_PROJECT_DIR` in the
 * command into a single-quoted path, which inside our double quotes would keep
 * the quotes, so the braced form is used. Hosts give hooks no env from the
 * MCP config, so the host (which the runner cannot always tell from the event),
 * a fixed --member id, the --store choice and the compile cache travel as
 * shell assignment prefixes; the host and id are [A-Za-z0-9_-] only, the
 * store URL is quoted, the cache folder is "$HOME/…" for the shell to expand.
 * Residual risk: a host that ran hooks through cmd.exe or
 * PowerShell would understand neither the prefixes nor the variables; the ones
 * we write for run them through sh/bash.
 */
export function hookCommand(launch: Launch, verb = 'hook'): string {
  const ref = refOf(launch);
  const project = ref === 'claude' ? '$CLAUDE_PROJECT_DIR' : ref === 'gemini' ? '${GEMINI_PROJECT_DIR:-.}' : undefined;
  const bundle = project === undefined ? shellQuote(bundlePathIn(launch.projectDir)) : `"${project}/${BUNDLE_REL}"`;
  const prefix = `${launch.memberId === undefined ? '' : `OPENCOMMS_MEMBER_ID=${launch.memberId} `}${storePrefix(launch)}${compileCachePrefix(launch)}`;
  return `${prefix}OPENCOMMS_HOST=${launch.host} node ${bundle} ${verb} --project ${project === undefined ? shellQuote(launch.projectDir) : `"${project}"`}`;
}

/** What of ours a config holds, to tell what a re-install changed. */
export interface OurParts {
  /** Member ids named in our server entry or hook commands. */
  memberIds: string[];
  /** The script our server entry starts. */
  serverScript?: string;
  /** The scripts our hook commands start (each once). */
  hookScripts: string[];
  /** The store our server entry or hook commands name. */
  store?: StoreChoice;
}

const HOOK_MEMBER = /(?:^|\s)OPENCOMMS_MEMBER_ID=([A-Za-z0-9_-]+)/;
const HOOK_STORE = /(?:^|\s)OPENCOMMS_STORE="((?:[^"\\]|\\.)*)" OPENCOMMS_PROJECT_ID=([A-Za-z0-9._-]+) /;
const HOOK_SCRIPT = /node "((?:[^"\\]|\\.)*)" /;

export function addUnique(list: string[], value: string | undefined): void {
  if (value !== undefined && !list.includes(value)) list.push(value);
}

/** Adds what one of our hook commands names to `parts`. */
export function readHookCommand(command: string, parts: OurParts): void {
  addUnique(parts.memberIds, HOOK_MEMBER.exec(command)?.[1]);
  addUnique(parts.hookScripts, HOOK_SCRIPT.exec(command)?.[1]);
  const store = HOOK_STORE.exec(command);
  if (store && parts.store === undefined) parts.store = { url: store[1]!.replace(/\\(.)/g, '$1'), projectId: store[2]! };
}

/** The store named by an entry's variables, when both are there. */
export function storeOfEnv(env: unknown): StoreChoice | undefined {
  if (!isJsonObject(env)) return undefined;
  const url = env.OPENCOMMS_STORE;
  const projectId = env.OPENCOMMS_PROJECT_ID;
  return typeof url === 'string' && typeof projectId === 'string' ? { url, projectId } : undefined;
}


export function isHostName(name: string): name is HostName {
  return (HOST_NAMES as readonly string[]).includes(name);
}
