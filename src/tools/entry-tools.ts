// The two tools that make the caller a member, create and join, and how the
// member they add is reached: by the host that embeds the tools, by pull, or
// by spawn-push resuming the host session named for the call.
import * as engine from '../engine';
import type { ToolResult } from '../engine';
import { isSpawnHost, SPAWN_HOSTS } from '../delivery/spawn-command';
import { withArchiveContextIn } from './archive-context';
import { CHANNEL_SETTING_PROPERTIES, channelSettingsOf } from './channel-settings';
import { CHANNEL_ARG, defineTool, ROLE_ARG, ROLE_PROMPT_ARG, WRITE_TOOL, type CallerTool } from './define-tool';
import type { ToolCall } from './registry';
import { objectSchema } from './schema';
import type { ToolServices } from './services';

const SPAWN_PUSH_ARG = { type: 'boolean', description: 'Deliver by resuming your session (claude-code, codex)' } as const;
const HOST_SESSION_ID_ARG = { type: 'string', maxLength: 200, description: 'For spawn_push' } as const;

/** The delivery arguments create and join share. */
interface DeliveryArgs {
  spawn_push?: boolean;
  host_session_id?: string;
}

/** The new member as the change takes it (engine/changes/tools-channel.ts); the change adds the caller's member id. */
type EntryMember = engine.MemberOptions & { project_id: string; worktree: string };

export function entryTools(s: ToolServices): Record<'create' | 'join', CallerTool> {
  return {
    create: defineTool({
      name: 'opencomms_create',
      title: 'Create channel',
      description: 'Create a channel and become its first member (its coordinator). Use once per conversation; others join it.',
      inputSchema: objectSchema(
        {
          channel: CHANNEL_ARG, role: ROLE_ARG, role_prompt: ROLE_PROMPT_ARG,
          ...CHANNEL_SETTING_PROPERTIES,
          spawn_push: SPAWN_PUSH_ARG, host_session_id: HOST_SESSION_ID_ARG,
        },
        ['channel', 'role', 'role_prompt'],
      ),
      annotations: WRITE_TOOL,
      handler: async (a, caller) =>
        spawnPushRefusal(s, a) ?? hostSessionRefusal(s, a, caller.call) ?? s.identities.changeAsMember(caller, 'channel_create', {
          channel: a.channel, role: a.role, role_prompt: a.role_prompt, ...entryMember(s, a, caller.call), ...channelSettingsOf(a),
        }),
    }),
    join: defineTool({
      name: 'opencomms_join',
      title: 'Join channel',
      description: 'Join an existing channel under a role. If it fails, stop and report; never create or replace a channel instead.',
      inputSchema: objectSchema(
        { channel: CHANNEL_ARG, role: ROLE_ARG, role_prompt: ROLE_PROMPT_ARG, spawn_push: SPAWN_PUSH_ARG, host_session_id: HOST_SESSION_ID_ARG },
        ['channel', 'role', 'role_prompt'],
      ),
      annotations: WRITE_TOOL,
      handler: async (a, caller) => {
        const refused = spawnPushRefusal(s, a) ?? hostSessionRefusal(s, a, caller.call);
        if (refused) return refused;
        const result = await s.identities.changeAsMember(caller, 'channel_join', {
          channel: a.channel, role: a.role, role_prompt: a.role_prompt, ...entryMember(s, a, caller.call),
        });
        return withArchiveContextIn(s.store.archives, result, engine.normalizeChannelName(a.channel));
      },
    }),
  };
}

// A host that embeds the tools says how its members are reached (the
// OpenCode plugin pushes into the calling session); a server's members pull
// or are resumed by spawn-push.
function entryMember(s: ToolServices, a: DeliveryArgs, call: ToolCall): EntryMember {
  return {
    project_id: s.projectId,
    worktree: s.worktree,
    ...(s.options.embedding?.membership(call) ?? {
      host: s.options.host,
      surface: 'mcp' as const,
      delivery_mode: a.spawn_push === true ? ('spawn_push' as const) : ('pull' as const),
      // The session the host names wins; an argument fills in only where the
      // host names none, and is recorded as such (it serves spawn-push, never a hook).
      ...entryHostSession(s, a, call),
      // Spawn-push resumes the host session where it runs: only this machine can.
      ...(a.spawn_push === true ? { machine: s.machine } : {}),
      stale_policy: a.spawn_push === true ? { mode: 'window' as const, window_ms: 300_000 } : { mode: 'none' as const, window_ms: null },
    }),
  };
}

function entryHostSession(s: ToolServices, a: DeliveryArgs, call: ToolCall): Pick<engine.MemberOptions, 'host_session_id' | 'host_session_source'> {
  const named = s.identities.hostSessionOf(call);
  if (named !== undefined) return { host_session_id: named, host_session_source: 'host' };
  return typeof a.host_session_id === 'string' && a.host_session_id.trim() !== ''
    ? { host_session_id: a.host_session_id, host_session_source: 'argument' }
    : { host_session_id: null };
}

// host_session_id may only repeat the session the host names: any caller
// can type any id there, and a different one would steer another session's
// spawn-push resume at this member's mail.
function hostSessionRefusal(s: ToolServices, a: DeliveryArgs, call: ToolCall): ToolResult | undefined {
  if (typeof a.host_session_id !== 'string') return undefined;
  const named = s.options.embedding ? s.options.embedding.membership(call).host_session_id ?? undefined : s.identities.hostSessionOf(call);
  if (named === undefined || named === a.host_session_id) return undefined;
  return {
    ok: false,
    message: `host_session_id "${a.host_session_id.slice(0, 80)}" is not the session your host named for this call; `
      + 'leave host_session_id out: OpenComms takes the session from the host.',
    data: { reason: 'host_session_mismatch', argument: 'host_session_id' },
  };
}

// spawn_push asks to be woken by resuming the host session from the
// command line; only some hosts can be. Elsewhere nothing could ever push
// the mail, and a spawn_push member's mail ages out after 5 minutes.
function spawnPushRefusal(s: ToolServices, a: DeliveryArgs): ToolResult | undefined {
  if (a.spawn_push !== true || isSpawnHost(s.options.host)) return undefined;
  return {
    ok: false,
    message: `spawn_push needs a host that can be resumed from the command line (${Object.keys(SPAWN_HOSTS).join(' or ')}); ` +
      `this server runs as host "${s.options.host}". Leave spawn_push out and read mail with opencomms_pull.`,
    data: { reason: 'invalid_argument', argument: 'spawn_push' },
  };
}
