// The file store's paging read of its history logs (history-pager.ts): a
// chunk at a time through one descriptor kept open, so a compaction that
// replaces the file leaves the old one readable until close.
import { dirname, join } from 'node:path';
import type { HistoryRecord } from '../../engine/types';
import { errnoOf, type FsPort } from '../../files/fs-port';
import { checkOwnDir, openOwnFile } from '../../files/own-files';
import { unwritable } from '../../files/faults';
import { isValidChannelId } from '../limits';
import { HISTORY_PAGE_BYTES, HISTORY_PAGE_RECORDS, parseHistoryLine, type HistoryPager, type HistorySpot, type PagedRecord } from '../history-pager';

const LINE_FEED = 0x0a;

/** The pager of the logs in `historyDir`. */
export function fileHistoryPager(port: FsPort, historyDir: string): HistoryPager {
  return new FilePager(port, historyDir);
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
      return readFully(this.port, fd, bytes, spot.offset) === spot.length ? parseHistoryLine(bytes.toString('utf8'), channelId) : undefined;
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
      const end = chunk.subarray(0, got).lastIndexOf(LINE_FEED);
      if (end < 0) {
        // One line longer than the chunk: read it whole, or stop at a partial last line.
        if (cursor.offset + got >= size) break;
        chunk = Buffer.alloc(Math.min(chunk.length * 2, size - cursor.offset));
        continue;
      }
      let start = 0;
      while (start <= end && out.length < max) {
        const stop = chunk.indexOf(LINE_FEED, start);
        const record = parseHistoryLine(chunk.toString('utf8', start, stop), channelId);
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

