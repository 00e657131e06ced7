// The commands and the flags each takes: a table parseCommandLine (args.ts)
// reads, so a command or a flag is added here and nowhere else.

export const COMMANDS = [
  'serve', 'status', 'pin', 'install', 'uninstall', 'hook', 'doctor', 'watch', 'migrate', 'reservations', 'say', 'read', 'pause', 'resume', 'task',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export type FlagName =
  | 'project' | 'host' | 'id' | 'member' | 'timeout' | 'store' | 'to' | 'json' | 'help' | 'version' | 'dry-run' | 'plugin' | 'wait' | 'fix' | 'apply'
  | 'release' | 'release-member' | 'type' | 'reply-to' | 'role' | 'notify' | 'i-have-read-the-project-config'
  | 'details' | 'priority' | 'after' | 'paths' | 'for' | 'channel' | 'result' | 'all';

/** Flags each command accepts; anything else is a usage error. */
export const FLAGS_BY_COMMAND: Record<CommandName, readonly FlagName[]> = {
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
  task: ['project', 'store', 'json', 'details', 'priority', 'after', 'paths', 'for', 'channel', 'result', 'all'],
};

/** How many positionals each command takes (install and uninstall name a host). */
export const POSITIONALS_BY_COMMAND: Record<CommandName, { min: number; max: number; what: string }> = {
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
  task: { min: 0, max: 3, what: '' },
};

/** The message types a person's say may name. */
export const SAY_TYPES: readonly string[] = ['manual', 'review_request', 'review_response'];

export const VALUE_FLAGS: readonly FlagName[] = [
  'project', 'host', 'id', 'member', 'timeout', 'store', 'to', 'release', 'release-member', 'type', 'reply-to', 'role', 'notify',
  'details', 'priority', 'after', 'paths', 'for', 'channel', 'result',
];
export const BOOLEAN_FLAGS: readonly FlagName[] = ['json', 'help', 'version', 'dry-run', 'plugin', 'wait', 'fix', 'apply', 'i-have-read-the-project-config', 'all'];
/** Value flags that may be given more than once: their values are kept in order. */
export const REPEATED_FLAGS: readonly FlagName[] = ['paths'];
export const SHORT_FLAGS: Record<string, FlagName> = { '-h': 'help', '-v': 'version' };
