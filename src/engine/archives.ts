// Reading saved sessions for the archive tool: checking a record read from
// disk, and showing it only to members of its archived roster.
import { MAX_ARCHIVED_MESSAGES } from './constants';
import { frameMessage, peerLine, UNTRUSTED_NOTICE } from './framing';
import { refuse, succeed } from './reasons';
import { checkMember } from './member-shape';
import { isObj, ShapeError } from './shape-checks';
import { checkHistoryRecord } from './state-shape';
import { clampToDateRange, isDateTime } from './times';
import type { SessionArchive } from './archive-types';
import type { EngineCtx, ToolResult } from './types';

/** A checked archive record, or undefined when the value is not one. */
export function parseArchive(value: unknown): SessionArchive | undefined {
  if (!isObj(value) || value.schema !== 1 || typeof value.channel_id !== 'string' || typeof value.name !== 'string'
    || !Array.isArray(value.members) || !Array.isArray(value.messages)
    || typeof value.saved_at !== 'number' || !Number.isFinite(value.saved_at)) return undefined;
  try {
    const notes: string[] = [];
    const members = value.members.map((m, i) => checkMember(m, `members[${i}]`, notes, true));
    const messages = value.messages.map((raw, i) => checkHistoryRecord(raw, `messages[${i}]`, notes));
    const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
    const budgets = isObj(value.budgets) ? value.budgets : {};
    // A hand-edited time past what a Date holds is pulled back into range: the
    // archive stays readable and sortable, and printing it cannot throw.
    const savedAt = clampToDateRange(value.saved_at);
    return {
      schema: 1,
      channel_id: value.channel_id,
      name: value.name,
      parent_channel_id: text(value.parent_channel_id),
      description: text(value.description),
      summary: text(value.summary),
      members,
      budgets: {
        max_runtime_ms: typeof budgets.max_runtime_ms === 'number' ? budgets.max_runtime_ms : null,
        max_delivered_messages: typeof budgets.max_delivered_messages === 'number' ? budgets.max_delivered_messages : null,
      },
      created_at: isDateTime(value.created_at) ? value.created_at : savedAt,
      saved_at: savedAt,
      saved_by: text(value.saved_by),
      saved_by_role: text(value.saved_by_role),
      message_count: num(value.message_count, messages.length),
      final_state_note: text(value.final_state_note),
      messages: messages.slice(-MAX_ARCHIVED_MESSAGES),
    };
  } catch (err) {
    if (err instanceof ShapeError) return undefined;
    throw err;
  }
}

/** One line per archive for mode=list: no content, so any member of the project may see it. */
export function archiveListEntry(archive: SessionArchive): Record<string, unknown> {
  return {
    archive_id: archive.channel_id,
    name: archive.name,
    saved_at: archive.saved_at,
    message_count: archive.message_count,
    roles: archive.members.map((m) => m.role),
  };
}

export interface ArchiveViewInput {
  session_id: string;
  mode: 'summary' | 'messages';
  limit?: number | null;
}

/** The summary or the framed messages (newest first) of an archive, for members of its roster only. */
export function viewArchive(archive: SessionArchive, input: ArchiveViewInput, ctx: EngineCtx): ToolResult {
  if (!archive.members.some((m) => m.session_id === input.session_id)) {
    return refuse('not_archived_member', `Only archived members of "${archive.name}" may read it.`);
  }
  if (input.mode === 'summary') {
    return succeed(`Archive of "${archive.name}".`, {
      ...archiveListEntry(archive),
      // Peer-written, each shown as one neutral line.
      description: archive.description === null ? null : peerLine(archive.description),
      summary: archive.summary === null ? null : peerLine(archive.summary),
      members: archive.members.map((m) => ({ session_id: m.session_id, role: m.role, host: m.host })),
      saved_by_role: archive.saved_by_role,
    });
  }
  const raw = input.limit;
  const limit = typeof raw === 'number' && Number.isFinite(raw) ? Math.min(500, Math.max(1, Math.floor(raw))) : 50;
  const newest = [...archive.messages].reverse().slice(0, limit);
  return succeed(`${newest.length} message(s) from the archive of "${archive.name}".`, {
    messages: newest.map((e) => ({
      message_id: e.message_id,
      sender_role: e.sender_role,
      recipient_role: e.recipient_role,
      message_type: e.message_type,
      timestamp: e.timestamp,
      reply_to: e.reply_to,
      framed: frameMessage(e, archive.name, ctx.nonce()),
    })),
    untrusted_notice: UNTRUSTED_NOTICE,
  });
}
