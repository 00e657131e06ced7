// The custom tools OpenCode offers its sessions: create and join a channel
// AS the calling session. The session id is the member id, so these need no
// pin; they refuse subagent (child) sessions. Everything else (send, pull,
// status) goes through the MCP server.
import { createChannel, joinChannel, type EngineCtx, type State, type ToolResult } from '../engine';
import type { Store } from '../store';
import { recordError } from './error-log';
import type { HostClient, HostToolDefinition, SchemaKit } from './host-types';
import { checkRootSession, memberFieldsFor, type OpenCodeLocation } from './identity';

export interface ToolDeps {
  store: Store;
  client: HostClient;
  location: OpenCodeLocation;
  /** Called with every session that uses a tool: it lives on this instance. */
  noteSession: (sessionId: string) => void;
}

function text(result: ToolResult): string {
  return JSON.stringify(result);
}

function stringArg(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  return typeof value === 'string' ? value : '';
}

async function asRootSession(
  deps: ToolDeps,
  sessionId: string,
  action: (state: State, ctx: EngineCtx) => ToolResult,
): Promise<string> {
  deps.noteSession(sessionId);
  const check = await checkRootSession(deps.client, sessionId);
  if (!check.ok) {
    if (check.reason === 'session_lookup_failed') {
      // Recorded so `status` and `doctor` show why a join silently did not happen.
      await deps.store.mutate((state, ctx) => {
        recordError(state, ctx.now(), check.message, sessionId);
        return { ok: true, message: 'recorded' };
      });
    }
    return text({ ok: false, message: check.message, data: { reason: check.reason } });
  }
  return text(await deps.store.mutate(action));
}

/** The tool definitions for the `tool` hook, built with OpenCode's own schema builder. */
export function buildTools(deps: ToolDeps, schema: SchemaKit): Record<string, HostToolDefinition> {
  const args = () => ({
    channel: schema.string().describe('Channel name'),
    role: schema.string().describe('Your role in the channel, e.g. reviewer'),
    role_prompt: schema.string().describe('Your standing instructions in this channel'),
  });
  return {
    opencomms_create: {
      description: 'Create an OpenComms channel with this session as its first member; messages for you arrive in this session.',
      args: args(),
      execute: (a, context) => asRootSession(deps, context.sessionID, (state, ctx) => createChannel(state, {
        channel: stringArg(a, 'channel'), role: stringArg(a, 'role'), role_prompt: stringArg(a, 'role_prompt'),
        ...memberFieldsFor(context.sessionID), ...deps.location,
      }, ctx)),
    },
    opencomms_join: {
      description: 'Join an existing OpenComms channel as this session. If it fails, stop and report; never create or replace a channel instead.',
      args: args(),
      execute: (a, context) => asRootSession(deps, context.sessionID, (state, ctx) => joinChannel(state, {
        channel: stringArg(a, 'channel'), role: stringArg(a, 'role'), role_prompt: stringArg(a, 'role_prompt'),
        ...memberFieldsFor(context.sessionID), ...deps.location,
      }, ctx)),
    },
  };
}
