// The tools that act on a channel the caller is already a live member of:
// pause, resume, leave, its own role prompt, removing a member, the clock.
import { TIMER_ACTIONS } from '../engine';
import {
  CHANNEL_ARG, DESTRUCTIVE_TOOL, defineTool, IDEMPOTENT_TOOL, MAX_ID_CHARS, MEMBER_REF_ARG, ROLE_ARG, ROLE_PROMPT_ARG, WRITE_TOOL,
  type CallerTool,
} from './define-tool';
import type { ToolAnnotations } from './registry';
import { objectSchema } from './schema';
import type { ToolServices } from './services';

/** The engine changes (engine/changes/tools-channel.ts) that take only the channel. */
type ChannelOnlyChange = 'channel_pause' | 'channel_resume';

export function channelTools(s: ToolServices): Record<'pause' | 'resume' | 'disconnect' | 'updateRole' | 'kick' | 'timer', CallerTool> {
  return {
    pause: channelOnlyTool(s, 'opencomms_pause', 'Pause channel', 'Pause a channel: sends are refused and nothing is delivered until resumed.', IDEMPOTENT_TOOL, 'channel_pause'),
    resume: channelOnlyTool(s, 'opencomms_resume', 'Resume channel', 'Resume a paused channel.', IDEMPOTENT_TOOL, 'channel_resume'),
    disconnect: defineTool({
      name: 'opencomms_disconnect',
      title: 'Leave channel',
      description: 'Leave a channel. Your pending mail in it is dropped; other channels are untouched.',
      inputSchema: objectSchema({ channel: CHANNEL_ARG }, ['channel']),
      annotations: DESTRUCTIVE_TOOL,
      handler: async (a, caller) => {
        const result = await s.identities.changeAsMember(caller, 'channel_disconnect', { channel: a.channel });
        // The last member left and the channel went with them: its history log goes too.
        if (result.ok && result.data?.channel_removed === true) await s.store.dropHistory(String(result.data.channel_id));
        return result;
      },
    }),
    updateRole: defineTool({
      name: 'opencomms_update_role',
      title: 'Update role prompt',
      description: 'Replace your own role prompt in a channel.',
      inputSchema: objectSchema({ channel: CHANNEL_ARG, role_prompt: ROLE_PROMPT_ARG }, ['channel', 'role_prompt']),
      annotations: IDEMPOTENT_TOOL,
      handler: (a, caller) =>
        s.identities.changeAsMember(caller, 'channel_update_role', { channel: a.channel, role_prompt: a.role_prompt }),
    }),
    kick: defineTool({
      name: 'opencomms_kick',
      title: 'Remove member',
      description: 'Coordinator only (the first member): remove another member by session id or role.',
      inputSchema: objectSchema(
        { channel: CHANNEL_ARG, target_session_id: { type: 'string', maxLength: MAX_ID_CHARS }, target_role: ROLE_ARG },
        ['channel'],
      ),
      annotations: DESTRUCTIVE_TOOL,
      handler: (a, caller) =>
        s.identities.changeAsMember(caller, 'channel_kick', { channel: a.channel, target_session_id: a.target_session_id, target_role: a.target_role }),
    }),
    timer: defineTool({
      name: 'opencomms_timer',
      title: 'Chess clock',
      description: 'A per-channel chess clock (switch: to a member). Advisory only.',
      inputSchema: objectSchema(
        { channel: CHANNEL_ARG, action: { type: 'string', enum: TIMER_ACTIONS }, limit_ms: { type: 'integer', minimum: 1 }, to: MEMBER_REF_ARG },
        ['channel', 'action'],
      ),
      annotations: WRITE_TOOL,
      handler: (a, caller) =>
        s.identities.changeAsMember(caller, 'channel_timer', { channel: a.channel, action: a.action, limit_ms: a.limit_ms, to: a.to }),
    }),
  };
}

/** A tool that takes only the channel and hands it, with the caller, to one engine change. */
function channelOnlyTool(s: ToolServices, name: string, title: string, description: string, annotations: ToolAnnotations, change: ChannelOnlyChange): CallerTool {
  return defineTool({
    name, title, description, annotations,
    inputSchema: objectSchema({ channel: CHANNEL_ARG }, ['channel']),
    handler: (a, caller) => s.identities.changeAsMember(caller, change, { channel: a.channel }),
  });
}
