// What a saved session's archive must hold to be read back, whichever store keeps it.
import type { SessionArchive } from '../engine/archive-types';

export type ArchiveRecord = SessionArchive;

/** The archive `text` holds when it is a valid archive of `channelId`; undefined for anything else (skipped like a broken archive). */
export function archiveOfText(text: string, channelId: string): ArchiveRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isArchiveRecord(value) && value.channel_id === channelId ? value : undefined;
}

/** Whether `value` has what listing and lookup rely on (schema 1, ids, members, messages, saved_at). */
export function isArchiveRecord(value: unknown): value is ArchiveRecord {
  const a = value as Partial<ArchiveRecord> | null;
  return !!a && typeof a === 'object' && a.schema === 1 && typeof a.channel_id === 'string' && typeof a.name === 'string' &&
    Array.isArray(a.members) && Array.isArray(a.messages) && typeof a.saved_at === 'number' && Number.isFinite(a.saved_at);
}
