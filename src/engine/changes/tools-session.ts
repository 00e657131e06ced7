// The session tools' changes: save a channel as an archive, resume an
// archive as a new channel, delete a live channel or an archive. The caller
// fetches an archive before the change (archives may live on a server) and
// passes it in; the archive's file is written or deleted with the commit (tx).
import type { SessionArchive } from '../archive-types';
import type { ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { parseArchive } from '../archives';
import { authorizeMember } from '../identity';
import { findChannel } from '../validate';
import { buildSessionArchive, commitSessionSave, deleteSession, resumeSession } from '../sessions';
import { asCaller, memberChange, type MemberArgs } from './member-change';
import { malformed } from './args';

/** What `session_save` answers: the archive it wrote, to drop the channel's history log by. */
export type SessionSaveResult = ToolResult & { data?: Record<string, unknown> & { archive_id?: string } };

export interface SessionSaveArgs extends MemberArgs {
  channel: string;
  summary?: string | null;
}

const session_save: ChangeFn<SessionSaveArgs, SessionSaveResult> = memberChange('save', 'in_channel', { channel: 'text', summary: 'text?' },
  (state, a, ctx, tx): SessionSaveResult => {
    const built = buildSessionArchive(state, asCaller(a), ctx);
    if (!built.ok) return built;
    const archive = built.data?.archive as SessionArchive;
    // Part of the same change: saved before (files) or with (Redis) the live channel's removal.
    tx.putArchive(archive);
    commitSessionSave(state, archive.channel_id);
    return { ok: true, message: built.message, data: { archive_id: archive.channel_id, name: archive.name, message_count: archive.message_count } };
  });

export interface SessionResumeArgs extends MemberArgs {
  archive: SessionArchive;
  new_name?: string | null;
  project_id: string;
  worktree: string;
}

const session_resume: ChangeFn<SessionResumeArgs> = memberChange('resume', 'anywhere', {
  archive: 'object', new_name: 'text?', project_id: 'text', worktree: 'text',
}, (state, a, ctx): ToolResult => {
  const archive = parseArchive(a.archive);
  if (archive === undefined) return malformed('resume');
  return resumeSession(state, { archive, session_id: a.member, new_name: a.new_name, project_id: a.project_id, worktree: a.worktree }, ctx);
});

/** What `session_delete` answers: `phase` live with the channel's id (its history log goes next), or archive. */
export type SessionDeleteResult = ToolResult & { data?: Record<string, unknown> & { phase?: string; channel_id?: string } };

export interface SessionDeleteArgs extends MemberArgs {
  channel: string;
  confirm: boolean;
  /** The archive the name or id refers to, as the caller found it; null when none. */
  archive: SessionArchive | null;
}

const session_delete: ChangeFn<SessionDeleteArgs, SessionDeleteResult> = memberChange('delete', 'anywhere', {
  channel: 'text', confirm: 'bool?', archive: 'object?',
}, (state, a, ctx, tx): SessionDeleteResult => {
  const isLiveChannel = findChannel(state, a.channel) !== undefined;
  // A live channel is deleted only by a live (not stale) member of it, like every other protected call.
  if (isLiveChannel) {
    const auth = authorizeMember(state, a.member, a.channel);
    if (!auth.ok) return auth;
  }
  const given = isLiveChannel ? null : a.archive ?? null;
  const archive = given === null ? undefined : parseArchive(given);
  if (given !== null && archive === undefined) return malformed('delete');
  const outcome = deleteSession(state, { channel: a.channel, session_id: a.member, confirm: a.confirm, archive }, ctx);
  if (!outcome.ok || outcome.data?.phase !== 'archive') return outcome;
  tx.deleteArchive(String(outcome.data.archive_id));
  return { ...outcome, message: `Deleted the archive of "${String(outcome.data.name)}".` };
});

export const sessionToolChanges = { session_save, session_resume, session_delete };
