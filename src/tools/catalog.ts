// The 19 tools, in the fixed tools/list order of INTERFACE.md. Descriptions
// are short on purpose: the whole list is read into the model's context.
import * as engine from '../engine';
import {
  MAX_CHANNEL_NAME_CHARS, MAX_CONTENT_CHARS, MAX_PAGE_LIMIT, MAX_ROLE_CHARS, MAX_ARCHIVE_SUMMARY_CHARS,
  SENDER_MESSAGE_TYPES, TIMER_ACTIONS, type ToolResult,
} from '../engine';
import { isSpawnHost, SPAWN_HOSTS } from '../delivery/spawn-command';
import { withArchiveContextIn } from './archive-context';
import { realPatterns } from './reserve-paths';
import { CHANNEL_SETTING_PROPERTIES, channelSettingsOf } from './channel-settings';
import { DIRECT_CALL, type ToolAnnotations, type ToolCall, type ToolDescriptor } from './registry';
import type { PropertySchema } from './schema';
import type { PullHandover, ToolServices } from './services';

const MAX_ARCHIVE_LIMIT = 500;
const MAX_ID_CHARS = 80;

const channel: PropertySchema = { type: 'string', maxLength: MAX_CHANNEL_NAME_CHARS };
const role: PropertySchema = { type: 'string', maxLength: MAX_ROLE_CHARS };
const rolePrompt: PropertySchema = { type: 'string', description: 'Your standing instructions in this channel' };
const limit: PropertySchema = { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT };
const memberRef: PropertySchema = { type: 'string', maxLength: MAX_ID_CHARS, description: 'Member session id or role' };
const spawnPush: PropertySchema = { type: 'boolean', description: 'Deliver by resuming your session (hosts claude-code, codex only)' };
const hostSessionId: PropertySchema = { type: 'string', maxLength: 200, description: 'Your host session id, for spawn_push' };

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const IDEMPOTENT: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, openWorldHint: false };

type Args = Record<string, any>;

function schema(properties: Record<string, PropertySchema>, required: string[] = []) {
  return { type: 'object' as const, properties, required, additionalProperties: false as const };
}

export function buildTools(s: ToolServices): ToolDescriptor[] {
  // A host that embeds the tools says how its members are reached (the
  // OpenCode plugin pushes into the calling session); a server's members pull
  // or are resumed by spawn-push.
  const memberFields = (a: Args, memberId: string, call: ToolCall): engine.MemberOptions & { session_id: string; project_id: string; worktree: string } => ({
    session_id: memberId,
    project_id: s.projectId,
    worktree: s.worktree,
    ...(s.options.embedding?.membership(call) ?? {
      host: s.options.host,
      surface: 'mcp' as const,
      delivery_mode: a.spawn_push === true ? ('spawn_push' as const) : ('pull' as const),
      // The session the host names wins; an argument fills in only where the
      // host names none, and is recorded as such (it serves spawn-push, never a hook).
      ...hostSessionOf(a, call),
      // Spawn-push resumes the host session where it runs: only this machine can.
      ...(a.spawn_push === true ? { machine: s.machine } : {}),
      stale_policy: a.spawn_push === true ? { mode: 'window' as const, window_ms: 300_000 } : { mode: 'none' as const, window_ms: null },
    }),
  });

  const hostSessionOf = (a: Args, call: ToolCall): Pick<engine.MemberOptions, 'host_session_id' | 'host_session_source'> => {
    const named = s.hostSessionOf(call);
    if (named !== undefined) return { host_session_id: named, host_session_source: 'host' };
    return typeof a.host_session_id === 'string' && a.host_session_id.trim() !== ''
      ? { host_session_id: a.host_session_id, host_session_source: 'argument' }
      : { host_session_id: null };
  };

  // host_session_id may only repeat the session the host names: any caller
  // can type any id there, and a different one would steer another session's
  // spawn-push resume at this member's mail.
  const hostSessionRefusal = (a: Args, call: ToolCall): engine.ToolResult | undefined => {
    if (typeof a.host_session_id !== 'string') return undefined;
    const named = s.options.embedding ? s.options.embedding.membership(call).host_session_id ?? undefined : s.hostSessionOf(call);
    if (named === undefined || named === a.host_session_id) return undefined;
    return {
      ok: false,
      message: `host_session_id "${a.host_session_id.slice(0, 80)}" is not the session your host named for this call; `
        + 'leave host_session_id out: OpenComms takes the session from the host.',
      data: { reason: 'host_session_mismatch', argument: 'host_session_id' },
    };
  };

  // spawn_push asks to be woken by resuming the host session from the
  // command line; only some hosts can be. Elsewhere nothing could ever push
  // the mail, and a spawn_push member's mail ages out after 5 minutes.
  const spawnPushRefusal = (a: Args): engine.ToolResult | undefined => {
    if (a.spawn_push !== true || isSpawnHost(s.options.host)) return undefined;
    return {
      ok: false,
      message: `spawn_push needs a host that can be resumed from the command line (${Object.keys(SPAWN_HOSTS).join(' or ')}); ` +
        `this server runs as host "${s.options.host}". Leave spawn_push out and read mail with opencomms_pull.`,
      data: { reason: 'invalid_argument', argument: 'spawn_push' },
    };
  };

  const tools: CallerTool[] = [
    {
      name: 'opencomms_create',
      title: 'Create channel',
      description: 'Create a channel and become its first member (its coordinator). Use once per conversation; others join it.',
      inputSchema: schema(
        {
          channel, role, role_prompt: rolePrompt,
          ...CHANNEL_SETTING_PROPERTIES,
          spawn_push: spawnPush, host_session_id: hostSessionId,
        },
        ['channel', 'role', 'role_prompt'],
      ),
      annotations: WRITE,
      handler: async (a: Args, call: ToolCall) =>
        spawnPushRefusal(a) ?? hostSessionRefusal(a, call) ?? s.asMember(call, (state, me, ctx) =>
          engine.createChannel(state, {
            channel: a.channel, role: a.role, role_prompt: a.role_prompt, ...memberFields(a, me, call),
            ...channelSettingsOf(a),
          }, ctx)),
    },
    {
      name: 'opencomms_join',
      title: 'Join channel',
      description: 'Join an existing channel under a role. If it fails, stop and report; never create or replace a channel instead.',
      inputSchema: schema({ channel, role, role_prompt: rolePrompt, spawn_push: spawnPush, host_session_id: hostSessionId }, ['channel', 'role', 'role_prompt']),
      annotations: WRITE,
      handler: async (a: Args, call: ToolCall) => {
        const refusal = spawnPushRefusal(a) ?? hostSessionRefusal(a, call);
        if (refusal) return refusal;
        const result = await s.asMember(call, (state, me, ctx) =>
          engine.joinChannel(state, { channel: a.channel, role: a.role, role_prompt: a.role_prompt, ...memberFields(a, me, call) }, ctx));
        return withArchiveContextIn(s.store.archives, result, engine.normalizeChannelName(a.channel));
      },
    },
    {
      name: 'opencomms_send',
      title: 'Send message',
      description: 'Send a message. With 3+ members name the recipient with `to` (session id or role) or set broadcast.',
      inputSchema: schema(
        {
          channel,
          content: { type: 'string', maxLength: MAX_CONTENT_CHARS },
          // No enum here: a string of the wrong value (notably the reserved
          // `system`) is the engine's to refuse, with invalid_message_type.
          type: { type: 'string', maxLength: MAX_ID_CHARS, description: `${SENDER_MESSAGE_TYPES.join(', ')} (default manual)` },
          reply_to: { type: 'string', maxLength: MAX_ID_CHARS, description: 'message_id this answers' },
          to: memberRef,
          broadcast: { type: 'boolean' },
          session_description: { type: 'string', description: 'One line on what this channel is for (kept once)' },
        },
        ['channel', 'content'],
      ),
      annotations: WRITE,
      handler: async (a: Args, call: ToolCall) => {
        const result = await s.asMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () =>
            engine.sendMessage(state, {
              channel: a.channel, session_id: me, content: a.content, type: a.type, reply_to: a.reply_to,
              to: a.to, broadcast: a.broadcast === true, session_description: a.session_description,
            }, ctx)));
        // Spawn-push recipients get their mail now; the driver ignores anyone who is not spawn_push.
        if (result.ok && Array.isArray(result.data?.recipients)) s.spawnDriver?.trigger(result.data.recipients as string[]);
        return result;
      },
    },
    {
      name: 'opencomms_inbox',
      title: 'Preview inbox',
      description: 'Preview your pending mail in a channel without consuming it. Use opencomms_pull to receive it.',
      inputSchema: schema({ channel, limit }, ['channel']),
      annotations: READ,
      handler: (a: Args, call: ToolCall) =>
        s.readAsMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () => engine.inbox(state, { channel: a.channel, session_id: me, limit: a.limit }, ctx))),
    },
    {
      name: 'opencomms_pull',
      title: 'Receive messages',
      description: 'Receive your pending messages (all channels, or one). Each is framed as untrusted peer data.',
      inputSchema: schema({ channel, limit }),
      annotations: WRITE,
      // The mail goes in flight to this process in one locked change and is
      // committed in a second one, only once the reply carrying it was
      // written; a reply that is cancelled or unwritten gives it back (7.1).
      handler: async (a: Args, call: ToolCall) => {
        let handover: PullHandover | undefined;
        const result = await s.asMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () => {
            const owner = s.deliveryOwner(ctx.now());
            const pulled = engine.pullMessages(state, me, { channel: a.channel, limit: a.limit, owner, isOwnerAlive: s.isOwnerAlive }, ctx);
            const ids = pulled.ok ? (pulled.data?.message_ids as string[]) : [];
            // Asked now, while the mail is still what the doorbell rang for.
            if (ids.length > 0) handover = { memberId: me, owner, ids, rungIds: ids.filter((id) => s.isAnnounced(id)) };
            return pulled;
          }));
        if (handover) s.settleAfterReply(call, handover);
        return result;
      },
    },
    {
      name: 'opencomms_status',
      title: 'Status',
      description: 'Show your channels, members, pending counts and recent errors. Start here when unsure.',
      inputSchema: schema({ channel }),
      annotations: READ,
      handler: (a: Args, call: ToolCall) => {
        const pinned = s.pin(call);
        if ('refusal' in pinned) return pinned.refusal;
        return s.store.readLatest((state, ctx) => {
          const result = engine.status(state, { channel: a.channel, session_id: pinned.memberId }, ctx);
          return result.ok ? { ...result, data: { member_id: pinned.memberId, ...result.data } } : result;
        });
      },
    },
    {
      name: 'opencomms_history',
      title: 'Channel history',
      description: 'A channel\'s messages, newest first; query (all words) or thread narrows. Page with `before`.',
      inputSchema: schema({
        channel, limit, before: { type: 'string', maxLength: MAX_ID_CHARS },
        query: { type: 'string', maxLength: 200 }, thread: { type: 'string', maxLength: MAX_ID_CHARS },
      }, ['channel']),
      annotations: READ,
      handler: async (a: Args, call: ToolCall) => {
        const isSearch = (typeof a.query === 'string' && a.query.trim() !== '') || (typeof a.thread === 'string' && a.thread.trim() !== '');
        // A search also reads the saved ancestry of the channel (archives may live on a server, so they are fetched first).
        const parentId = isSearch ? await s.store.readLatest((state) => engine.findChannel(state, a.channel)?.parent_channel_id ?? null) : null;
        const archived = parentId === null ? [] : await s.archivedMessagesOf(parentId);
        return s.readAsMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () =>
            engine.history(state, {
              channel: a.channel, session_id: me, limit: a.limit, before: a.before, query: a.query, thread: a.thread, archived,
            }, ctx)));
      },
    },
    channelOnlyTool(s, 'opencomms_pause', 'Pause channel', 'Pause a channel: sends are refused and nothing is delivered until resumed.', IDEMPOTENT, engine.pauseChannel),
    channelOnlyTool(s, 'opencomms_resume', 'Resume channel', 'Resume a paused channel.', IDEMPOTENT, engine.resumeChannel),
    {
      ...channelOnlyTool(s, 'opencomms_disconnect', 'Leave channel', 'Leave a channel. Your pending mail in it is dropped; other channels are untouched.', DESTRUCTIVE, engine.disconnectChannel),
      handler: async (a: Args, call: ToolCall) => {
        const result = await s.asMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () => engine.disconnectChannel(state, { channel: a.channel, session_id: me }, ctx)));
        // The last member left and the channel went with them: its history log goes too.
        if (result.ok && result.data?.channel_removed === true) await s.store.dropHistory(String(result.data.channel_id));
        return result;
      },
    },
    {
      name: 'opencomms_update_role',
      title: 'Update role prompt',
      description: 'Replace your own role prompt in a channel.',
      inputSchema: schema({ channel, role_prompt: rolePrompt }, ['channel', 'role_prompt']),
      annotations: IDEMPOTENT,
      handler: (a: Args, call: ToolCall) =>
        s.asMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () =>
            engine.updateRole(state, { channel: a.channel, session_id: me, role_prompt: a.role_prompt }, ctx))),
    },
    {
      name: 'opencomms_kick',
      title: 'Remove member',
      description: 'Coordinator only (the first member): remove another member by session id or role.',
      inputSchema: schema({ channel, target_session_id: { type: 'string', maxLength: MAX_ID_CHARS }, target_role: role }, ['channel']),
      annotations: DESTRUCTIVE,
      handler: (a: Args, call: ToolCall) =>
        s.asMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () =>
            engine.kickChannel(state, {
              channel: a.channel, session_id: me, target_session_id: a.target_session_id, target_role: a.target_role,
            }, ctx))),
    },
    {
      name: 'opencomms_timer',
      title: 'Chess clock',
      description: 'A per-channel chess clock: start, stop, switch (to a member), reset, status, set_limit, clear_limit. Advisory only.',
      inputSchema: schema(
        { channel, action: { type: 'string', enum: TIMER_ACTIONS }, limit_ms: { type: 'integer', minimum: 1 }, to: memberRef },
        ['channel', 'action'],
      ),
      annotations: WRITE,
      handler: (a: Args, call: ToolCall) =>
        s.asMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () =>
            engine.timerAction(state, { channel: a.channel, session_id: me, action: a.action, limit_ms: a.limit_ms, to: a.to }, ctx))),
    },
    {
      name: 'opencomms_save_session',
      title: 'Save session',
      description: 'Archive a channel (roster, summary, messages) and close it. Resume it later with opencomms_resume_session.',
      inputSchema: schema({ channel, summary: { type: 'string', maxLength: MAX_ARCHIVE_SUMMARY_CHARS } }, ['channel']),
      annotations: WRITE,
      handler: (a: Args, call: ToolCall) => saveSession(s, a, call),
    },
    {
      name: 'opencomms_resume_session',
      title: 'Resume session',
      description: 'Reopen an archived session (by name or archive id) as a new channel; archived members then join it.',
      inputSchema: schema({ channel: { type: 'string', maxLength: MAX_ID_CHARS }, new_name: channel }, ['channel']),
      annotations: WRITE,
      handler: async (a: Args, call: ToolCall) => {
        const pinned = s.pin(call);
        if ('refusal' in pinned) return pinned.refusal;
        const archive = await s.findArchive(a.channel);
        if (!archive) return refusal('not_found', `No archived session named or with id "${a.channel}". List yours with opencomms_archive.`);
        return s.asMember(call, (state, me, ctx) =>
          engine.resumeSession(state, {
            archive, session_id: me, new_name: a.new_name, project_id: s.projectId, worktree: s.worktree,
          }, ctx));
      },
    },
    {
      name: 'opencomms_delete_session',
      title: 'Delete session',
      description: 'Delete a live channel you are in, or an archive you are in, for good. Needs confirm=true.',
      inputSchema: schema({ channel: { type: 'string', maxLength: MAX_ID_CHARS }, confirm: { type: 'boolean' } }, ['channel', 'confirm']),
      annotations: DESTRUCTIVE,
      handler: (a: Args, call: ToolCall) => deleteSession(s, a, call),
    },
    {
      name: 'opencomms_archive',
      title: 'Archived sessions',
      description: 'Archives you were part of: mode list (default), or summary / messages of one (channel = name or archive id).',
      inputSchema: schema({
        channel: { type: 'string', maxLength: MAX_ID_CHARS },
        mode: { type: 'string', enum: ['list', 'summary', 'messages'] },
        limit: { type: 'integer', minimum: 1, maximum: MAX_ARCHIVE_LIMIT },
      }),
      annotations: READ,
      handler: (a: Args, call: ToolCall) => readArchive(s, a, call),
    },
    {
      name: 'opencomms_reserve',
      title: 'Reserve files',
      description: 'Reserve files or globs before editing them; others\' edits are blocked until you release or it expires.',
      inputSchema: schema({
        channel,
        paths: { type: 'array', items: { type: 'string', maxLength: 512 }, minItems: 1, maxItems: 100, description: 'e.g. src/a.ts, src/**/*.ts' },
        exclusive: { type: 'boolean', description: 'Default true; false: others edit with a warning' },
        reason: { type: 'string', maxLength: 200 },
        ttl_minutes: { type: 'integer', minimum: 1, maximum: 1440, description: 'Default 60' },
      }, ['channel', 'paths']),
      annotations: WRITE,
      handler: (a: Args, call: ToolCall) => {
        const real = realPatterns(a.paths, s.options.projectDir);
        return s.asMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () =>
            engine.reservePaths(state, {
              channel: a.channel, session_id: me, paths: real.paths, exclusive: a.exclusive, reason: a.reason, ttl_minutes: a.ttl_minutes,
              project_dir: real.projectDir,
            }, ctx)));
      },
    },
    {
      name: 'opencomms_release',
      title: 'Release files',
      description: 'Give back your reservations: the paths named, or all.',
      inputSchema: schema({
        channel,
        paths: { type: 'array', items: { type: 'string', maxLength: 512 }, maxItems: 100 },
      }, ['channel']),
      annotations: IDEMPOTENT,
      handler: (a: Args, call: ToolCall) => {
        const real = Array.isArray(a.paths) ? realPatterns(a.paths, s.options.projectDir) : undefined;
        return s.asMember(call, (state, me, ctx) =>
          s.authorized(state, me, a.channel, () =>
            engine.releasePaths(state, { channel: a.channel, session_id: me, paths: real?.paths ?? a.paths, project_dir: real?.projectDir ?? s.options.projectDir }, ctx)));
      },
    },
  ];
  // A call waits for the pulls whose replies went out before it to commit (or
  // give back) their mail, so what it reads or changes is as the host saw it.
  // Each call first finds who is calling (its host session's member, found
  // once and then kept), so every handler acts for the member of its own call.
  return tools.map((tool) => ({
    ...tool,
    handler: async (a: Args, call: ToolCall = DIRECT_CALL) => {
      await s.whenPullsSettled();
      await s.identify(call);
      return tool.handler(a, call);
    },
  }));
}

/** A tool as written here: its handler always gets the call, which carries who is calling. */
type CallerTool = Omit<ToolDescriptor, 'handler'> & {
  handler: (args: Args, call: ToolCall) => Promise<ToolResult> | ToolResult;
};

function refusal(reason: string, message: string): ToolResult {
  return { ok: false, message, data: { reason } };
}

function channelOnlyTool(
  s: ToolServices,
  name: string,
  title: string,
  description: string,
  annotations: ToolAnnotations,
  op: (state: engine.State, input: engine.ChannelCall, ctx: engine.EngineCtx) => ToolResult,
): CallerTool {
  return {
    name, title, description, annotations,
    inputSchema: schema({ channel }, ['channel']),
    handler: (a: Args, call: ToolCall) =>
      s.asMember(call, (state, me, ctx) => s.authorized(state, me, a.channel, () => op(state, { channel: a.channel, session_id: me }, ctx))),
  };
}

async function saveSession(s: ToolServices, a: Args, call: ToolCall): Promise<ToolResult> {
  let savedId: string | undefined;
  const result = await s.asMember(call, (state, me, ctx, tx) =>
    s.authorized(state, me, a.channel, () => {
      const built = engine.buildSessionArchive(state, { channel: a.channel, session_id: me, summary: a.summary }, ctx);
      if (!built.ok) return built;
      const archive = built.data?.archive as engine.SessionArchive;
      // Part of the same change: saved before (files) or with (Redis) the live channel's removal.
      tx.putArchive(archive);
      engine.commitSessionSave(state, archive.channel_id);
      savedId = archive.channel_id;
      return { ok: true, message: built.message, data: { archive_id: archive.channel_id, name: archive.name, message_count: archive.message_count } };
    }));
  if (savedId) await s.store.dropHistory(savedId);
  return result;
}

async function deleteSession(s: ToolServices, a: Args, call: ToolCall): Promise<ToolResult> {
  let droppedLive: string | undefined;
  // Fetched before the change (archives may live on a server); the change decides whether it applies.
  const found = await s.findArchive(a.channel);
  const result = await s.asMember(call, (state, me, ctx, tx) => {
    const isLive = engine.findChannel(state, a.channel) !== undefined;
    const archive = isLive ? undefined : found;
    const remove = (): ToolResult => {
      const outcome = engine.deleteSession(state, { channel: a.channel, session_id: me, confirm: a.confirm, archive }, ctx);
      if (!outcome.ok) return outcome;
      if (outcome.data?.phase !== 'archive') {
        droppedLive = String(outcome.data?.channel_id);
        return outcome;
      }
      tx.deleteArchive(String(outcome.data.archive_id));
      return { ...outcome, message: `Deleted the archive of "${String(outcome.data.name)}".` };
    };
    // A live channel is deleted only by a live (not stale) member of it, like every other protected call.
    return isLive ? s.authorized(state, me, a.channel, remove) : remove();
  });
  if (droppedLive) await s.store.dropHistory(droppedLive);
  return result;
}

async function readArchive(s: ToolServices, a: Args, call: ToolCall): Promise<ToolResult> {
  const pinned = s.pin(call);
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
  if (typeof a.channel !== 'string') return refusal('invalid_argument', `mode "${mode}" needs channel (an archive name or id).`);
  const archive = await s.findArchive(a.channel);
  if (!archive) return refusal('not_found', `No archived session named or with id "${a.channel}".`);
  return s.store.readLatest((_state, ctx) => engine.viewArchive(archive, { session_id: pinned.memberId, mode, limit: a.limit }, ctx));
}
