// Finished envelopes leave state.json for history/<channel_id>.jsonl, one JSON
// line each, so the hot file stays as small as the undelivered mail. Appends
// happen only under the state lock; readers are lock-free and cache per
// channel, reading only the tail a file grew by since their last look.
import { dirname, join } from 'node:path';
import { HISTORY_COMPACT_LINES, HISTORY_KEEP_RECORDS, isValidChannelId } from '../limits';
import type { HistoryRecord, HistoryView } from '../../engine/types';
import { errnoOf, FsPort, writeAll } from '../../files/fs-port';
import { checkOwnDir, ensureOwnDir, openOwnFile } from '../../files/own-files';
import { unwritable } from '../../files/faults';
import { fsyncDirectory, replaceFile } from '../../files/replace-file';
import { parseHistoryLine } from '../history-pager';

// Enough leading bytes to tell a rewritten file from the one we cached.
const PREFIX_CHECK_BYTES = 128;
const NEWLINE = 0x0a;
const COUNT_CHUNK_BYTES = 1 << 16;

// How many lines a channel log held when this process last appended to it or
// compacted it. A later append checks that the file is the same one (inode,
// not shorter, same first bytes) and counts only the lines added since, so a
// move costs O(appended bytes), not O(log size).
interface LineCount {
  ino: number;
  size: number;
  lines: number;
  prefix: Buffer;
}

interface ChannelCache {
  ino: number;
  size: number; // bytes consumed, always at a line boundary
  lines: number; // lines consumed, repeats and unparseable ones included
  prefix: Buffer;
  byId: Map<string, HistoryRecord>;
  sorted: HistoryRecord[] | undefined;
}

export interface HistoryLogOptions {
  port: FsPort;
  historyDir: string;
  keepRecords?: number;
  compactLines?: number;
}

/** The per-channel history files of one state directory, with an in-process cache. */
export class HistoryLog implements HistoryView {
  private readonly cache = new Map<string, ChannelCache>();
  private readonly counts = new Map<string, LineCount>();
  private readonly port: FsPort;
  private readonly dir: string;
  /** The folder holding `dir` (.opencomms/), checked along with it. */
  private readonly parentDir: string;
  private readonly keep: number;
  private readonly compactAt: number;

  constructor(options: HistoryLogOptions) {
    this.port = options.port;
    this.dir = options.historyDir;
    this.parentDir = dirname(options.historyDir);
    this.keep = options.keepRecords ?? HISTORY_KEEP_RECORDS;
    this.compactAt = Math.max(options.compactLines ?? HISTORY_COMPACT_LINES, this.keep);
  }

  /** The file of a channel; the id must already be valid. */
  pathOf(channelId: string): string {
    if (!isValidChannelId(channelId)) throw new Error(`invalid channel id: ${JSON.stringify(channelId)}`);
    return join(this.dir, `${channelId}.jsonl`);
  }

  find(channelId: string, messageId: string): HistoryRecord | undefined {
    if (!isValidChannelId(channelId)) return undefined;
    return this.sync(channelId)?.byId.get(messageId);
  }

  list(channelId: string): HistoryRecord[] {
    if (!isValidChannelId(channelId)) return [];
    const entry = this.sync(channelId);
    if (!entry) return [];
    entry.sorted ??= sortOldestFirst([...entry.byId.values()]);
    return entry.sorted.slice();
  }

  /**
   * Appends the records the engine took out of the state (takeFinished) to
   * their channel logs, fsynced, before the state without them is saved: a
   * crash in between can only repeat a record, never lose one.
   */
  appendFinished(byChannel: ReadonlyMap<string, HistoryRecord[]>): void {
    if (byChannel.size === 0) return;
    this.ensureDir();
    const lineCounts = new Map<string, number>();
    for (const [channelId, records] of byChannel) lineCounts.set(channelId, this.append(channelId, records));
    for (const [channelId, lines] of lineCounts) this.compactIfLong(channelId, lines);
  }

  /** Removes a channel's log and forgets its cache (for purges). Absent logs are fine. */
  drop(channelId: string): void {
    this.cache.delete(channelId);
    this.counts.delete(channelId);
    if (!isValidChannelId(channelId)) return;
    // Never unlink inside a folder that is a link out of the project.
    if (!checkOwnDir(this.port, this.parentDir, false) || !checkOwnDir(this.port, this.dir, false)) return;
    try {
      this.port.unlinkSync(this.pathOf(channelId));
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT') throw err;
    }
  }

  // Checked on every move, not once per process: the folders must still be
  // real folders of ours (fs-port), and a tree left wide is narrowed. A folder
  // made here is made durable in its parent before any record in it counts as
  // moved (the state that drops the envelopes is saved after).
  private ensureDir(): void {
    ensureOwnDir(this.port, this.parentDir);
    const created = ensureOwnDir(this.port, this.dir);
    if (created !== undefined) fsyncDirectory(this.port, dirname(created));
  }

  // The log opened for appending, never through a link; a history folder
  // removed under a running process (a reset of .opencomms) is made again
  // rather than failing every later delivery until a restart.
  private openForAppend(path: string): number {
    try {
      return openOwnFile(this.port, path, 'append');
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT') throw err;
      this.ensureDir();
      return openOwnFile(this.port, path, 'append');
    }
  }

  /** Appends and fsyncs the records; returns how many lines the log holds now. */
  private append(channelId: string, records: HistoryRecord[]): number {
    const path = this.pathOf(channelId);
    let text = '';
    for (const r of records) text += JSON.stringify(r) + '\n';
    // Until the append is fsynced the line count is unknown; a failure leaves none.
    const known = this.counts.get(channelId);
    this.counts.delete(channelId);
    const fd = this.openForAppend(path);
    try {
      const { ino, size } = this.port.fstatSync(fd);
      // A writer killed mid-line leaves a fragment without '\n'; start on a
      // fresh line so the fragment stays one unparseable (skipped) line.
      if (size > 0 && !endsWithNewline(this.port, fd, size)) text = '\n' + text;
      const bytes = Buffer.from(text, 'utf8');
      const before = linesBefore(this.port, fd, known, ino, size);
      writeAll(this.port, fd, bytes, null);
      this.port.fsyncSync(fd);
      // A log this append created needs its name made durable too, before
      // the state that drops these envelopes is saved.
      if (size === 0) fsyncDirectory(this.port, this.dir);
      const lines = before.lines + countNewlines(bytes, bytes.length);
      const prefix = size === 0 ? Buffer.from(bytes.subarray(0, PREFIX_CHECK_BYTES)) : before.prefix;
      this.counts.set(channelId, { ino, size: size + bytes.length, lines, prefix });
      return lines;
    } finally {
      this.port.closeSync(fd);
    }
  }

  private compactIfLong(channelId: string, lines: number): void {
    if (lines <= this.compactAt) return;
    const entry = this.sync(channelId);
    if (!entry) return;
    const kept = sortOldestFirst([...entry.byId.values()]).slice(-this.keep);
    let text = '';
    for (const r of kept) text += JSON.stringify(r) + '\n';
    const bytes = Buffer.from(text, 'utf8');
    const path = this.pathOf(channelId);
    this.counts.delete(channelId);
    replaceFile(this.port, path, bytes);
    this.cache.delete(channelId);
    // Still under the state lock, so no other writer can have touched the new
    // file; should the stat fail, the next append simply counts it again.
    try {
      const { ino, size } = this.port.statSync(path);
      if (size === bytes.length) {
        this.counts.set(channelId, { ino, size, lines: kept.length, prefix: Buffer.from(bytes.subarray(0, PREFIX_CHECK_BYTES)) });
      }
    } catch {
      // the compaction itself succeeded; only the cached count is lost
    }
  }

  // Brings the cache of one channel up to date with its file: nothing when
  // unchanged, the tail when it grew, everything when it was replaced. A log
  // that exists but cannot be read is `state_unwritable`, naming the file.
  private sync(channelId: string): ChannelCache | undefined {
    const path = this.pathOf(channelId);
    try {
      return this.syncFrom(channelId, path);
    } catch (err) {
      throw unwritable('read the history log', path, err);
    }
  }

  private syncFrom(channelId: string, path: string): ChannelCache | undefined {
    let fd: number | undefined;
    try {
      // Nothing is read through a link, in the folders or at the file.
      if (checkOwnDir(this.port, this.parentDir, false) && checkOwnDir(this.port, this.dir, false)) fd = openOwnFile(this.port, path, 'read');
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT') throw err;
    }
    if (fd === undefined) {
      this.cache.delete(channelId);
      return undefined;
    }
    try {
      const stat = this.port.fstatSync(fd);
      let entry = this.cache.get(channelId);
      if (entry && !isSameFile(this.port, fd, entry, stat.ino, stat.size)) entry = undefined;
      if (!entry) {
        entry = { ino: stat.ino, size: 0, lines: 0, prefix: Buffer.alloc(0), byId: new Map(), sorted: undefined };
        this.cache.set(channelId, entry);
      }
      if (stat.size > entry.size) readTail(this.port, fd, entry, stat.size, channelId);
      return entry;
    } finally {
      this.port.closeSync(fd);
    }
  }
}

// The line count of an open log of `size` bytes: the cached count plus the
// lines added since, when the cache still describes this file; a full count
// otherwise (the first append in this process, or a replaced or shrunk file).
function linesBefore(port: FsPort, fd: number, known: LineCount | undefined, ino: number, size: number): { lines: number; prefix: Buffer } {
  if (known && known.ino === ino && known.size <= size && hasPrefix(port, fd, known.prefix)) {
    return { lines: known.lines + countNewlinesIn(port, fd, known.size, size), prefix: known.prefix };
  }
  const prefix = Buffer.alloc(Math.min(PREFIX_CHECK_BYTES, size));
  const got = prefix.length === 0 ? 0 : port.readSync(fd, prefix, 0, prefix.length, 0);
  return { lines: countNewlinesIn(port, fd, 0, size), prefix: prefix.subarray(0, got) };
}

function hasPrefix(port: FsPort, fd: number, prefix: Buffer): boolean {
  if (prefix.length === 0) return true;
  const head = Buffer.alloc(prefix.length);
  return port.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(prefix);
}

/** Newlines in bytes [from, to) of an open file. */
function countNewlinesIn(port: FsPort, fd: number, from: number, to: number): number {
  if (to <= from) return 0;
  const chunk = Buffer.allocUnsafe(Math.min(COUNT_CHUNK_BYTES, to - from));
  let count = 0;
  for (let pos = from; pos < to; ) {
    const n = port.readSync(fd, chunk, 0, Math.min(chunk.length, to - pos), pos);
    if (n <= 0) break;
    count += countNewlines(chunk, n);
    pos += n;
  }
  return count;
}

/** Newlines in the first `length` bytes of `bytes`. */
function countNewlines(bytes: Buffer, length: number): number {
  const view = bytes.subarray(0, length);
  let count = 0;
  for (let i = view.indexOf(NEWLINE); i >= 0; i = view.indexOf(NEWLINE, i + 1)) count++;
  return count;
}

function endsWithNewline(port: FsPort, fd: number, size: number): boolean {
  const last = Buffer.alloc(1);
  // opened 'a+': appends go to the end, but a positional read still sees the last byte
  return port.readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === NEWLINE;
}

function isSameFile(port: FsPort, fd: number, entry: ChannelCache, ino: number, size: number): boolean {
  if (ino !== entry.ino || size < entry.size) return false;
  if (entry.prefix.length === 0) return true;
  const head = Buffer.alloc(entry.prefix.length);
  return port.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(entry.prefix);
}

function readTail(port: FsPort, fd: number, entry: ChannelCache, size: number, channelId: string): void {
  const tail = Buffer.alloc(size - entry.size);
  let got = 0;
  while (got < tail.length) {
    const n = port.readSync(fd, tail, got, tail.length - got, entry.size + got);
    if (n <= 0) break;
    got += n;
  }
  // Only whole lines count; a line still being appended is read next time.
  const end = tail.lastIndexOf(NEWLINE, got - 1);
  if (end < 0) return;
  if (entry.size === 0) entry.prefix = Buffer.from(tail.subarray(0, Math.min(PREFIX_CHECK_BYTES, end + 1)));
  let start = 0;
  while (start <= end) {
    const stop = tail.indexOf(NEWLINE, start);
    const record = parseHistoryLine(tail.toString('utf8', start, stop), channelId);
    entry.lines++;
    if (record) {
      entry.byId.delete(record.message_id); // last record wins, at its latest position
      entry.byId.set(record.message_id, record);
    }
    start = stop + 1;
  }
  entry.size += end + 1;
  entry.sorted = undefined;
}

// Own keys only, so a hand-edited message id such as "constructor" finds no Object.prototype member.
function sortOldestFirst(records: HistoryRecord[]): HistoryRecord[] {
  // Array.prototype.sort is stable, so equal timestamps keep file order.
  return records.sort((a, b) => a.timestamp - b.timestamp);
}
