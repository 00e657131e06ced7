// `opencomms watch` without --member: the view for people. Each state change
// is diffed against the previous view; the events go out as JSON lines, as
// plain lines, or (on a terminal) as a redrawn screen.
import type { HistoryView, State } from '../engine';
import { watchStateDir, type StateWatcher } from '../local/state-dir-watch';
import { diffViews, type WatchEvent } from './events';
import { clock, describeEvent, jsonLine, plainLine, type WatchStart } from './format';
import { HIDE_CURSOR, renderScreen, SHOW_CURSOR } from './screen';
import { emptyView, takeView, type WatchView } from './view';

export type PeopleOutput = 'json' | 'lines' | 'screen';

/** Events the screen keeps below the tables. */
const SCREEN_EVENTS = 8;
/** The longest a Node timer waits; a lapse further off is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface PeopleWatchOptions {
  project: string;
  /** Where the state is, for the first line: "file", or the Redis URL and project. */
  store?: string;
  stateDir: string;
  /** A lock-free read of the current state (store.snapshot). */
  snapshot: () => State;
  history: HistoryView;
  output: PeopleOutput;
  write: (text: string) => void;
  now: () => number;
  log: (line: string) => void;
  /** The terminal's size, asked again on every frame. */
  size: () => { columns: number; rows: number };
  /** Replaces watchStateDir (tests). */
  watch?: (stateDir: string) => StateWatcher;
  /** The watching person's member id: their waiting mail is shown first, and marked in plain lines. */
  person?: string;
  /** What the person's keys add to the screen: the selected row and the footer lines (cli/watch-keys). */
  overlay?: () => { selected?: string; footer?: readonly string[]; panel?: (columns: number, maxLines: number) => string[] };
  /** How the person starts this program (`opencomms`, `node dist/opencomms.js`): the commands the screen suggests. */
  command?: string;
  /** Every batch of events, as found (--notify listens here). */
  onEvents?: (events: readonly WatchEvent[]) => void;
}

export interface PeopleWatch {
  /** The view as last taken. */
  current(): WatchView;
  /** Draws the screen again without a state change (a terminal resize). */
  redraw(): void;
  /** Stops watching; on a terminal, gives the cursor back. */
  close(): void;
}

function pendingCount(view: WatchView): number {
  let count = 0;
  for (const e of view.mail.values()) if (e.delivery_status === 'pending') count += 1;
  return count;
}

export function startPeopleWatch(options: PeopleWatchOptions): PeopleWatch {
  const { output, write, now } = options;
  const recentEvents: string[] = [];
  let isClosed = false;
  let lastFault: string | undefined;

  const readView = (): WatchView | undefined => {
    try {
      const taken = takeView(options.snapshot(), options.history);
      lastFault = undefined;
      return taken;
    } catch (err) {
      // A read can fail mid-trouble (permissions, a vanished history file);
      // say so once per distinct fault and try again on the next change.
      const text = err instanceof Error ? err.message : String(err);
      if (text !== lastFault) options.log(`opencomms watch: cannot read the state (${text}); waiting for the next change`);
      lastFault = text;
      return undefined;
    }
  };

  const draw = (): void => {
    const { columns, rows } = options.size();
    const overlay = options.overlay?.() ?? {};
    write(renderScreen({ project: options.project, view, recentEvents, at: now(), columns, rows, person: options.person, command: options.command, ...overlay }));
  };

  const watcher = (options.watch ?? ((dir) => watchStateDir(dir, { log: options.log })))(options.stateDir);
  // The first view is taken after the watch is up, so a change landing in
  // between is either in the baseline or wakes a tick.
  let view: WatchView = readView() ?? emptyView();

  // A reservation that lapses by time (its expiry, or its holder away 10
  // minutes) changes no state, so no watcher wakes: the view is taken again
  // at the next lapse the last view saw.
  let lapseTimer: ReturnType<typeof setTimeout> | undefined;
  const lookAtNextLapse = (): void => {
    clearTimeout(lapseTimer);
    lapseTimer = undefined;
    const at = view.nextLapseAt;
    if (isClosed || at === undefined || at === null) return;
    lapseTimer = setTimeout(tick, Math.min(Math.max(0, at - (view.now ?? at)) + 1, MAX_TIMER_MS));
    lapseTimer.unref?.();
  };

  function tick(): void {
    if (isClosed) return;
    const next = readView();
    if (!next) return;
    const events = diffViews(view, next);
    view = next;
    lookAtNextLapse();
    if (events.length > 0) options.onEvents?.(events);
    if (output === 'screen') {
      // Redrawn even without events: counts such as in-flight mail move too.
      const shownAt = now();
      for (const event of events) recentEvents.push(`${clock(shownAt)} ${describeEvent(event, options.command)}`);
      recentEvents.splice(0, Math.max(0, recentEvents.length - SCREEN_EVENTS));
      draw();
      return;
    }
    const at = now();
    for (const event of events) {
      const isForPerson = event.event === 'sent' && options.person !== undefined && event.to_id === options.person;
      const line = output === 'json' ? jsonLine(event, at) : isForPerson ? `${clock(at)} [for you] ${describeEvent(event, options.command)}` : plainLine(event, at, options.command);
      write(`${line}\n`);
    }
  }
  watcher.onChange(tick);
  lookAtNextLapse();

  if (output === 'screen') {
    write(HIDE_CURSOR);
    draw();
  } else {
    const start: WatchStart = { event: 'watching', project: options.project, channels: view.channels.size, pending: pendingCount(view), store: options.store ?? 'file' };
    write(`${output === 'json' ? jsonLine(start, now()) : plainLine(start, now())}\n`);
  }

  return {
    current: () => view,
    redraw() {
      if (!isClosed && output === 'screen') draw();
    },
    close() {
      if (isClosed) return;
      isClosed = true;
      clearTimeout(lapseTimer);
      watcher.close();
      // The newline puts the shell's prompt below the last frame, not after a ^C.
      if (output === 'screen') write(`${SHOW_CURSOR}\n`);
    },
  };
}
