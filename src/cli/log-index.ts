// What `opencomms log` keeps of a project's messages while it prints them:
// per message only what orders, counts, answers and finds it again (ids,
// times, who sent it to whom, where its record sits), never its text. The
// texts are read back a page at a time when printed (HistoryPager.fetch), so
// a history of any length is printed in memory that grows with the number of
// messages by a few hundred bytes each, not with what they say. Live mail
// (state.messages, bounded by the queues) is kept whole.
import * as engine from '../engine';
import type { HistoryPager } from '../store';

/** Where a finished message's record sits, as the pager hands it out and reads it back by. */
type HistorySpot = Parameters<HistoryPager['fetch']>[1][number];

/** Messages printed (their records held) at a time. */
export const LOG_PRINT_PAGE = 100;

interface Answer {
  message_id: string;
  timestamp: number;
}

/** One message as the log knows it. */
export interface LogEntry {
  channel: engine.Channel;
  /** The channel's place in the list (by name), which breaks ties of time. */
  rank: number;
  id: string;
  seq: number | undefined;
  at: number;
  sender: string;
  recipient: string;
  replyTo: string | null;
  /** Where its finished record sits in history; undefined while it is live mail, whose record is kept. */
  spot?: HistorySpot;
  record?: engine.HistoryRecord;
  isProblem: boolean;
  answer?: Answer;
  /** The last path step printed for it, once printed. */
  shown?: string;
}

/** Time first, then the channel's place, then send order within the channel (compareSendOrder). */
export function compareEntries(a: LogEntry, b: LogEntry): number {
  if (a.at !== b.at) return a.at - b.at;
  if (a.rank !== b.rank) return a.rank - b.rank;
  const bySend = a.seq !== undefined && b.seq !== undefined ? a.seq - b.seq : 0;
  if (bySend !== 0) return bySend;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const NO_HISTORY: engine.HistoryView = { find: () => undefined, list: () => [] };

export class LogIndex {
  private readonly byChannel = new Map<string, Map<string, LogEntry>>();
  private readonly ranks = new Map<string, number>();
  /** Replies whose message is not known yet, by the key of that message. */
  private readonly orphans = new Map<string, LogEntry[]>();

  constructor(private readonly pager: HistoryPager, private readonly input: engine.TranscriptInput) {}

  /**
   * Takes in what changed: the live mail of `state`, then every history
   * record written since the last call (read after the state, so a message
   * that finished in between is found in one or the other). Returns the
   * entries that are new or whose path may have moved: their records are
   * read again when printed (messagesOf), never held here.
   */
  async update(state: engine.State, channels: readonly engine.Channel[]): Promise<Set<LogEntry>> {
    const touched = new Set<LogEntry>();
    const added: LogEntry[] = [];
    for (const channel of channels) {
      if (!this.ranks.has(channel.id)) this.ranks.set(channel.id, this.ranks.size);
      for (const record of engine.channelEnvelopes(state, channel.id, NO_HISTORY)) {
        const known = this.entriesOf(channel.id).get(record.message_id);
        // A message already read from history is finished: a stale copy in the state changes nothing.
        if (known?.spot !== undefined) continue;
        touched.add(this.put(channel, record, undefined, added));
      }
    }
    for (const channel of channels) {
      for (let page = await this.pager.next(channel.id); page.length > 0; page = await this.pager.next(channel.id)) {
        for (const { record, spot } of page) {
          touched.add(this.put(channel, record, spot, added));
        }
      }
    }
    for (const entry of added) for (const parent of this.answer(entry)) touched.add(parent);
    return touched;
  }

  /** The entries of the period, in print order. */
  inPeriod(): LogEntry[] {
    const all: LogEntry[] = [];
    for (const entries of this.byChannel.values()) for (const e of entries.values()) if (this.isInPeriod(e)) all.push(e);
    return all.sort(compareEntries);
  }

  isInPeriod(entry: LogEntry): boolean {
    return this.input.since === null || entry.at >= this.input.since;
  }

  /** A channel's counts for its period line. */
  countsOf(channelId: string): engine.PeriodCounts {
    const counts = { messages: 0, failures: 0 };
    for (const e of this.entriesOf(channelId).values()) {
      if (!this.isInPeriod(e)) continue;
      counts.messages++;
      if (e.isProblem) counts.failures++;
    }
    return counts;
  }

  /**
   * The transcript messages of `entries`, in their order, reading back the
   * records of finished ones by their spots. A record gone since it was
   * indexed (a trimmed stream) is left out.
   */
  async messagesOf(entries: readonly LogEntry[]): Promise<{ entry: LogEntry; message: engine.TranscriptMessage }[]> {
    const records = new Map<LogEntry, engine.HistoryRecord | undefined>();
    const wanted = new Map<string, LogEntry[]>();
    for (const e of entries) {
      const record = e.record;
      if (record !== undefined || e.spot === undefined) records.set(e, record);
      else wanted.set(e.channel.id, [...(wanted.get(e.channel.id) ?? []), e]);
    }
    for (const [channelId, list] of wanted) {
      const got = await this.pager.fetch(channelId, list.map((e) => e.spot!));
      list.forEach((e, i) => records.set(e, got[i]));
    }
    const out: { entry: LogEntry; message: engine.TranscriptMessage }[] = [];
    for (const e of entries) {
      const record = records.get(e);
      if (record) out.push({ entry: e, message: engine.transcriptMessageOf(e.channel, record, e.answer) });
    }
    return out;
  }

  private entriesOf(channelId: string): Map<string, LogEntry> {
    let entries = this.byChannel.get(channelId);
    if (!entries) {
      entries = new Map();
      this.byChannel.set(channelId, entries);
    }
    return entries;
  }

  // One message in, the last copy winning (as every history reader has it);
  // a message met for the first time goes on `added`.
  private put(channel: engine.Channel, record: engine.HistoryRecord, spot: HistorySpot | undefined, added: LogEntry[]): LogEntry {
    const entries = this.entriesOf(channel.id);
    const known = entries.get(record.message_id);
    const isProblem = engine.isProblemPath(engine.messagePath(record));
    if (known) {
      known.channel = channel;
      known.spot = spot;
      known.record = spot === undefined ? record : undefined;
      known.isProblem = isProblem;
      return known;
    }
    const entry: LogEntry = {
      channel, rank: this.ranks.get(channel.id) ?? 0, id: record.message_id, seq: record.seq, at: record.timestamp,
      sender: record.sender_session_id, recipient: record.recipient_session_id, replyTo: record.reply_to,
      ...(spot === undefined ? { record } : { spot }), isProblem,
    };
    entries.set(record.message_id, entry);
    added.push(entry);
    return entry;
  }

  // The rule of firstAnswers: a message is answered by the earliest reply its
  // recipient sent to it. Returns the messages whose answer this entry became.
  private answer(entry: LogEntry): LogEntry[] {
    const answered: LogEntry[] = [];
    const waiting = this.orphans.get(`${entry.channel.id}/${entry.id}`);
    if (waiting) {
      this.orphans.delete(`${entry.channel.id}/${entry.id}`);
      for (const reply of waiting) if (this.isAnswerTo(entry, reply)) answered.push(entry);
    }
    if (entry.replyTo === null) return answered;
    const parent = this.entriesOf(entry.channel.id).get(entry.replyTo);
    if (!parent) {
      const key = `${entry.channel.id}/${entry.replyTo}`;
      this.orphans.set(key, [...(this.orphans.get(key) ?? []), entry]);
    } else if (this.isAnswerTo(parent, entry)) answered.push(parent);
    return answered;
  }

  private isAnswerTo(parent: LogEntry, reply: LogEntry): boolean {
    if (parent.recipient !== reply.sender) return false;
    if (parent.answer && parent.answer.timestamp <= reply.at) return false;
    parent.answer = { message_id: reply.id, timestamp: reply.at };
    return true;
  }
}
