// This process's copy of the per-channel history streams, kept in step with
// the live state it was loaded with (PROTOCOL.md "Redis store"). The engine
// reads history synchronously; an operation that asks for a channel not
// loaded yet gets HistoryNotLoaded thrown through it, the store loads that
// channel together with a fresh state, and runs the operation again.
import { parseHistoryLine } from '../history-pager';
import type { HistoryRecord, HistoryView } from '../../engine/types';
import { isValidChannelId } from '../limits';

/** Thrown through an engine operation that consults a channel whose history is not loaded; never escapes the store. */
export class HistoryNotLoaded extends Error {
  constructor(readonly channelId: string) {
    super(`history of ${channelId} is not loaded`);
    this.name = 'HistoryNotLoaded';
  }
}

interface ChannelHistory {
  /** The stream id of the newest entry read, or '0-0' before the first. */
  lastId: string;
  /** Records by message id; the last record of an id wins, at its latest position. */
  byId: Map<string, HistoryRecord>;
  sorted: HistoryRecord[] | undefined;
}

/** One stream entry as XRANGE returns it: its id and its field/value list. */
export interface StreamEntry {
  id: string;
  fields: string[];
}

/** The field of a stream entry that holds the record's JSON. */
export const RECORD_FIELD = 'r';

export class HistoryCache {
  private readonly channels = new Map<string, ChannelHistory>();
  /** The history epoch (bumped by every drop) the loaded channels belong to. */
  private epoch = '';

  constructor(private readonly keep: number) {}

  /** Channels loaded, with the id to continue each from. */
  tracked(): { channelId: string; lastId: string }[] {
    return [...this.channels].map(([channelId, entry]) => ({ channelId, lastId: entry.lastId }));
  }

  /** The id to continue a tracked channel from, or undefined. */
  lastIdOf(channelId: string): string | undefined {
    return this.channels.get(channelId)?.lastId;
  }

  isTracked(channelId: string): boolean {
    return this.channels.has(channelId);
  }

  /** A drop happened since the channels were loaded: everything is read again from scratch. */
  checkEpoch(epoch: string): void {
    if (epoch === this.epoch) return;
    this.epoch = epoch;
    this.channels.clear();
  }

  /** Starts tracking a channel (its entries come with the next load). */
  track(channelId: string): void {
    if (!this.channels.has(channelId)) this.channels.set(channelId, { lastId: '0-0', byId: new Map(), sorted: undefined });
  }

  forget(channelId: string): void {
    this.channels.delete(channelId);
  }

  /** Adds entries read after `lastId`, oldest first; the cache keeps the newest `keep`, as the stream does. */
  apply(channelId: string, entries: readonly StreamEntry[]): void {
    const entry = this.channels.get(channelId);
    if (!entry || entries.length === 0) return;
    for (const { id, fields } of entries) {
      entry.lastId = id;
      const record = recordOfFields(fields, channelId);
      if (!record) continue;
      entry.byId.delete(record.message_id);
      entry.byId.set(record.message_id, record);
    }
    for (const key of entry.byId.keys()) {
      if (entry.byId.size <= this.keep) break;
      entry.byId.delete(key);
    }
    entry.sorted = undefined;
  }

  /**
   * A HistoryView over the cache. Strict (inside an operation the store
   * runs): an untracked channel throws HistoryNotLoaded. Lenient (a caller
   * outside the store): an untracked channel reads as empty and is tracked
   * from the next load on.
   */
  view(isStrict: () => boolean): HistoryView {
    const lookup = (channelId: string): ChannelHistory | undefined => {
      if (!isValidChannelId(channelId)) return undefined;
      const entry = this.channels.get(channelId);
      if (entry) return entry;
      if (isStrict()) throw new HistoryNotLoaded(channelId);
      this.track(channelId);
      return undefined;
    };
    return {
      find: (channelId, messageId) => lookup(channelId)?.byId.get(messageId),
      list: (channelId) => {
        const entry = lookup(channelId);
        if (!entry) return [];
        // Oldest first by timestamp; Array.prototype.sort is stable, so ties keep stream order.
        entry.sorted ??= [...entry.byId.values()].sort((a, b) => a.timestamp - b.timestamp);
        return entry.sorted.slice();
      },
    };
  }
}

/** The record a stream entry's fields carry, when it is a whole envelope of `channelId` (as a file log's line is read). */
export function recordOfFields(fields: readonly string[], channelId: string): HistoryRecord | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === RECORD_FIELD) return parseHistoryLine(fields[i + 1]!, channelId);
  return undefined;
}
