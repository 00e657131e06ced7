// argv → a command and its flags. Usage errors carry exit code 2.
import { parseArgs } from 'node:util';

export const COMMANDS = ['serve', 'status', 'pin'] as const;
export type CommandName = (typeof COMMANDS)[number];

/** Flags each command accepts; anything else is a usage error. */
const FLAGS_BY_COMMAND: Record<CommandName, readonly string[]> = {
  serve: ['project', 'host'],
  status: ['project', 'json'],
  pin: ['project', 'host', 'id'],
};

const FLAG_SPECS = {
  project: { type: 'string' },
  host: { type: 'string' },
  id: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

export class UsageError extends Error {
  readonly exitCode = 2;
}

export type ParsedArgs =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'command'; command: CommandName; flags: { project?: string; host?: string; id?: string; json?: boolean }; positionals: string[] };

export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: FLAG_SPECS, allowPositionals: true, strict: true });
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    const unknown = /Unknown option '([^']+)'/.exec(detail);
    const what = unknown ? `Unknown flag "${unknown[1]}"` : detail.split('.')[0];
    throw new UsageError(`${what}. Run "opencomms --help" for the list of commands and flags.`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const [first, ...rest] = positionals;
  const command = (first ?? 'serve') as CommandName;
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new UsageError(`Unknown command "${first}". Run "opencomms --help" for the list of commands.`);
  }
  for (const flag of Object.keys(values)) {
    if (!FLAGS_BY_COMMAND[command].includes(flag)) {
      throw new UsageError(`The ${command} command does not take --${flag}. Run "opencomms --help" for its flags.`);
    }
  }
  for (const name of ['project', 'host', 'id'] as const) {
    if (values[name] !== undefined && values[name]?.trim() === '') throw new UsageError(`--${name} needs a value.`);
  }
  const maxPositionals = command === 'serve' ? 1 : 0;
  if (rest.length > maxPositionals) {
    throw new UsageError(`Unexpected argument "${rest[maxPositionals]}" for the ${command} command.`);
  }
  return { kind: 'command', command, flags: values, positionals: rest };
}

export const HELP_TEXT = `opencomms - messaging between coding-agent sessions over MCP

Usage:
  opencomms [serve] [DIR] [--project DIR] [--host ID]
      Run the MCP stdio server (what a host's MCP config starts).
  opencomms status [--project DIR] [--json]
      Show the channels, members, pending mail and recent errors of a project.
  opencomms pin [--project DIR] [--host ID] [--id ID]
      Mint a member id (or record --id) as a pin of this host and print it.
  opencomms --version | --help

Flags:
  --project DIR   the project whose .opencomms/ holds the state
                  (default: $OPENCOMMS_PROJECT_DIR, else the current folder)
  --host ID       the host label members are registered and pinned under (default: mcp)
  --id ID         the member id to pin instead of a fresh one
  --json          machine-readable output

Environment:
  OPENCOMMS_MEMBER_ID     the member identity this server speaks as
  OPENCOMMS_PROJECT_DIR   the default project folder
  OPENCOMMS_PROJECT_ID    the project id stamped on channels (default: local-project)

Exit codes: 0 ok, 1 failure, 2 usage error.
`;
