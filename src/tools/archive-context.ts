// Archive look-ups shared by the MCP tools (catalog.ts) and the OpenCode
// plugin's tools, which must not pull the MCP tool table into their bundle.
import * as engine from '../engine';
import type { SessionArchive, ToolResult } from '../engine';
import { findArchiveByName, isValidChannelId, readArchive } from '../store';

/** An archive of `projectDir` by channel name (newest first) or by archive id; undefined when none matches. */
export function findArchive(projectDir: string, nameOrId: string): SessionArchive | undefined {
  const key = nameOrId.trim();
  const record = findArchiveByName(projectDir, key.toLowerCase())
    ?? (isValidChannelId(key) ? readArchive(projectDir, key) : undefined);
  return record ? engine.parseArchive(record) : undefined;
}

/** A join's result, with the compact story of the archived channel when the joined one was resumed from it. */
export function withArchiveContext(projectDir: string, result: ToolResult, channelName: string): ToolResult {
  const parent = result.ok ? result.data?.parent_channel_id : undefined;
  if (typeof parent !== 'string') return result;
  const archive = findArchive(projectDir, parent);
  if (!archive) return result;
  const context = engine.buildArchiveContext(archive, channelName);
  return { ...result, message: `${result.message}\n\n${context}`, data: { ...result.data, archive_context: context } };
}
