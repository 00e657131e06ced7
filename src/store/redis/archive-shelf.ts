// Saved sessions on Redis: one hash, read as it is now; written only by
// commits (the commit script), so an archive appears exactly when the state
// change that saved it does. The board's history (tasks that left it) is a
// stream written the same way, read here newest first.
import { parseTaskRecord } from '../../engine/task-shape';
import type { Task } from '../../engine/task-types';
import { type ArchiveRecord } from '../archive-shape';
import { archiveOfText } from '../archive-shape';
import type { ArchiveShelf, BoardHistoryShelf } from '../contract';
import { isValidChannelId } from '../limits';
import type { RedisClient } from './client';
import type { RedisKeys } from './keys';
import { textOf } from './replies';

/** A lookup in the board's history reads at most this many of its newest entries. */
const BOARD_SCAN_ENTRIES = 5_000;
const BOARD_SCAN_PAGE = 500;

export function redisArchiveShelf(client: RedisClient, keys: RedisKeys): ArchiveShelf {
  return {
    async list(): Promise<ArchiveRecord[]> {
      const reply = client.check(await client.command(['HGETALL', keys.archives]), 'HGETALL');
      const fields = Array.isArray(reply) ? reply : [];
      const found: ArchiveRecord[] = [];
      for (let i = 0; i + 1 < fields.length; i += 2) {
        const [id, text] = [textOf(fields[i]!), textOf(fields[i + 1]!)];
        const record = id === null || text === null ? undefined : archiveOfText(text, id);
        if (record) found.push(record);
      }
      return found.sort((a, b) => b.saved_at - a.saved_at);
    },
    async get(channelId: string): Promise<ArchiveRecord | undefined> {
      if (!isValidChannelId(channelId)) return undefined;
      const text = textOf(client.check(await client.command(['HGET', keys.archives, channelId]), 'HGET'));
      return text === null ? undefined : archiveOfText(text, channelId);
    },
  };
}

export function redisBoardShelf(client: RedisClient, keys: RedisKeys): BoardHistoryShelf {
  return {
    where: `${client.where} ${keys.board}`,
    async find(id: string): Promise<Task | undefined> {
      let before = '+';
      for (let seen = 0; seen < BOARD_SCAN_ENTRIES; seen += BOARD_SCAN_PAGE) {
        const page = client.check(await client.command(['XREVRANGE', keys.board, before, '-', 'COUNT', BOARD_SCAN_PAGE]), 'XREVRANGE');
        if (!Array.isArray(page) || page.length === 0) return undefined;
        for (const entry of page) {
          if (!Array.isArray(entry) || entry.length !== 2 || !Array.isArray(entry[1])) continue;
          before = `(${textOf(entry[0]!) ?? ''}`;
          const fields = entry[1];
          const text = fields.length === 2 && textOf(fields[0]!) === 'r' ? textOf(fields[1]!) : null;
          const task = text === null ? undefined : parseTaskText(text);
          if (task?.id === id) return task;
        }
        if (page.length < BOARD_SCAN_PAGE) return undefined;
      }
      return undefined;
    },
  };
}

function parseTaskText(text: string): Task | undefined {
  try {
    return parseTaskRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}
