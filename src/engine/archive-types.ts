// A saved session's record, as archives/<channel_id>.json holds it.
import type { Budgets, HistoryRecord, Member } from './types';

/**
 * A saved session as written to archives/<channel_id>.json (our addition).
 * The engine builds it (buildSessionArchive) and reads it back for resume,
 * delete and the joiner's context; the store only stores it.
 */
export interface SessionArchive {
  schema: 1;
  channel_id: string;
  name: string;
  parent_channel_id: string | null;
  description: string | null;
  summary: string | null;
  members: Member[];
  budgets: Budgets;
  created_at: number;
  saved_at: number;
  saved_by: string | null;
  saved_by_role: string | null;
  message_count: number;
  final_state_note: string | null;
  /** Oldest first, at most the newest MAX_ARCHIVED_MESSAGES. */
  messages: HistoryRecord[];
}

/**
 * What a change may do besides editing the state, in the same commit: save
 * or delete a session's archive. The store decides how (the file store under
 * its lock before the state is saved; the Redis store in its commit script).
 */
export interface ChangeTx {
  putArchive(archive: SessionArchive): void;
  deleteArchive(channelId: string): void;
}
