// A paging read of the channel histories, for readers that go through a
// whole history once (the transcript, `opencomms log`) and must not hold it
// whole: each call hands back the next page of one channel's records, in the
// order they were written, each with a spot to read it again by. A file log
// is read a chunk at a time through one descriptor kept open (a compaction
// that replaces the file leaves the old one readable until close); a Redis
// stream is read with XRANGE, a page at a time, by entry id. Lock-free and
// read-only, like every other history reader.
import { dirname, join } from 'node:path';
import { parseHistoryRecord } from '../engine/state-shape';
import type { HistoryRecord } from '../engine/types';
import { errnoOf, NODE_FS, type FsPort } from '../files/fs-port';
import { isValidChannelId } from './limits';
import { checkOwnDir, openOwnFile } from '../files/own-files';
import { unwritable } from '../files/faults';
import type { StoreSelection } from './redis/config';
import { RECORD_FIELD } from './redis/history-cache';
import { clientFor, keysOf } from './redis/keys';
import { streamEntries } from './redis/replies';
import type { RedisClient } from './redis/client';

/** Records per page unless the caller asks for another size. */
export const HISTORY_PAGE_RECORDS = 500;
/** Bytes a file page reads at a time; a longer line grows the read to fit it. */
export const HISTORY_PAGE_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

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

/** The pager of the store `selection` names: the project's history files, or its Redis streams. */
export function openHistoryPager(options: { stateDir: string; selection?: StoreSelection; port?: FsPort }): HistoryPager {
  if (options.selection?.kind === 'redis') {
    const { config } = options.selection;
    return new StreamPager(clientFor(config), keysOf(config.keyPrefix).history);
  }
  return new FilePager(options.port ?? NODE_FS, join(options.stateDir, 'history'));
}

function parseLine(text: string, channelId: string): HistoryRecord | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // As every history reader does: anything but a whole envelope of this channel is skipped.
  const record = parseHistoryRecord(value);
  return record && record.channel_id === channelId ? record : undefined;
}

interface FileCursor {
  /** The generation of the open descriptor (a counter of this pager). */
  file: number;
  fd: number;
  ino: number;
  /** Bytes handed out, always at a line boundary. */
  offset: number;
}

class FilePager implements HistoryPager {
  private readonly cursors = new Map<string, FileCursor>();
  /** Every descriptor opened, by generation, kept open until close so old spots still read. */
  private readonly fds = new Map<number, number>();
  private generations = 0;

  constructor(private readonly port: FsPort, private readonly dir: string) {}

  async next(channelId: string, max = HISTORY_PAGE_RECORDS): Promise<PagedRecord[]> {
    if (!isValidChannelId(channelId)) return [];
    const path = join(this.dir, `${channelId}.jsonl`);
    try {
      const cursor = this.cursorOf(channelId, path);
      return cursor === undefined ? [] : this.page(channelId, cursor, max);
    } catch (err) {
      throw unwritable('read the history log', path, err);
    }
  }

  async fetch(channelId: string, spots: readonly HistorySpot[]): Promise<(HistoryRecord | undefined)[]> {
    return spots.map((spot) => {
      if (!('file' in spot)) return undefined;
      const fd = this.fds.get(spot.file);
      if (fd === undefined) return undefined;
      const bytes = Buffer.alloc(spot.length);
      return readFully(this.port, fd, bytes, spot.offset) === spot.length ? parseLine(bytes.toString('utf8'), channelId) : undefined;
    });
  }

  async close(): Promise<void> {
    for (const fd of this.fds.values()) this.port.closeSync(fd);
    this.fds.clear();
    this.cursors.clear();
  }

  // The open log of a channel: the one opened before while the name still
  // points at it, else the file now at the name (new, or a compaction's).
  private cursorOf(channelId: string, path: string): FileCursor | undefined {
    const known = this.cursors.get(channelId);
    let ino: number | undefined;
    try {
      ino = this.port.statSync(path).ino;
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT') throw err;
    }
    if (known && (ino === undefined || ino === known.ino)) return known;
    if (ino === undefined) return undefined;
    // Nothing is read through a link, in the folders or at the file.
    if (!checkOwnDir(this.port, dirname(this.dir), false) || !checkOwnDir(this.port, this.dir, false)) return undefined;
    let fd: number;
    try {
      fd = openOwnFile(this.port, path, 'read');
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') return undefined;
      throw err;
    }
    const file = ++this.generations;
    this.fds.set(file, fd);
    const cursor = { file, fd, ino: this.port.fstatSync(fd).ino, offset: 0 };
    this.cursors.set(channelId, cursor);
    return cursor;
  }

  // Up to `max` whole lines from the cursor; a line still being appended (no
  // newline yet) is left for a later call.
  private page(channelId: string, cursor: FileCursor, max: number): PagedRecord[] {
    const out: PagedRecord[] = [];
    const size = this.port.fstatSync(cursor.fd).size;
    let chunk = Buffer.alloc(Math.min(HISTORY_PAGE_BYTES, Math.max(0, size - cursor.offset)));
    while (out.length < max && cursor.offset < size) {
      const got = readFully(this.port, cursor.fd, chunk, cursor.offset);
      const end = chunk.subarray(0, got).lastIndexOf(NEWLINE);
      if (end < 0) {
        // One line longer than the chunk: read it whole, or stop at a partial last line.
        if (cursor.offset + got >= size) break;
        chunk = Buffer.alloc(Math.min(chunk.length * 2, size - cursor.offset));
        continue;
      }
      let start = 0;
      while (start <= end && out.length < max) {
        const stop = chunk.indexOf(NEWLINE, start);
        const record = parseLine(chunk.toString('utf8', start, stop), channelId);
        if (record) out.push({ record, spot: { file: cursor.file, offset: cursor.offset + start, length: stop - start } });
        start = stop + 1;
      }
      cursor.offset += start;
    }
    return out;
  }
}

function readFully(port: FsPort, fd: number, into: Buffer, position: number): number {
  let got = 0;
  while (got < into.length) {
    const n = port.readSync(fd, into, got, into.length - got, position + got);
    if (n <= 0) break;
    got += n;
  }
  return got;
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

function recordOfFields(fields: readonly string[], channelId: string): HistoryRecord | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === RECORD_FIELD) return parseLine(fields[i + 1]!, channelId);
  return undefined;
}
