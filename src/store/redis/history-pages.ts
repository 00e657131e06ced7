// The Redis store's paging read of its history streams (history-pager.ts):
// XRANGE a page at a time, by entry id, on a connection of its own.
import type { HistoryRecord } from '../../engine/types';
import { isValidChannelId } from '../limits';
import { HISTORY_PAGE_RECORDS, type HistoryPager, type HistorySpot, type PagedRecord } from '../history-pager';
import type { RedisClient } from './client';
import { recordOfFields } from './history-cache';
import { streamEntries } from './replies';

/** The pager of the streams `keyOf` names, through `client` (closed with the pager). */
export function streamHistoryPager(client: RedisClient, keyOf: (channelId: string) => string): HistoryPager {
  return new StreamPager(client, keyOf);
}

class StreamPager implements HistoryPager {
  /** The id of the last entry handed out, per channel. */
  private readonly lastIds = new Map<string, string>();

  constructor(private readonly client: RedisClient, private readonly keyOf: (channelId: string) => string) {}

  async next(channelId: string, max = HISTORY_PAGE_RECORDS): Promise<PagedRecord[]> {
    if (!isValidChannelId(channelId)) return [];
    const out: PagedRecord[] = [];
    // A page of foreign entries only is read past: [] means the end, as for a file.
    for (let isFull = true; out.length === 0 && isFull;) {
      const lastId = this.lastIds.get(channelId);
      const from = lastId === undefined ? '-' : `(${lastId}`;
      const entries = streamEntries(this.client.check(await this.client.command(['XRANGE', this.keyOf(channelId), from, '+', 'COUNT', max]), 'XRANGE'));
      for (const { id, fields } of entries) {
        this.lastIds.set(channelId, id);
        const record = recordOfFields(fields, channelId);
        if (record) out.push({ record, spot: { entry: id } });
      }
      isFull = entries.length === max;
    }
    return out;
  }

  async fetch(channelId: string, spots: readonly HistorySpot[]): Promise<(HistoryRecord | undefined)[]> {
    const ids = spots.map((spot) => ('entry' in spot ? spot.entry : undefined));
    const asked = ids.filter((id): id is string => id !== undefined);
    if (asked.length === 0) return ids.map(() => undefined);
    const key = this.keyOf(channelId);
    const replies = await this.client.pipeline(asked.map((id) => ['XRANGE', key, id, id]));
    const byId = new Map<string, HistoryRecord | undefined>();
    asked.forEach((id, i) => byId.set(id, recordOfFields(streamEntries(this.client.check(replies[i]!, 'XRANGE'))[0]?.fields ?? [], channelId)));
    return ids.map((id) => (id === undefined ? undefined : byId.get(id)));
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
