// The executable: argv and env in, exit code out. The only module that reads
// process.env / process.argv or calls process.exit.
import { HELP_TEXT, parseCommandLine, UsageError } from './args';
import { runServe } from './serve';
import { runStatus } from './status';
import { runPin } from './pin';
import { resolve } from 'node:path';

declare const __OPENCOMMS_VERSION__: string;
export const VERSION = __OPENCOMMS_VERSION__;

function log(line: string): void {
  process.stderr.write(`[opencomms] ${line}\n`);
}

function projectDirFrom(flag: string | undefined, positional: string | undefined): string {
  return resolve(flag ?? positional ?? process.env.OPENCOMMS_PROJECT_DIR ?? process.cwd());
}

async function main(argv: string[]): Promise<number | undefined> {
  const parsed = parseCommandLine(argv);
  if (parsed.kind === 'help') {
    process.stdout.write(HELP_TEXT);
    return 0;
  }
  if (parsed.kind === 'version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const projectDir = projectDirFrom(parsed.flags.project, parsed.positionals[0]);
  switch (parsed.command) {
    case 'serve':
      runServe({
        projectDir,
        host: parsed.flags.host ?? 'mcp',
        version: VERSION,
        env: process.env,
        stdin: () => process.stdin,
        stdout: process.stdout,
        log,
        exit: (code) => process.exit(code),
        onSignal: (signal, handler) => process.on(signal, handler),
      });
      return undefined; // runs until stdin closes or a signal arrives
    case 'status':
      return runStatus({ projectDir, json: parsed.flags.json === true, write: (t) => process.stdout.write(t) });
    case 'pin':
      return runPin({ projectDir, host: parsed.flags.host ?? 'mcp', id: parsed.flags.id, write: (t) => process.stdout.write(t) });
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`opencomms: ${err.message}\n`);
      process.exitCode = err.exitCode;
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`opencomms: ${message}\n`);
    process.exitCode = 1;
  },
);
