// The board's history on the file store: history/board.jsonl, one JSON line
// per task that left the board (the whole task, its log included). Appended
// and fsynced under the state lock before the state without those tasks is
// saved, with the channel logs' rules: opened without following a link, 0600,
// one name only; a crash in between can repeat a task, never lose it
// (readers keep the last line of each id). Tasks leave slowly (one week after
// they close), so the file is never compacted; a lookup reads its newest part.
import { dirname, join } from 'node:path';
import { parseTaskRecord } from '../../engine/task-shape';
import type { Task } from '../../engine/task-types';
import { errnoOf, FsPort, writeAll } from '../../files/fs-port';
import { checkOwnDir, ensureOwnDir, openOwnFile } from '../../files/own-files';
import { fsyncDirectory } from '../../files/replace-file';

/** The file name under history/: no channel id can take it (those start `chn_`). */
export const BOARD_HISTORY_FILE = 'board.jsonl';
/** A read looks at most this much of the file's end: newer tasks are the ones asked about. */
const BOARD_READ_MAX_BYTES = 32 << 20;

export class BoardHistoryLog {
  readonly path: string;
  private readonly dir: string;

  constructor(private readonly port: FsPort, historyDir: string) {
    this.dir = historyDir;
    this.path = join(historyDir, BOARD_HISTORY_FILE);
  }

  /** Appends the tasks and fsyncs them (and the file's name when this made it), before the state drops them. */
  append(tasks: readonly Task[]): void {
    if (tasks.length === 0) return;
    ensureOwnDir(this.port, dirname(this.dir));
    const made = ensureOwnDir(this.port, this.dir);
    if (made !== undefined) fsyncDirectory(this.port, dirname(made));
    let text = '';
    for (const task of tasks) text += `${JSON.stringify(task)}\n`;
    const fd = openOwnFile(this.port, this.path, 'append');
    try {
      const { size } = this.port.fstatSync(fd);
      // A writer killed mid-line left a fragment: it stays one line that does not parse.
      if (size > 0 && !this.endsWithNewline(fd, size)) text = `\n${text}`;
      writeAll(this.port, fd, Buffer.from(text, 'utf8'), null);
      this.port.fsyncSync(fd);
      if (size === 0) fsyncDirectory(this.port, this.dir);
    } finally {
      this.port.closeSync(fd);
    }
  }

  /** The tasks in the file's last `maxBytes`, one per id (its last line), oldest line first; lines that are not a task are skipped. */
  list(maxBytes = BOARD_READ_MAX_BYTES): Task[] {
    const text = this.readTail(maxBytes);
    const byId = new Map<string, Task>();
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let task: Task | undefined;
      try {
        task = parseTaskRecord(JSON.parse(line));
      } catch {
        continue;
      }
      if (task === undefined) continue;
      byId.delete(task.id);
      byId.set(task.id, task);
    }
    return [...byId.values()];
  }

  find(id: string): Task | undefined {
    return this.list().find((t) => t.id === id);
  }

  private endsWithNewline(fd: number, size: number): boolean {
    const last = Buffer.alloc(1);
    return this.port.readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a;
  }

  // The whole lines of the file's last `maxBytes`, never through a link; '' when absent.
  private readTail(maxBytes: number): string {
    let fd: number;
    try {
      if (!checkOwnDir(this.port, dirname(this.dir), false) || !checkOwnDir(this.port, this.dir, false)) return '';
      fd = openOwnFile(this.port, this.path, 'read');
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') return '';
      throw err;
    }
    try {
      const { size } = this.port.fstatSync(fd);
      const from = Math.max(0, size - maxBytes);
      const bytes = Buffer.alloc(size - from);
      let got = 0;
      while (got < bytes.length) {
        const n = this.port.readSync(fd, bytes, got, bytes.length - got, from + got);
        if (n <= 0) break;
        got += n;
      }
      const text = bytes.toString('utf8', 0, got);
      return from === 0 ? text : text.slice(text.indexOf('\n') + 1);
    } finally {
      this.port.closeSync(fd);
    }
  }
}
