// `opencomms log [CHANNEL] [--since DURATION|TIME] [--follow] [--json]`: the
// transcript, for a person. A view: it reads the store lock-free, changes
// nothing, and needs no terminal. Every peer-written string goes through
// printable/printableBlock (or terminalSafeJson), never raw to the terminal.
import * as engine from '../engine';
import { openStore, type Store, type StoreSelection } from '../store';
import { printable, printableBlock, terminalSafeJson } from '../watch/format';

export interface LogOptions {
  projectDir: string;
  selection?: StoreSelection;
  channel?: string;
  since?: { ago_ms: number } | { at: number };
  follow: boolean;
  json: boolean;
  now: () => number;
  write: (text: string) => void;
  warn: (text: string) => void;
  onSignal: (signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', handler: () => void) => void;
  /** Calls `handler` when stdout fails (its reader went away): a --follow nobody reads ends at its next write. */
  onOutputGone: (handler: () => void) => void;
}

interface Transcript {
  channels: engine.ChannelPeriod[];
  messages: engine.TranscriptMessage[];
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

function sinceOf(options: LogOptions): number | null {
  if (options.since === undefined) return null;
  return 'at' in options.since ? options.since.at : options.now() - options.since.ago_ms;
}

async function readTranscript(store: Store, options: LogOptions, since: number | null): Promise<Transcript | engine.ToolResult> {
  const result = await store.readLatest((state, ctx) => engine.transcriptOf(state, ctx.history, { channel: options.channel, since, now: options.now() }));
  return result.ok ? (result.data as unknown as Transcript) : result;
}

function printTranscript(options: LogOptions, transcript: Transcript, since: number | null): void {
  if (options.json) {
    // One line, so a --follow reader can take it and each later line as JSON lines.
    options.write(`${terminalSafeJson({ channels: transcript.channels, messages: transcript.messages })}\n`);
    return;
  }
  options.write(`${since === null ? 'the whole history' : `since ${engine.formatIsoTime(since)}`}:\n`);
  for (const period of transcript.channels) options.write(`${periodLine(period)}\n`);
  if (transcript.channels.length === 0) options.write('No channels yet.\n');
  // Written message by message: the output never needs to be held whole.
  for (const message of transcript.messages) options.write(`\n${messageBlock(message)}`);
}

/** Resolves to the exit code: 0 printed (with --follow: ended by a signal), 1 refused or unreadable. */
export async function runLog(options: LogOptions): Promise<number> {
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  const since = sinceOf(options);
  try {
    const first = await readTranscript(store, options, since);
    if ('ok' in first) {
      options.warn(`opencomms log: ${printable(first.message, 600)} (reason: ${String(first.data?.reason)})`);
      return 1;
    }
    printTranscript(options, first, since);
    if (!options.follow) return 0;
    return await follow(store, options, since, first.messages);
  } catch (err) {
    options.warn(`opencomms log: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await store.close();
  }
}

/**
 * Prints each message that appears after the first print, and a line each
 * time a printed message's path moves on (delivered, answered), until a
 * signal. Only the last step of each message seen is remembered.
 */
function follow(store: Store, options: LogOptions, since: number | null, printed: readonly engine.TranscriptMessage[]): Promise<number> {
  const lastStep = new Map(printed.map((m) => [m.message_id, stepText(m.path[m.path.length - 1]!)] as const));
  return new Promise<number>((resolve) => {
    const keepAlive = setInterval(() => undefined, LOG_KEEP_ALIVE_MS);
    const load = (): Promise<unknown> => store.readLatest((state, ctx) => engine.transcriptOf(state, ctx.history, { channel: options.channel, since, now: options.now() }));
    const watcher = store.watch({ log: options.warn, load });
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
        const next = await readTranscript(store, options, since);
        if ('ok' in next) {
          options.warn(`opencomms log: ${printable(next.message, 600)} (reason: ${String(next.data?.reason)})`);
          return;
        }
        for (const m of next.messages) printChange(options, m, lastStep);
      }).catch((err: unknown) => options.warn(`opencomms log: cannot read the project (${err instanceof Error ? err.message : String(err)}); waiting for the next change`));
    };
    watcher.onChange(check);
    // After the watch is up, so a message sent during start-up is seen by one or the other.
    check();
  });
}

function printChange(options: LogOptions, m: engine.TranscriptMessage, lastStep: Map<string, string>): void {
  const step = m.path[m.path.length - 1]!;
  const text = stepText(step);
  const known = lastStep.get(m.message_id);
  if (known === text) return;
  lastStep.set(m.message_id, text);
  if (options.json) {
    options.write(`${terminalSafeJson(known === undefined ? { message: m } : { path: { channel: m.channel, message_id: m.message_id, path: m.path } })}\n`);
    return;
  }
  options.write(known === undefined ? `\n${messageBlock(m)}` : `  [${printable(m.channel, 64)}] ${printable(m.message_id, 80)}: ${text}\n`);
}
