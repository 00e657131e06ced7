// The custom tools OpenCode offers its sessions, all acting AS the calling
// session (its id is the member id, so none needs a pin): create and join
// here, which refuse subagent (child) sessions, and the member tools of
// member-tools.ts.
import {
  createChannel, joinChannel, MAX_CHANNEL_NAME_CHARS, MAX_ROLE_CHARS, normalizeChannelName, type EngineCtx, type State, type ToolResult,
} from '../engine';
import { withArchiveContext } from '../tools/archive-context';
import { CHANNEL_SETTING_PROPERTIES, channelSettingsOf } from '../tools/channel-settings';
import { recordError } from './error-log';
import type { HostClient, HostToolDefinition, SchemaKit } from './host-types';
import { checkRootSession, memberFieldsFor, type OpenCodeLocation } from './identity';
import { buildMemberTools, type MemberToolDeps } from './member-tools';
import { argumentRefusal, objectSchema, zodArgs, type InputSchema, type PropertySchema } from './tool-args';

export interface ToolDeps extends MemberToolDeps {
  client: HostClient;
  location: OpenCodeLocation;
}

const ENTRY_PROPERTIES: Record<string, PropertySchema> = {
  channel: { type: 'string', maxLength: MAX_CHANNEL_NAME_CHARS, description: 'Channel name' },
  role: { type: 'string', maxLength: MAX_ROLE_CHARS, description: 'Your role in the channel, e.g. reviewer' },
  role_prompt: { type: 'string', description: 'Your standing instructions in this channel' },
};
const ENTRY_REQUIRED = ['channel', 'role', 'role_prompt'];

const JOIN_ARGS = objectSchema(ENTRY_PROPERTIES, ENTRY_REQUIRED);
// The MCP create's channel settings, with its bounds; spawn_push has no meaning for a pushed session.
const CREATE_ARGS = objectSchema({ ...ENTRY_PROPERTIES, ...CHANNEL_SETTING_PROPERTIES }, ENTRY_REQUIRED);

function text(result: ToolResult): string {
  return JSON.stringify(result);
}

function stringArg(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  return typeof value === 'string' ? value : '';
}

async function asRootSession(
  deps: ToolDeps,
  input: InputSchema,
  args: Record<string, unknown>,
  sessionId: string,
  action: (state: State, ctx: EngineCtx) => ToolResult,
): Promise<ToolResult> {
  deps.noteSession(sessionId);
  const refusal = argumentRefusal(input, args);
  if (refusal) return refusal;
  const check = await checkRootSession(deps.client, sessionId);
  if (!check.ok) {
    if (check.reason === 'session_lookup_failed') {
      // Recorded so `status` and `doctor` show why a join silently did not happen.
      await deps.store.mutate((state, ctx) => {
        recordError(state, ctx.now(), check.message, sessionId);
        return { ok: true, message: 'recorded' };
      });
    }
    return { ok: false, message: check.message, data: { reason: check.reason } };
  }
  return deps.store.mutate(action);
}

/** The tool definitions for the `tool` hook, built with OpenCode's own schema builder. */
export function buildTools(deps: ToolDeps, schema: SchemaKit): Record<string, HostToolDefinition> {
  return {
    opencomms_create: {
      description: 'Create an OpenComms channel with this session as its first member; messages for you arrive in this session.',
      args: zodArgs(CREATE_ARGS, schema),
      execute: async (a, context) => text(await asRootSession(deps, CREATE_ARGS, a, context.sessionID, (state, ctx) => createChannel(state, {
        channel: stringArg(a, 'channel'), role: stringArg(a, 'role'), role_prompt: stringArg(a, 'role_prompt'),
        ...memberFieldsFor(context.sessionID), ...deps.location, ...channelSettingsOf(a),
      }, ctx))),
    },
    opencomms_join: {
      description: 'Join an existing OpenComms channel as this session. If it fails, stop and report; never create or replace a channel instead.',
      args: zodArgs(JOIN_ARGS, schema),
      execute: async (a, context) => {
        const result = await asRootSession(deps, JOIN_ARGS, a, context.sessionID, (state, ctx) => joinChannel(state, {
          channel: stringArg(a, 'channel'), role: stringArg(a, 'role'), role_prompt: stringArg(a, 'role_prompt'),
          ...memberFieldsFor(context.sessionID), ...deps.location,
        }, ctx));
        // A joiner of a resumed channel gets the archived story, as with the MCP join.
        return text(withArchiveContext(deps.store.projectDir, result, normalizeChannelName(stringArg(a, 'channel'))));
      },
    },
    ...buildMemberTools(deps, schema),
  };
}
