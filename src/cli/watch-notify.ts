// `watch --notify CMD`: tell a person, outside the terminal, that mail has
// reached them or that a channel paused itself to wait for them. CMD is run
// as argv (split at spaces; no shell, no quoting, no expansion), with three
// more arguments: the channel, the sender, and the kind (the message type, or
// `paused` for a loop-guard pause). Never the content: that is delivered
// only by `opencomms read`, and a notifier may show or log its arguments.
import type { WatchEvent } from '../watch';

/** A notifier that does not end by then is stopped. */
export const NOTIFY_TIMEOUT_MS = 10_000;
/** At most this many notifiers run at once; what comes beyond is dropped (and said once on stderr). */
export const MAX_RUNNING_NOTIFIERS = 4;

export interface Notifier {
  /** Runs CMD for each event that concerns the person. */
  onEvents(events: readonly WatchEvent[]): void;
}

/** An argument made of a stored label: no control or space characters, short. */
function argOf(text: string): string {
  const clean = text.replace(/[^\p{L}\p{N}_.:@/+=-]/gu, '_').slice(0, 80);
  return clean === '' ? '_' : clean;
}

/** The arguments of each notification these events call for (channel, sender, kind). */
export function notificationsFor(events: readonly WatchEvent[], person: string): string[][] {
  const out: string[][] = [];
  for (const event of events) {
    if (event.event === 'sent' && event.to_id === person) out.push([argOf(event.channel), argOf(event.from_id), argOf(event.message_type)]);
    if (event.event === 'paused' && event.reason === 'agent_streak') out.push([argOf(event.channel), 'loop-guard', 'paused']);
    if (event.event === 'task' && event.status === 'asked') out.push([argOf(event.channel ?? 'board'), argOf(event.by ?? 'agent'), `task-asked:${argOf(event.task_id)}`]);
  }
  return out;
}

/** A notifier for the command line `command`; undefined when it names no program. */
export function createNotifier(command: string, person: string, log: (line: string) => void): Notifier | undefined {
  const argv = command.split(/\s+/).filter((part) => part !== '');
  if (argv.length === 0) return undefined;
  const [program, ...fixed] = argv as [string, ...string[]];
  let running = 0;
  let isDropNoted = false;
  const run = (args: readonly string[]): void => {
    if (running >= MAX_RUNNING_NOTIFIERS) {
      if (!isDropNoted) log(`opencomms watch: --notify: ${MAX_RUNNING_NOTIFIERS} notifiers still run; later notifications are dropped until one ends`);
      isDropNoted = true;
      return;
    }
    running += 1;
    // Required here: only a watch with --notify loads it.
    const { spawn } = require('node:child_process') as typeof import('node:child_process');
    const child = spawn(program, [...fixed, ...args], { stdio: 'ignore', shell: false, windowsHide: true });
    const timer = setTimeout(() => child.kill('SIGKILL'), NOTIFY_TIMEOUT_MS);
    timer.unref();
    let isSettled = false;
    const finishRun = (problem?: string): void => {
      if (isSettled) return;
      isSettled = true;
      running -= 1;
      isDropNoted = false;
      clearTimeout(timer);
      if (problem) log(`opencomms watch: --notify ${program}: ${problem}`);
    };
    child.on('error', (err) => finishRun(err.message));
    child.on('exit', (code, signal) => finishRun(code === 0 ? undefined : `ended with ${signal ?? `status ${code}`}`));
  };
  return {
    onEvents(events) {
      for (const args of notificationsFor(events, person)) run(args);
    },
  };
}
