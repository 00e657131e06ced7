// The tools that keep a conversation past its channel: save it as an
// archive, resume an archive as a new channel, delete either, read archives.
import * as engine from '../engine';
import { MAX_ARCHIVE_SUMMARY_CHARS } from '../engine';
import {
  CHANNEL_ARG, defineTool, DESTRUCTIVE_TOOL, MAX_ID_CHARS, READ_TOOL, toolRefusal, WRITE_TOOL, type CallerTool,
} from './define-tool';
import { objectSchema } from './schema';
import type { ToolServices } from './services';

const MAX_ARCHIVE_LIMIT = 500;
/** An archive is named by its channel's name or by its id, which is longer than a channel name may be. */
const ARCHIVE_REF_ARG = { type: 'string', maxLength: MAX_ID_CHARS } as const;

export function sessionTools(s: ToolServices): Record<'save' | 'resume' | 'delete' | 'archive', CallerTool> {
  return {
    save: defineTool({
      name: 'opencomms_save_session',
      title: 'Save session',
      description: 'Archive a channel (roster, summary, messages) and close it. Resume it later with opencomms_resume_session.',
      inputSchema: objectSchema({ channel: CHANNEL_ARG, summary: { type: 'string', maxLength: MAX_ARCHIVE_SUMMARY_CHARS } }, ['channel']),
      annotations: WRITE_TOOL,
      handler: async (a, caller) => {
        // The archive is written in the same change that closes the channel (engine change `session_save`).
        const result = await s.identities.changeAsMember(caller, 'session_save', { channel: a.channel, summary: a.summary });
        if (result.ok && typeof result.data?.archive_id === 'string') await s.store.dropHistory(result.data.archive_id);
        return result;
      },
    }),
    resume: defineTool({
      name: 'opencomms_resume_session',
      title: 'Resume session',
      description: 'Reopen an archived session (by name or archive id) as a new channel; archived members then join it.',
      inputSchema: objectSchema({ channel: ARCHIVE_REF_ARG, new_name: CHANNEL_ARG }, ['channel']),
      annotations: WRITE_TOOL,
      handler: async (a, caller) => {
        const pinned = s.identities.pin(caller);
        if ('refusal' in pinned) return pinned.refusal;
        const archive = await s.findArchive(a.channel);
        if (!archive) return toolRefusal('not_found', `No archived session named or with id "${a.channel}". List yours with opencomms_archive.`);
        return s.identities.changeAsMember(caller, 'session_resume', { archive, new_name: a.new_name, project_id: s.projectId, worktree: s.worktree });
      },
    }),
    delete: defineTool({
      name: 'opencomms_delete_session',
      title: 'Delete session',
      description: 'Delete a live channel you are in, or an archive you are in, for good. Needs confirm=true.',
      inputSchema: objectSchema({ channel: ARCHIVE_REF_ARG, confirm: { type: 'boolean' } }, ['channel', 'confirm']),
      annotations: DESTRUCTIVE_TOOL,
      handler: async (a, caller) => {
        // Fetched before the change (archives may live on a server); the change decides whether it applies.
        const found = await s.findArchive(a.channel);
        const result = await s.identities.changeAsMember(caller, 'session_delete', { channel: a.channel, confirm: a.confirm, archive: found ?? null });
        if (result.ok && result.data?.phase === 'live') await s.store.dropHistory(String(result.data.channel_id));
        return result;
      },
    }),
    archive: defineTool({
      name: 'opencomms_archive',
      title: 'Archived sessions',
      description: 'Archives you were part of: mode list (default), or summary / messages of one (channel = name or archive id).',
      inputSchema: objectSchema({
        channel: ARCHIVE_REF_ARG,
        mode: { type: 'string', enum: ['list', 'summary', 'messages'] },
        limit: { type: 'integer', minimum: 1, maximum: MAX_ARCHIVE_LIMIT },
      }),
      annotations: READ_TOOL,
      handler: async (a, caller) => {
        const pinned = s.identities.pin(caller);
        if ('refusal' in pinned) return pinned.refusal;
        const mode = a.mode ?? (a.channel ? 'summary' : 'list');
        if (mode === 'list') {
          const archives = (await s.archivesOf(pinned.memberId)).slice(0, a.limit ?? 50);
          return {
            ok: true,
            message: archives.length === 0 ? 'No archived sessions include you.' : `${archives.length} archived session(s).`,
            data: { archives: archives.map(engine.archiveListEntry) },
          };
        }
        if (typeof a.channel !== 'string') return toolRefusal('invalid_argument', `mode "${mode}" needs channel (an archive name or id).`);
        const archive = await s.findArchive(a.channel);
        if (!archive) return toolRefusal('not_found', `No archived session named or with id "${a.channel}".`);
        return s.store.readLatest((_state, ctx) => engine.viewArchive(archive, { session_id: pinned.memberId, mode, limit: a.limit }, ctx));
      },
    }),
  };
}
