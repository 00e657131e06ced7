// A paging read of the channel histories, for readers that go through a
// whole history once (the transcript, `opencomms log`) and must not hold it
// whole: each call hands back the next page of one channel's records, in the
// order they were written, each with a spot to read it again by. Each store
// pages its own histories (Store.pageHistory): the file store its logs, a
// chunk at a time; the Redis store its streams, with XRANGE. Lock-free and
// read-only, like every other history reader.
import { parseHistoryRecord } from '../engine/state-shape';
import type { HistoryRecord } from '../engine/types';

/** Records per page unless the caller asks for another size. */
export const HISTORY_PAGE_RECORDS = 500;
/** Bytes a file page reads at a time; a longer line grows the read to fit it. */
export const HISTORY_PAGE_BYTES = 256 * 1024;

/** Where a record sits, to read it again: a byte range of one generation of a log file, or a stream entry. */
export type HistorySpot = { file: number; offset: number; length: number } | { entry: string };

export interface PagedRecord {
  record: HistoryRecord;
  spot: HistorySpot;
}

/** The histories of one project, read a page at a time. */
export interface HistoryPager {
  /**
   * The next records of a channel after those already handed out, in
   * written order; [] when there are none yet (a later call sees what was
   * appended since). A log replaced by a compaction is read again from its
   * start: the caller meets records it had already, and keeps one of each.
   */
  next(channelId: string, max?: number): Promise<PagedRecord[]>;
  /** Reads records again by their spots; undefined for one that is gone (a stream trimmed since). */
  fetch(channelId: string, spots: readonly HistorySpot[]): Promise<(HistoryRecord | undefined)[]>;
  close(): Promise<void>;
}

/** A history line's record when it is a whole envelope of `channelId`; undefined for anything else (skipped, as every history reader does). */
export function parseHistoryLine(text: string, channelId: string): HistoryRecord | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = parseHistoryRecord(value);
  return record && record.channel_id === channelId ? record : undefined;
}

