// `opencomms watch`: a live view for people, or (with --member) one line per
// new mail batch for an agent's monitor. This file owns the process side:
// the member-id check, and every way the watch ends (a signal, stdin closing,
// the parent going away, stdout closing).
import { fstatSync } from 'node:fs';
import { openStore, type StoreSelection } from '../store';
import { isValidMemberId } from '../local/member-id';
import { takeView } from '../watch/view';
import { startMailWatch, startPeopleWatch, type PeopleOutput } from '../watch';
import { isPidAlive } from '../process/liveness';
import { personId, projectIdOf, type PersonHere } from './person';

export interface WatchOptions {
  projectDir: string;
  /** The store (--store / OPENCOMMS_STORE); the project's files when absent. */
  selection?: StoreSelection;
  /** --member: the agent mode, for this member. */
  memberId?: string;
  json: boolean;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  write: (text: string) => void;
  warn: (text: string) => void;
  onSignal: (signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', handler: () => void) => void;
  /** The process that started us; when it is gone, so are we. */
  parentPid: number;
  /** --notify: a program (and arguments) run when mail reaches the person or a channel pauses for one (watch-notify). */
  notify?: string;
  /** Whether a person action may run here, and from which terminal (checkPersonHere): asked for the keys. */
  personHere: (command: string) => PersonHere;
  /** How the person starts this program (cli/invocation): the commands the screen suggests. */
  command?: string;
}

/**
 * How often we ask whether the parent still lives when stdin cannot tell us.
 * No platform we ship on tells a child its parent died without polling, and
 * each wake-up costs a little CPU, so the poll is slow and, when stdin is a
 * pipe whose EOF already says it, slower still: there it only covers a
 * parent that died while another process kept the pipe's write end open.
 */
export const PARENT_CHECK_MS = 3_000;
export const PARENT_BACKSTOP_MS = 30_000;
/**
 * A pipe whose reader has gone (`watch --json | head -1`) says so only to a
 * write, and a quiet project writes nothing. So while output is idle, a
 * single space is written after PIPE_PROBE_FIRST_MS, then after twice as
 * long each time up to PIPE_PROBE_MAX_MS: a closed pipe ends a --json watch
 * within a second or so of its last line, and an open one gets a few spaces
 * an hour at most, each in front of the next line (JSON allows it). Plain
 * lines get no probe: a closed pipe ends that watch at its next line.
 */
export const PIPE_PROBE_FIRST_MS = 1_000;
export const PIPE_PROBE_MAX_MS = 60_000;
/** The longest a Node timer may wait: a keep-alive that never fires. */
const KEEP_ALIVE_MS = 2 ** 31 - 1;

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;


// Only a pipe or socket closes because the other end went away. A /dev/null
// or file stdin (a monitor started without one) reads EOF at once, which says
// nothing about the parent.
function isStreamedStdin(stdin: NodeJS.ReadStream): boolean {
  return isPipe(stdin, 0);
}

function isPipe(stream: NodeJS.ReadStream | NodeJS.WriteStream, fallbackFd: number): boolean {
  try {
    const stat = fstatSync((stream as { fd?: number }).fd ?? fallbackFd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

/** Writes through `write`, and probes an idle pipe with a space until its reader is known to be gone (see PIPE_PROBE_FIRST_MS). */
function probeIdlePipe(write: (text: string) => void): { write: (text: string) => void; stop: () => void } {
  let delay = PIPE_PROBE_FIRST_MS;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    timer = setTimeout(() => {
      delay = Math.min(delay * 2, PIPE_PROBE_MAX_MS);
      write(' ');
      schedule();
    }, delay);
    timer.unref();
  };
  schedule();
  return {
    write(text) {
      write(text);
      delay = PIPE_PROBE_FIRST_MS;
      clearTimeout(timer);
      schedule();
    },
    stop: () => clearTimeout(timer),
  };
}

/** Resolves with the exit code when the watch ends. */
export async function runWatch(options: WatchOptions): Promise<number> {
  const { memberId, warn } = options;
  if (memberId !== undefined && !isValidMemberId(memberId as unknown)) {
    const shown = memberId.length > 40 ? `${memberId.slice(0, 40)}...` : memberId;
    warn(`opencomms: --member ${JSON.stringify(shown)} is not a member id (1-64 letters, digits, _ or -, starting with a letter or digit); use the id \`opencomms pin\` printed.`);
    return 2;
  }
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  const log = (line: string): void => warn(line);
  // The first view needs a loaded state (with the history it shows); later ones are loaded by the watch before it wakes them.
  try {
    await store.readLatest((state, ctx) => takeView(state, ctx.history));
  } catch (err) {
    warn(`opencomms watch: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }

  return new Promise<number>((resolve) => {
    let isDone = false;
    const cleanups: (() => void)[] = [];
    const finish = (code: number): void => {
      if (isDone) return;
      isDone = true;
      for (const cleanup of cleanups.reverse()) {
        try {
          cleanup();
        } catch {
          // ending anyway; the first cleanup error must not stop the others
        }
      }
      resolve(code);
    };

    // Wired before the watch starts, so an early signal still ends it cleanly.
    for (const signal of SIGNALS) options.onSignal(signal, () => finish(0));

    const { stdout } = options;
    // A closed stdout means nobody reads us any more (EPIPE): nothing left to do.
    const onStdoutError = (): void => finish(0);
    stdout.on('error', onStdoutError);
    cleanups.push(() => stdout.off('error', onStdoutError));

    const isStreamed = isStreamedStdin(options.stdin);
    if (isStreamed) {
      const { stdin } = options;
      const onEnd = (): void => finish(0);
      stdin.on('data', () => undefined); // read and drop: only the end matters
      stdin.on('end', onEnd);
      stdin.on('error', onEnd);
      cleanups.push(() => stdin.destroy());
    } else {
      // The state watcher is non-persistent by design and a /dev/null stdin
      // holds nothing open, so this timer alone keeps the process alive.
      const keepAlive = setInterval(() => undefined, KEEP_ALIVE_MS);
      cleanups.push(() => clearInterval(keepAlive));
    }

    if (options.parentPid > 1) {
      const parentCheck = setInterval(() => {
        if (!isPidAlive(options.parentPid)) finish(0);
      }, isStreamed ? PARENT_BACKSTOP_MS : PARENT_CHECK_MS);
      parentCheck.unref();
      cleanups.push(() => clearInterval(parentCheck));
    }

    if (memberId !== undefined) {
      const mailWatch = startMailWatch({
        stateDir: store.stateDir, memberId, snapshot: () => store.snapshot(), write: options.write, log, watch: () => store.watch({ log }),
      });
      cleanups.push(() => mailWatch.close());
      return;
    }
    const output: PeopleOutput = options.json ? 'json' : stdout.isTTY ? 'screen' : 'lines';
    const person = personId(options.env);
    const notifier = options.notify === undefined ? undefined
      : (require('./watch-notify') as typeof import('./watch-notify')).createNotifier(options.notify, person, log);
    // Keys only where a person types into the view itself: a terminal on both sides.
    const keys = output === 'screen' && options.stdin.isTTY && typeof options.stdin.setRawMode === 'function'
      ? new (require('./watch-keys') as typeof import('./watch-keys')).WatchKeys({
        store, person, projectId: projectIdOf(options.env), view: () => peopleWatch.current(), redraw: () => peopleWatch.redraw(),
        quit: () => finish(0), here: options.personHere('watch (its keys)'),
        command: options.command ?? 'opencomms',
      })
      : undefined;
    let { write } = options;
    // JSON only: for JSON a space before a line is nothing; plain lines are for people and stay as printed.
    if (output === 'json' && isPipe(stdout, 1)) {
      const probe = probeIdlePipe(write);
      write = probe.write;
      cleanups.push(probe.stop);
    }
    const peopleWatch = startPeopleWatch({
      project: store.projectDir, stateDir: store.stateDir, snapshot: () => store.snapshot(), history: store.history,
      store: store.describe().label,
      output, write, now: Date.now, log,
      // The view reads every channel's history: a Redis watch loads those too before each look.
      watch: () => store.watch({ log, load: () => store.readLatest((state, ctx) => takeView(state, ctx.history)) }),
      size: () => ({ columns: stdout.columns ?? 80, rows: stdout.rows ?? 24 }),
      person, command: options.command, overlay: keys && (() => keys.overlay()), onEvents: notifier && ((events) => notifier.onEvents(events)),
    });
    cleanups.push(() => peopleWatch.close());
    if (keys) {
      // Raw mode: keys arrive one by one and Ctrl-C arrives as a key (the keys quit on it), not as SIGINT.
      const { stdin } = options;
      stdin.setRawMode(true);
      stdin.setEncoding('utf8');
      const onKeys = (chunk: string): void => keys.feed(chunk);
      stdin.on('data', onKeys);
      cleanups.push(() => {
        stdin.off('data', onKeys);
        stdin.setRawMode(false);
        stdin.pause();
      });
    }
    if (output === 'screen') {
      const onResize = (): void => peopleWatch.redraw();
      stdout.on('resize', onResize);
      cleanups.push(() => stdout.off('resize', onResize));
    }
  });
}
