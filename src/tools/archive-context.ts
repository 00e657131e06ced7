// Archive look-ups shared by the MCP tools (catalog.ts) and the OpenCode
// plugin's tools, which must not pull the MCP tool table into their bundle.
import * as engine from '../engine';
import type { SessionArchive, ToolResult } from '../engine';
import { isValidChannelId, type ArchiveShelf } from '../store';

/** An archive by channel name (newest first) or by archive id, from a store's shelf (which may be on a server); undefined when none matches. */
export async function findArchiveIn(shelf: ArchiveShelf, nameOrId: string): Promise<SessionArchive | undefined> {
  const key = nameOrId.trim();
  const lower = key.toLowerCase();
  const record = (await shelf.list()).find((a) => a.name === lower) ?? (isValidChannelId(key) ? await shelf.get(key) : undefined);
  return record ? engine.parseArchive(record) : undefined;
}

/** An archive by its id alone (a parent link): one read, not a listing of every archive. */
export async function archiveByIdIn(shelf: ArchiveShelf, id: string): Promise<SessionArchive | undefined> {
  const record = isValidChannelId(id) ? await shelf.get(id) : undefined;
  return record ? engine.parseArchive(record) : undefined;
}

/** A join's result, with the compact story of the archived channel when the joined one was resumed from it. */
export async function withArchiveContextIn(shelf: ArchiveShelf, result: ToolResult, channelName: string): Promise<ToolResult> {
  const parent = result.ok ? result.data?.parent_channel_id : undefined;
  if (typeof parent !== 'string') return result;
  const archive = await archiveByIdIn(shelf, parent);
  if (!archive) return result;
  const context = engine.buildArchiveContext(archive, channelName);
  return { ...result, message: `${result.message}\n\n${context}`, data: { ...result.data, archive_context: context } };
}

/**
 * The messages of a channel's saved ancestry (the archive it was resumed
 * from, that archive's own parent and so on), oldest first, for search. At most
 * ten generations are followed.
 */
export async function archivedMessagesIn(shelf: ArchiveShelf, parentId: string | null): Promise<engine.HistoryRecord[]> {
  const chain: SessionArchive[] = [];
  const seen = new Set<string>();
  for (let id = parentId; id !== null && !seen.has(id) && chain.length < 10;) {
    seen.add(id);
    const archive = await archiveByIdIn(shelf, id);
    if (!archive) break;
    chain.unshift(archive);
    id = archive.parent_channel_id;
  }
  return chain.flatMap((archive) => archive.messages);
}
