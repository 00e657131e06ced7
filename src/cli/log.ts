// `opencomms log [CHANNEL] [--since DURATION|TIME] [--follow] [--json]`: the
// transcript, for a person. A view: it reads the store lock-free, changes
// nothing, and needs no terminal. Every peer-written string goes through
// printable/printableBlock (or terminalSafeJson), never raw to the terminal.
import * as engine from '../engine';
import { openStore, type Store, type StoreSelection } from '../store';
import { compareEntries, LOG_PRINT_PAGE, LogIndex, type LogEntry } from './log-index';
import { printable, printableBlock, terminalSafeJson } from '../watch/format';

export interface LogOptions {
  projectDir: string;
  selection?: StoreSelection;
  channel?: string;
  since?: { ago_ms: number } | { at: number };
  follow: boolean;
  json: boolean;
  now: () => number;
  /** Writes to stdout; false when the text was held back because the reader is slower (then wait for `drained`). */
  write: (text: string) => boolean | void;
  /** Settles once held-back output was taken (or the reader went away): the log never holds more than a page unwritten. */
  drained: () => Promise<void>;
  warn: (text: string) => void;
  onSignal: (signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', handler: () => void) => void;
  /** Calls `handler` when stdout fails (its reader went away): a --follow nobody reads ends at its next write. */
  onOutputGone: (handler: () => void) => void;
}

const LOG_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** The longest a Node timer may wait: a keep-alive that never fires. */
const LOG_KEEP_ALIVE_MS = 2 ** 31 - 1;

function partyText(party: engine.TranscriptParty): string {
  const host = party.host === null ? '' : `, ${printable(party.host, 64)}`;
  return `${printable(party.role, 32)} (${printable(party.member, 64)}${host}, ${party.kind})`;
}

function stepText(step: engine.PathStep): string {
  const via = step.via === undefined ? '' : ` via ${printable(step.via, 32)}`;
  const by = step.by === undefined ? '' : ` by ${printable(step.by, 80)}`;
  return `${step.step}${via}${by}${step.at === null ? '' : ` ${engine.formatIsoTime(step.at)}`}`;
}

/** One channel's period on one line. */
export function periodLine(p: engine.ChannelPeriod): string {
  return `channel ${printable(p.channel, 64)} (${printable(p.channel_id, 64)}): ${p.messages} message(s), `
    + `${p.open_review_requests} open review request(s), tasks ${p.tasks.done} done / ${p.tasks.claimed} claimed / ${p.tasks.asked} asked, `
    + `reservations ${p.reservations.taken} taken / ${p.reservations.lapsed} lapsed, ${p.problems} problem(s)`;
}

/** One message: a header of our own, the text indented, its path and (for a person) its terminal. */
export function messageBlock(m: engine.TranscriptMessage): string {
  const reply = m.reply_to === null ? '' : `, replying to ${printable(m.reply_to, 80)}`;
  const lines = [
    `${engine.formatIsoTime(m.at)} [${printable(m.channel, 64)}] ${partyText(m.from)} -> ${partyText(m.to)}: ${printable(m.type, 32)} ${printable(m.message_id, 80)}${reply}`,
    ...printableBlock(m.content).split('\n').map((line) => `  | ${line}`),
    `  path: ${m.path.map(stepText).join(', ')}`,
  ];
  if (m.person_terminal) {
    const leader = m.person_terminal.session_leader === null ? '' : `, session of ${printable(m.person_terminal.session_leader, 80)}`;
    lines.push(`  typed at ${printable(m.person_terminal.tty, 64)}${leader}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Stdout as the log writes it: a page at a time, waiting after each page
 * until the reader took it, so a slow reader (a pipe) never makes the log
 * hold the history in its output buffer instead. Knows when the reader left.
 */
class Output {
  isGone = false;
  private isHeld = false;

  constructor(private readonly options: LogOptions) {
    options.onOutputGone(() => {
      this.isGone = true;
    });
  }

  write(text: string): void {
    if (this.options.write(text) === false) this.isHeld = true;
  }

  async settle(): Promise<void> {
    if (!this.isHeld || this.isGone) return;
    this.isHeld = false;
    await this.options.drained();
  }
}

function sinceOf(options: LogOptions): number | null {
  if (options.since === undefined) return null;
  return 'at' in options.since ? options.since.at : options.now() - options.since.ago_ms;
}

interface Round {
  channels: engine.Channel[];
  touched: Set<LogEntry>;
  state: engine.State;
}

/** The state as it is now (no history: the index reads that itself, after the state), and what changed since the last round. */
async function readRound(store: Store, index: LogIndex, options: LogOptions): Promise<Round | engine.ToolResult> {
  const state = await store.readLatest((s) => s);
  const channels = engine.transcriptChannels(state, options.channel);
  if (!Array.isArray(channels)) return channels;
  return { channels, state, touched: await index.update(state, channels) };
}

/** The header, then the messages of the period a page at a time: only one page of texts is held at once. */
async function printTranscript(options: LogOptions, out: Output, index: LogIndex, round: Round, input: engine.TranscriptInput): Promise<void> {
  const periods = round.channels.map((c) => engine.channelPeriodOf(round.state, c, index.countsOf(c.id), input));
  const entries = index.inPeriod();
  if (options.json) {
    // One line, so a --follow reader can take it and each later line as JSON lines.
    out.write(`{"channels":${terminalSafeJson(periods)},"messages":[`);
  } else {
    out.write(`${input.since === null ? 'the whole history' : `since ${engine.formatIsoTime(input.since)}`}:\n`);
    for (const period of periods) out.write(`${periodLine(period)}\n`);
    if (periods.length === 0) out.write('No channels yet.\n');
  }
  let isFirst = true;
  for (let at = 0; at < entries.length && !out.isGone; at += LOG_PRINT_PAGE) {
    for (const { entry, message } of await index.messagesOf(entries.slice(at, at + LOG_PRINT_PAGE))) {
      entry.shown = stepText(message.path[message.path.length - 1]!);
      out.write(options.json ? `${isFirst ? '' : ','}${terminalSafeJson(message)}` : `\n${messageBlock(message)}`);
      isFirst = false;
    }
    await out.settle();
  }
  if (options.json) out.write(']}\n');
}

/** Resolves to the exit code: 0 printed (with --follow: ended by a signal), 1 refused or unreadable. */
export async function runLog(options: LogOptions): Promise<number> {
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  const pager = store.pageHistory();
  const input: engine.TranscriptInput = { channel: options.channel, since: sinceOf(options), now: options.now() };
  const index = new LogIndex(pager, input);
  const out = new Output(options);
  try {
    const first = await readRound(store, index, options);
    if ('ok' in first) {
      options.warn(`opencomms log: ${printable(first.message, 600)} (reason: ${String(first.data?.reason)})`);
      return 1;
    }
    await printTranscript(options, out, index, first, input);
    if (!options.follow) return 0;
    return out.isGone ? 0 : await follow(store, index, options, out);
  } catch (err) {
    options.warn(`opencomms log: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await pager.close();
    await store.close();
  }
}

/**
 * Prints each message that appears after the first print, and a line each
 * time a printed message's path moves on (delivered, answered), until a
 * signal. Each change reads only the history written since the last one.
 */
function follow(store: Store, index: LogIndex, options: LogOptions, out: Output): Promise<number> {
  return new Promise<number>((resolve) => {
    const keepAlive = setInterval(() => undefined, LOG_KEEP_ALIVE_MS);
    const watcher = store.watch({ log: options.warn });
    let isDone = false;
    const finish = (code: number): void => {
      if (isDone) return;
      isDone = true;
      watcher.close();
      clearInterval(keepAlive);
      resolve(code);
    };
    for (const signal of LOG_SIGNALS) options.onSignal(signal, () => finish(0));
    options.onOutputGone(() => finish(0));
    let chain = Promise.resolve();
    const check = (): void => {
      chain = chain.then(async () => {
        if (isDone) return;
        const next = await readRound(store, index, options);
        if ('ok' in next) {
          options.warn(`opencomms log: ${printable(next.message, 600)} (reason: ${String(next.data?.reason)})`);
          return;
        }
        const changed = [...next.touched].filter((e) => index.isInPeriod(e)).sort(compareEntries);
        for (let at = 0; at < changed.length; at += LOG_PRINT_PAGE) {
          for (const { entry, message } of await index.messagesOf(changed.slice(at, at + LOG_PRINT_PAGE))) printChange(options, out, entry, message);
          await out.settle();
        }
      }).catch((err: unknown) => options.warn(`opencomms log: cannot read the project (${err instanceof Error ? err.message : String(err)}); waiting for the next change`));
    };
    watcher.onChange(check);
    // After the watch is up, so a message sent during start-up is seen by one or the other.
    check();
  });
}

function printChange(options: LogOptions, out: Output, entry: LogEntry, m: engine.TranscriptMessage): void {
  const text = stepText(m.path[m.path.length - 1]!);
  const known = entry.shown;
  if (known === text) return;
  entry.shown = text;
  if (options.json) {
    out.write(`${terminalSafeJson(known === undefined ? { message: m } : { path: { channel: m.channel, message_id: m.message_id, path: m.path } })}\n`);
    return;
  }
  out.write(known === undefined ? `\n${messageBlock(m)}` : `  [${printable(m.channel, 64)}] ${printable(m.message_id, 80)}: ${text}\n`);
}
