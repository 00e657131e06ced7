// Saved sessions on Redis: one hash, read as it is now; written only by
// commits (the commit script), so an archive appears exactly when the state
// change that saved it does.
import { archiveOfText, type ArchiveRecord } from '../archives';
import type { ArchiveShelf } from '../contract';
import { isValidChannelId } from '../history';
import type { RedisClient } from './client';
import type { RedisKeys } from './keys';
import { textOf } from './replies';

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
