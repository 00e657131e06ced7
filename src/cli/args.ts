// argv → a command and its flags. Usage errors carry exit code 2. Hand-written
// rather than node:util's parseArgs, which costs start-up time to load.
import { parseStoreUrl } from '../store';
import { isValidMemberId } from '../local/member-id';
import {
  BOOLEAN_FLAGS, COMMANDS, FLAGS_BY_COMMAND, POSITIONALS_BY_COMMAND, REPEATED_FLAGS, SAY_TYPES, SHORT_FLAGS, VALUE_FLAGS, type CommandName, type FlagName,
} from './command-table';

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
  repeated: Partial<Record<FlagName, string[]>>;
  positionals: string[];
}

function splitArgs(argv: readonly string[]): RawArgs {
  const values: RawArgs['values'] = {};
  const repeated: RawArgs['repeated'] = {};
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
      if (REPEATED_FLAGS.includes(name)) (repeated[name] ??= []).push(value);
    } else {
      if (eq !== -1) throw new UsageError(`--${name} takes no value.`);
      values[name] = true;
    }
  }
  return { values, repeated, positionals };
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
  /** log --since: a duration back from now, or a time. */
  since?: { ago_ms: number } | { at: number };
  /** log --follow: keep printing new messages until a signal. */
  follow: boolean;
  /** task: the board's fields as a person gives them (checked by the engine, as an agent's are). */
  task: TaskFlags;
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

// A time as ISO 8601 writes it: a date, then optionally a time and a zone.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

// A period back from now is no timer: it may reach back days (d) and past what a timer holds.
const SINCE_DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const SINCE_UNITS_MS: Record<string, number> = { ...DURATION_UNITS_MS, d: 86_400_000 };

/** --since: a duration back from now (2h, 30m, 7d) or an ISO time (2026-12-07T05:00:00Z). */
function parseSince(text: string): { ago_ms: number } | { at: number } {
  const trimmed = text.trim();
  const duration = SINCE_DURATION.exec(trimmed);
  const ms = duration ? Number(duration[1]) * SINCE_UNITS_MS[duration[2]!]! : NaN;
  if (Number.isFinite(ms) && ms >= 1) return { ago_ms: ms };
  const at = ISO_TIME.test(trimmed) ? Date.parse(trimmed) : NaN;
  if (Number.isFinite(at)) return { at };
  throw new UsageError(`--since takes a duration such as 30m, 2h or 7d, or a time such as 2026-12-07T05:00:00Z, not ${shownArg(trimmed)}.`);
}

/** An argument as a usage error may quote it: short, and every character outside printable ASCII escaped. */
function shownArg(text: string): string {
  const clipped = text.length > 40 ? `${text.slice(0, 40)}...` : text;
  return JSON.stringify(clipped).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** What `opencomms task` takes besides its positionals; --paths may repeat. */
export interface TaskFlags {
  details?: string;
  priority?: string;
  after?: string;
  paths?: string[];
  for?: string;
  channel?: string;
  result?: string;
  all: boolean;
}

export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  const { values, repeated, positionals } = splitArgs(argv);
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
  const since = values.since === undefined ? undefined : parseSince(values.since as string);
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
    task: {
      details: values.details as string | undefined,
      priority: values.priority as string | undefined,
      after: values.after as string | undefined,
      paths: repeated.paths,
      for: values.for as string | undefined,
      channel: values.channel as string | undefined,
      result: values.result as string | undefined,
      all: values.all === true,
    },
    since,
    follow: values.follow === true,
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
