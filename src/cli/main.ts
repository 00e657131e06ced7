// The executable: argv and env in, exit code out. The only module that reads
// process.env / process.argv or calls process.exit.
import { parseCommandLine, UsageError } from './args';
import type { CommandName } from './command-table';
import { HELP_TEXT } from './help';
import { resolveStoreSelection, type StoreSelection } from '../store';
import { runServe } from './serve';
import { readAll, writeFully } from './sync-io';
import { resolve as resolvePath } from 'node:path';

declare const __OPENCOMMS_VERSION__: string;
declare const __OPENCOMMS_COMMIT__: string;
export const VERSION = __OPENCOMMS_VERSION__;
/** The commit scripts/build.mjs built from (scripts/source-commit.mjs), or `uncommitted` / `unknown`. */
export const SOURCE_COMMIT = __OPENCOMMS_COMMIT__;

function logLine(line: string): void {
  process.stderr.write(`[opencomms] ${line}\n`);
}

function projectDirFrom(flag: string | undefined, positional?: string): string {
  return resolvePath(flag ?? positional ?? process.env.OPENCOMMS_PROJECT_DIR ?? process.cwd());
}

/** The rest of stdin through process.stdin: only for a descriptor that plain reads cannot wait on. */
function readStdinStream(): Promise<Buffer> {
  return new Promise((resolveBytes, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on('end', () => resolveBytes(Buffer.concat(chunks)));
    process.stdin.on('error', reject);
  });
}

const writeStdout = (text: string): void => void process.stdout.write(text);
// The hook answers with plain write(2): it loads no stream machinery. The
// answer counts as written (and its mail as delivered) only once the stream
// fallback's callback, if it was needed, reports success.
const writeAnswer = (text: string): Promise<void> => writeFully(1, text, (rest) => new Promise<void>((resolve, reject) => {
  process.stdout.once('error', reject);
  process.stdout.write(rest, (err) => (err ? reject(err) : resolve()));
}));
let hasWarned = false;
const warnLine = (text: string): void => {
  hasWarned = true;
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
};

/** Settles once every warning written so far is out (or stderr failed); at once when there was none. */
function warningsFlushed(): Promise<void> {
  // Opening process.stderr costs a few ms: a quiet process never does.
  if (!hasWarned) return Promise.resolve();
  return new Promise((resolve) => process.stderr.write('', () => resolve()));
}

/** Settles once stdout took what it holds back (drain), or can take nothing more (error, close). */
function stdoutDrained(): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      for (const event of ['drain', 'error', 'close'] as const) process.stdout.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'error', 'close'] as const) process.stdout.once(event, done);
  });
}

/**
 * A reader that went away (`opencomms status | head -1`) is not a failure:
 * what is left to print is dropped, and the command ends with the exit code
 * it would have had, instead of dying on an unhandled EPIPE.
 */
function dropOutputWhenReaderGoes(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    throw err;
  });
}

/**
 * The user's home folder when this Node keeps compiled code in a cache
 * (module.enableCompileCache, Node ≥ 22.1): install then names a cache folder
 * there in every config it writes. Only then: older Nodes ignore the variable,
 * and a config should hold nothing that does no work.
 * OPENCOMMS_COMPILE_CACHE=0 writes none; =1 writes one on any Node (tests).
 */
function compileCacheHome(): string | undefined {
  const wanted = process.env.OPENCOMMS_COMPILE_CACHE;
  if (wanted === '0') return undefined;
  const { enableCompileCache } = require('node:module') as { enableCompileCache?: unknown };
  if (wanted !== '1' && typeof enableCompileCache !== 'function') return undefined;
  return process.env.HOME || (require('node:os') as typeof import('node:os')).homedir();
}

/** Commands that open a project's store, and so take --store / OPENCOMMS_STORE. */
const STORE_COMMANDS: ReadonlySet<CommandName> = new Set(['serve', 'status', 'hook', 'doctor', 'watch', 'reservations', 'say', 'read', 'pause', 'resume', 'task', 'log']);
// The store is chosen (and a Redis configuration checked: credentials, TLS,
// project id) before anything opens, so a wrong one is refused before a
// byte is read or written anywhere.
function storeFor(command: CommandName, flag: string | undefined): StoreSelection {
  if (!STORE_COMMANDS.has(command)) return { kind: 'file' };
  return resolveStoreSelection({ flag, env: process.env });
}

/** Whether a person action may run in this process, and from which terminal (cli/person). */
function personHereCheck(command: string): import('./person').PersonHere {
  const hasConsole = (require('node:tty') as typeof import('node:tty')).isatty(0);
  return (require('./person') as typeof import('./person')).checkPersonHere(command, process.env, process.ppid, hasConsole);
}

let invokedAs: string | undefined;
/** How the person starts this program (cli/invocation), worked out once, for the commands our output suggests. */
function commandForm(): string {
  invokedAs ??= (require('./invocation') as typeof import('./invocation')).invokedCommand({ script: process.argv[1], cwd: process.cwd(), pathEnv: process.env.PATH });
  return invokedAs;
}

/** `write` with each suggested `opencomms <subcommand>` in our own messages as the person runs it. */
function suggesting(write: (text: string) => void): (text: string) => void {
  return (text) => write((require('./invocation') as typeof import('./invocation')).asInvoked(text, commandForm()));
}

async function runCommand(argv: string[]): Promise<number | undefined> {
  const parsed = parseCommandLine(argv);
  // The server and the hook own their output: for them an unwritten reply has consequences (PROTOCOL 7.1).
  if (parsed.kind !== 'command' || (parsed.command !== 'serve' && parsed.command !== 'hook')) {
    dropOutputWhenReaderGoes(process.stdout);
    dropOutputWhenReaderGoes(process.stderr);
  }
  if (parsed.kind === 'help') {
    process.stdout.write(HELP_TEXT);
    return 0;
  }
  if (parsed.kind === 'version') {
    process.stdout.write(`${VERSION} (source commit ${SOURCE_COMMIT})\n`);
    return 0;
  }
  const { flags } = parsed;
  let store: StoreSelection;
  let storeProblem: unknown;
  try {
    store = storeFor(parsed.command, flags.store);
  } catch (err) {
    // doctor reports a store it cannot set up as one of its findings, beside the local checks.
    if (parsed.command === 'doctor') {
      store = { kind: 'file' };
      storeProblem = err;
    } else if (parsed.command !== 'hook') throw err;
    // A hook never breaks its session (PROTOCOL 8.3): the empty answer, and the reason on stderr.
    else {
      warnLine(`opencomms hook: ${err instanceof Error ? err.message : String(err)}`);
      await writeAnswer('{}\n');
      return 0;
    }
  }
  const projectDir = projectDirFrom(flags.project, parsed.command === 'serve' ? parsed.positionals[0] : undefined);
  // Each command's module is required where it runs, not imported: esbuild
  // evaluates a required module on first use, so a start-up pays only for the
  // command it runs (serve requires its tools on the first tools request).
  switch (parsed.command) {
    case 'serve':
      runServe({
        projectDir,
        selection: store,
        host: flags.host ?? 'mcp',
        version: VERSION,
        env: process.env,
        stdin: () => process.stdin,
        stdout: process.stdout,
        log: logLine,
        exit: (code) => process.exit(code),
        onSignal: (signal, handler) => process.on(signal, handler),
      });
      return undefined; // runs until stdin closes or a signal arrives
    case 'status':
      return (require('./status') as typeof import('./status')).runStatus({ projectDir, json: flags.json, write: writeStdout, selection: store, command: commandForm() });
    case 'reservations':
      return (require('./reservations') as typeof import('./reservations')).runReservations({
        projectDir, json: flags.json, release: flags.release, releaseMember: flags.releaseMember, write: writeStdout, warn: suggesting(warnLine), selection: store,
        env: process.env, personHere: personHereCheck,
      });
    case 'pin':
      return (require('./pin') as typeof import('./pin')).runPin({ projectDir, host: flags.host ?? 'mcp', id: flags.id, write: writeStdout });
    case 'install':
      return (require('../hosts') as typeof import('../hosts')).runInstall({
        projectDir, host: parsed.positionals[0], memberId: flags.member, dryRun: flags.dryRun, plugin: flags.plugin,
        apply: flags.apply, hasReadProjectConfig: flags.hasReadProjectConfig, store: flags.store, bundlePath: resolvePath(process.argv[1]), version: VERSION, env: process.env, write: writeStdout, warn: suggesting(warnLine),
        compileCacheHome: compileCacheHome(), command: commandForm(),
      });
    case 'uninstall':
      return (require('../hosts') as typeof import('../hosts')).runUninstall({ projectDir, host: parsed.positionals[0], dryRun: flags.dryRun, env: process.env, write: writeStdout, warn: suggesting(warnLine) });
    case 'hook': {
      const code = await (require('../hooks') as typeof import('../hooks')).runHook({
        explicitProjectDir: flags.project ?? process.env.OPENCOMMS_PROJECT_DIR, selection: store,
        cwd: process.cwd(), env: process.env, input: await readAll(0, readStdinStream), wait: flags.wait, timeoutMs: flags.timeoutMs, write: writeAnswer, warn: warnLine,
        parentPid: process.ppid, onSignal: (signal, handler) => process.on(signal, handler),
      });
      // The host waits for this process to end. Once the answer is written
      // (and any delivery settled) and its warnings are out, nothing is left to
      // do, yet a natural exit would wait for V8's background work to wind
      // down (optimising compiles, concurrent GC) before it even begins: a
      // shell call's pair of hooks with 2,000 held files measured 35 ms added
      // with a natural exit, 21 ms with this one (one paired run).
      await warningsFlushed();
      return process.exit(code);
    }
    case 'watch':
      return (require('./watch') as typeof import('./watch')).runWatch({
        projectDir, selection: store, memberId: flags.member, json: flags.json, env: process.env,
        stdin: process.stdin, stdout: process.stdout, write: writeStdout, warn: warnLine,
        onSignal: (signal, handler) => process.on(signal, handler),
        parentPid: process.ppid, notify: flags.notify, personHere: personHereCheck, command: commandForm(),
      });
    case 'say': {
      const [channel, text] = parsed.positionals;
      return (require('./say') as typeof import('./say')).runSay({
        projectDir, selection: store, env: process.env, personHere: personHereCheck, channel: channel!,
        text: text === '-' ? await readAll(0, readStdinStream) : text!,
        to: flags.to, type: flags.type, replyTo: flags.replyTo, role: flags.role, write: suggesting(writeStdout), warn: suggesting(warnLine),
      });
    }
    case 'read':
      return (require('./read') as typeof import('./read')).runRead({
        projectDir, selection: store, env: process.env, personHere: personHereCheck, channel: parsed.positionals[0], json: flags.json,
        // Written with plain write(2), like the hook's answer: the mail counts as delivered only once this settles.
        print: writeAnswer, warn: suggesting(warnLine), command: commandForm(),
      });
    case 'pause':
      return (require('./pause') as typeof import('./pause')).runPause({
        projectDir, selection: store, env: process.env, personHere: personHereCheck, channel: parsed.positionals[0]!, write: suggesting(writeStdout), warn: suggesting(warnLine),
      });
    case 'resume':
      return (require('./resume') as typeof import('./resume')).runResume({
        projectDir, selection: store, env: process.env, personHere: personHereCheck, channel: parsed.positionals[0]!, write: suggesting(writeStdout), warn: suggesting(warnLine),
      });
    case 'task':
      return (require('./task') as typeof import('./task')).runTask({
        projectDir, selection: store, env: process.env, personHere: personHereCheck, positionals: parsed.positionals, flags: flags.task, json: flags.json,
        write: writeStdout, warn: suggesting(warnLine),
      });
    case 'log':
      return (require('./log') as typeof import('./log')).runLog({
        projectDir, selection: store, channel: parsed.positionals[0], since: flags.since, follow: flags.follow, json: flags.json,
        now: Date.now, write: (text) => process.stdout.write(text), drained: stdoutDrained, warn: warnLine,
        onSignal: (signal, handler) => process.on(signal, handler), onOutputGone: (handler) => process.stdout.on('error', handler),
      });
    case 'migrate':
      // Picks both stores itself (the source and --to): not one of STORE_COMMANDS.
      return (require('./migrate') as typeof import('./migrate')).runMigrate({ projectDir, to: flags.to!, env: process.env, write: writeStdout });
    case 'doctor':
      return (require('./doctor') as typeof import('./doctor')).runDoctor({
        projectDir, fix: flags.fix, json: flags.json, version: VERSION, bundlePath: resolvePath(process.argv[1]), write: writeStdout, command: commandForm(),
        store, storeProblem, caPath: process.env.OPENCOMMS_STORE_CA?.trim() || undefined, env: process.env,
      });
  }
}

runCommand(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`opencomms: ${err.message}\n`);
      process.exitCode = err.exitCode;
      return;
    }
    // A fault's advice (`opencomms doctor --fix`) in the form the person can run.
    const message = (require('./invocation') as typeof import('./invocation')).asInvoked(err instanceof Error ? err.message : String(err), commandForm());
    process.stderr.write(`opencomms: ${message}\n`);
    process.exitCode = 1;
  },
);
