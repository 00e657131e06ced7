// argv → a command and its flags. Usage errors carry exit code 2. Hand-written
// rather than node:util's parseArgs, which costs start-up time to load.
import { isValidMemberId, parseStoreUrl } from '../store';

export const COMMANDS = [
  'serve', 'status', 'pin', 'install', 'uninstall', 'hook', 'doctor', 'watch', 'migrate', 'reservations', 'say', 'read', 'pause', 'resume',
] as const;
export type CommandName = (typeof COMMANDS)[number];

type FlagName =
  | 'project' | 'host' | 'id' | 'member' | 'timeout' | 'store' | 'to' | 'json' | 'help' | 'version' | 'dry-run' | 'plugin' | 'wait' | 'fix' | 'apply'
  | 'release' | 'release-member' | 'type' | 'reply-to' | 'role' | 'notify' | 'i-have-read-the-project-config';

/** Flags each command accepts; anything else is a usage error. */
const FLAGS_BY_COMMAND: Record<CommandName, readonly FlagName[]> = {
  serve: ['project', 'host', 'store'],
  status: ['project', 'json', 'store'],
  pin: ['project', 'host', 'id'],
  install: ['project', 'member', 'dry-run', 'plugin', 'apply', 'i-have-read-the-project-config', 'store'],
  uninstall: ['project', 'dry-run'],
  hook: ['project', 'wait', 'timeout', 'store'],
  doctor: ['project', 'fix', 'json', 'store'],
  watch: ['project', 'member', 'json', 'store', 'notify'],
  migrate: ['project', 'to'],
  reservations: ['project', 'json', 'store', 'release', 'release-member'],
  say: ['project', 'store', 'to', 'type', 'reply-to', 'role'],
  read: ['project', 'store', 'json'],
  pause: ['project', 'store'],
  resume: ['project', 'store'],
};

/** How many positionals each command takes (install and uninstall name a host). */
const POSITIONALS_BY_COMMAND: Record<CommandName, { min: number; max: number; what: string }> = {
  serve: { min: 0, max: 1, what: 'a project directory' },
  status: { min: 0, max: 0, what: '' },
  pin: { min: 0, max: 0, what: '' },
  install: { min: 1, max: 1, what: 'a host (claude-code, codex, gemini-cli, opencode, cursor, vscode, claude-desktop, windsurf, goose)' },
  uninstall: { min: 1, max: 1, what: 'a host' },
  hook: { min: 0, max: 0, what: '' },
  doctor: { min: 0, max: 0, what: '' },
  watch: { min: 0, max: 0, what: '' },
  migrate: { min: 0, max: 0, what: '' },
  reservations: { min: 0, max: 0, what: '' },
  say: { min: 2, max: 2, what: 'a channel and the message, quoted as one argument (or - to read the message from stdin)' },
  read: { min: 0, max: 1, what: '' },
  pause: { min: 1, max: 1, what: 'a channel' },
  resume: { min: 1, max: 1, what: 'a channel' },
};

/** The message types a person's say may name. */
const SAY_TYPES: readonly string[] = ['manual', 'review_request', 'review_response'];

const VALUE_FLAGS: readonly FlagName[] = [
  'project', 'host', 'id', 'member', 'timeout', 'store', 'to', 'release', 'release-member', 'type', 'reply-to', 'role', 'notify',
];
const BOOLEAN_FLAGS: readonly FlagName[] = ['json', 'help', 'version', 'dry-run', 'plugin', 'wait', 'fix', 'apply', 'i-have-read-the-project-config'];
const SHORT_FLAGS: Record<string, FlagName> = { '-h': 'help', '-v': 'version' };

export class UsageError extends Error {
  readonly exitCode = 2;
}

function flagNamed(key: string): FlagName | undefined {
  if (Object.prototype.hasOwnProperty.call(SHORT_FLAGS, key)) return SHORT_FLAGS[key];
  const long = key.startsWith('--') ? key.slice(2) : '';
  return ([...VALUE_FLAGS, ...BOOLEAN_FLAGS] as string[]).includes(long) ? (long as FlagName) : undefined;
}

interface RawArgs {
  values: Partial<Record<FlagName, string | boolean>>;
  positionals: string[];
}

function splitArgs(argv: readonly string[]): RawArgs {
  const values: RawArgs['values'] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const key = eq === -1 ? arg : arg.slice(0, eq);
    const name = flagNamed(key);
    if (!name) throw new UsageError(`Unknown flag "${key}". Run "opencomms --help" for the list of commands and flags.`);
    if (VALUE_FLAGS.includes(name)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined || value.trim() === '' || (eq === -1 && value.startsWith('--'))) {
        throw new UsageError(`--${name} needs a value.`);
      }
      values[name] = value;
    } else {
      if (eq !== -1) throw new UsageError(`--${name} takes no value.`);
      values[name] = true;
    }
  }
  return { values, positionals };
}

export type ParsedArgs =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'command'; command: CommandName; flags: CommandFlags; positionals: string[] };

export interface CommandFlags {
  project?: string;
  host?: string;
  id?: string;
  member?: string;
  timeoutMs?: number;
  /** `file`, or a redis:// / rediss:// URL (checked here; credentials come from the environment only). */
  store?: string;
  /** migrate: where the project goes, `file` or a redis:// / rediss:// URL (the shape checked here). */
  to?: string;
  /** reservations: the id of a reservation to release, or the member whose reservations all go. */
  release?: string;
  releaseMember?: string;
  /** say: the message type, the message it answers, the role taken on joining. */
  type?: string;
  replyTo?: string;
  role?: string;
  /** watch: a program (and its arguments) to run when mail reaches the person or a channel pauses for one. */
  notify?: string;
  json: boolean;
  dryRun: boolean;
  plugin: boolean;
  wait: boolean;
  fix: boolean;
  apply: boolean;
  /** install --apply: the user has read what the project's host config holds besides OpenComms, and trusts it. */
  hasReadProjectConfig: boolean;
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** The longest wait a Node timer can hold (about 24.8 days); a longer one would fire at once. */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** "90s", "30m", "1h", "250ms" or a bare number of milliseconds: at least 1 ms, at most MAX_DURATION_MS. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Math.round(Number(match[1]) * DURATION_UNITS_MS[match[2] ?? 'ms']);
  return Number.isFinite(ms) && ms >= 1 && ms <= MAX_DURATION_MS ? ms : undefined;
}

/** An argument as a usage error may quote it: short, and every character outside printable ASCII escaped. */
function shownArg(text: string): string {
  const clipped = text.length > 40 ? `${text.slice(0, 40)}...` : text;
  return JSON.stringify(clipped).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  const { values, positionals } = splitArgs(argv);
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const [first, ...rest] = positionals;
  const command = (first ?? 'serve') as CommandName;
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new UsageError(`Unknown command "${first}". Run "opencomms --help" for the list of commands.`);
  }
  for (const flag of Object.keys(values) as FlagName[]) {
    if (!FLAGS_BY_COMMAND[command].includes(flag)) {
      throw new UsageError(`The ${command} command does not take --${flag}. Run "opencomms --help" for its flags.`);
    }
  }
  const positional = POSITIONALS_BY_COMMAND[command];
  if (command === 'say' && rest.length > positional.max) {
    throw new UsageError('say takes the message as one argument: quote it, as in opencomms say review "Please look at the tests." (or give - and pipe it in).');
  }
  if (rest.length > positional.max) {
    throw new UsageError(`Unexpected argument "${rest[positional.max]}" for the ${command} command.`);
  }
  if (rest.length < positional.min) throw new UsageError(`The ${command} command needs ${positional.what}.`);
  // A host label is stored on every member and printed beside roles, so it
  // follows the member id rule: no spaces, line breaks or escapes, 64 at most.
  if (values.host !== undefined && !isValidMemberId(values.host)) {
    throw new UsageError(`--host ${shownArg(String(values.host))} is not a host label: use 1-64 letters, digits, _ or -, starting with a letter or digit (for example claude-code).`);
  }
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    timeoutMs = parseDuration(values.timeout as string);
    if (timeoutMs === undefined) {
      throw new UsageError(`--timeout takes a duration from 1ms to 596h, such as 90s, 30m or 1h (or milliseconds), not "${values.timeout}".`);
    }
  }
  // Only the shape is checked here; the rest (project id, credentials, TLS)
  // is the store's to refuse, with a stable reason (src/store/redis/config.ts).
  if (values.store !== undefined && (values.store as string).trim() !== 'file') {
    const parsed = parseStoreUrl((values.store as string).trim());
    if (!parsed.ok) throw new UsageError(`--store: ${parsed.message}`);
  }
  // --to names a store for migrate, a recipient for say.
  if (command === 'migrate' && values.to !== undefined && (values.to as string).trim() !== 'file') {
    const parsed = parseStoreUrl((values.to as string).trim());
    if (!parsed.ok) throw new UsageError(`--to: ${parsed.message}`);
  }
  if (values.release !== undefined && values['release-member'] !== undefined) {
    throw new UsageError('Give --release ID or --release-member ID, not both: run the command once for each.');
  }
  if (values.type !== undefined && !SAY_TYPES.includes((values.type as string).trim())) {
    throw new UsageError(`--type ${shownArg(String(values.type))} is not a message type: use ${SAY_TYPES.join(', ')}.`);
  }
  if (command === 'migrate' && values.to === undefined) {
    throw new UsageError('The migrate command needs --to: --to redis://user@host:port/db (or rediss://…) copies this project\'s files into Redis, --to file copies the Redis project named by OPENCOMMS_STORE into this project\'s files.');
  }
  const flags: CommandFlags = {
    project: values.project as string | undefined,
    host: values.host as string | undefined,
    id: values.id as string | undefined,
    member: values.member as string | undefined,
    timeoutMs,
    store: values.store === undefined ? undefined : (values.store as string).trim(),
    to: values.to === undefined ? undefined : (values.to as string).trim(),
    release: values.release === undefined ? undefined : (values.release as string).trim(),
    releaseMember: values['release-member'] === undefined ? undefined : (values['release-member'] as string).trim(),
    type: values.type === undefined ? undefined : (values.type as string).trim(),
    replyTo: values['reply-to'] === undefined ? undefined : (values['reply-to'] as string).trim(),
    role: values.role === undefined ? undefined : (values.role as string).trim(),
    notify: values.notify as string | undefined,
    json: values.json === true,
    dryRun: values['dry-run'] === true,
    plugin: values.plugin === true,
    wait: values.wait === true,
    fix: values.fix === true,
    apply: values.apply === true,
    hasReadProjectConfig: values['i-have-read-the-project-config'] === true,
  };
  return { kind: 'command', command, flags, positionals: rest };
}

export const HELP_TEXT = `opencomms - messaging between coding-agent sessions over MCP

Usage:
  opencomms [serve] [DIR] [--project DIR] [--host ID] [--store URL]
      Run the MCP stdio server (what a host's MCP config starts).
  opencomms install <host> [--project DIR] [--member ID] [--dry-run] [--plugin] [--apply]
                  [--i-have-read-the-project-config] [--store URL]
      Add OpenComms to a host's config (claude-code, codex, gemini-cli, opencode,
      cursor, vscode; claude-desktop, windsurf and goose get a snippet to paste).
      --plugin (claude-code): install as a Claude Code plugin; --apply runs the
      claude commands that enable it. codex, gemini-cli: --apply writes the trust
      lines into your own config; it refuses while the project's host config holds
      servers, hooks or settings OpenComms did not write, and lists them, until you
      add --i-have-read-the-project-config. --store: the Redis store (and
      $OPENCOMMS_PROJECT_ID) the host's server and hooks use; never a password.
  opencomms uninstall <host> [--project DIR] [--dry-run]
      Remove exactly what install added.
  opencomms pin [--project DIR] [--host ID] [--id ID]
      Mint a member id (or record --id) as a pin of this host and print it.
  opencomms status [--project DIR] [--json] [--store URL]
      Show the channels, members, pending mail and recent errors of a project.
  opencomms watch [--project DIR] [--member ID] [--json] [--notify CMD] [--store URL]
      A live view of the project; with --member, one line per new mail batch.
      On a terminal, keys act as the person: ? lists them (docs/person.md).
      --notify CMD runs CMD (split at spaces, no shell) with the channel,
      sender and kind as arguments when mail reaches you or a channel pauses for you.
  opencomms say CHANNEL [--to ROLE|ID] [--type manual|review_request|review_response]
                [--reply-to ID] [--role ROLE] TEXT|-
      Post to a channel as the person of this OS user (person-<user>), joining it
      under --role (default person) on the first say. Without --to, a reply goes
      to the sender of the message it answers, anything else to every member.
      Lifts a loop-guard pause. Refused inside an agent host (agents use their tools).
  opencomms read [CHANNEL] [--json]
      Print your own mail (as person-<user>); it counts as delivered once printed.
  opencomms pause CHANNEL | opencomms resume CHANNEL
      Pause a channel, or resume it (also a pause the loop guard made, which
      only a person may lift).
  opencomms reservations [--json] [--release ID] [--release-member ID] [--project DIR] [--store URL]
      List every edit reservation that holds (as the hooks judge it); --release
      frees one by id, --release-member all of one member's.
  opencomms hook [--project DIR] [--wait] [--timeout 30m] [--store URL]
      Run a host hook: reads the event JSON on stdin, answers on stdout.
      --wait: wait for new mail and exit 2 when it comes (asyncRewake).
  opencomms doctor [--project DIR] [--fix] [--json] [--store URL]
      Check the set-up; --fix repairs what is safe to repair.
  opencomms migrate --to redis://…|rediss://…|file [--project DIR]
      Copy a project between stores: --to a Redis URL copies this project's
      .opencomms files into Redis; --to file copies the Redis project named by
      $OPENCOMMS_STORE and $OPENCOMMS_PROJECT_ID into .opencomms. Refuses a
      target that already holds a project; checks the copy; the source stays.
  opencomms --version | --help

Flags:
  --project DIR   the project whose .opencomms/ holds the state
                  (default: $OPENCOMMS_PROJECT_DIR, else the current folder)
  --host ID       the host label members are registered and pinned under (default: mcp);
                  1-64 letters, digits, _ or -, starting with a letter or digit
  --id ID         the member id to pin instead of a fresh one
  --member ID     install: a fixed id for every session of the host (normally each
                  session gets its own); watch: the member to follow
  --store URL     file (the default) or a Redis store: redis://user@127.0.0.1:6379/0
                  (loopback only) or rediss://user@host:port/db (TLS); wins over
                  $OPENCOMMS_STORE. The password never goes here.
  --to URL|file   migrate: the store to copy the project into (same URL rules as --store)
  --to ROLE|ID    say: the member to write to (default: every other member)
  --json          machine-readable output

Environment:
  OPENCOMMS_MEMBER_ID     the member identity this server speaks as
  OPENCOMMS_PROJECT_DIR   the default project folder
  OPENCOMMS_PROJECT_ID    the project id stamped on channels (default: local-project);
                          required with a Redis store, where it names the project
  OPENCOMMS_NO_SPAWN=1    no spawn-push deliveries from this process
  OPENCOMMS_CLAUDE_BIN, OPENCOMMS_CODEX_BIN   spawn-push binary overrides
  OPENCOMMS_STORE         file (default) or redis://… / rediss://… (see --store)
  OPENCOMMS_STORE_PASSWORD, OPENCOMMS_STORE_PASSWORD_FILE
                          the store password, or a file holding it (mode 600)
  OPENCOMMS_STORE_CA      a CA bundle (PEM) for rediss:// with a private CA

Exit codes: 0 ok, 1 failure, 2 usage error.
`;
