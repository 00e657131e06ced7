// The tools an OpenCode session uses AS ITSELF once it is a member: send,
// read, and run its channels. The member id is the calling session's id
// (context.sessionID); there is no pin to consult, so every call checks
// that session against the live roster, the way the MCP server checks its
// pin. Names, arguments and results match the MCP tools (INTERFACE.md §5).
import * as engine from '../engine';
import {
  MAX_CHANNEL_NAME_CHARS, MAX_CONTENT_CHARS, MAX_PAGE_LIMIT, MAX_ROLE_CHARS, SENDER_MESSAGE_TYPES, TIMER_ACTIONS,
  type EngineCtx, type State, type ToolResult,
} from '../engine';
import type { Store } from '../store';
import type { HostToolDefinition, SchemaKit } from './host-types';
import { argumentRefusal, objectSchema, zodArgs, type InputSchema, type PropertySchema } from './tool-args';

const MAX_ID_CHARS = 80;

const channel: PropertySchema = { type: 'string', maxLength: MAX_CHANNEL_NAME_CHARS, description: 'Channel name' };
const limit: PropertySchema = { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT };
const memberRef: PropertySchema = { type: 'string', maxLength: MAX_ID_CHARS, description: 'Member session id or role' };

export interface MemberToolDeps {
  store: Store;
  /** Called with every session that uses a tool: it lives on this instance. */
  noteSession: (sessionId: string) => void;
  /** Recipients of a send made here: the plugin pushes to those it hosts. */
  onSent: (recipients: string[]) => void;
}

type Args = Record<string, any>;
type Run = (deps: MemberToolDeps, args: Args, me: string) => ToolResult | Promise<ToolResult>;

interface MemberTool {
  description: string;
  input: InputSchema;
  run: Run;
}

/** A protected call: the session must be a live member of `channel` (or of any channel). */
function authorized(state: State, me: string, channelName: string | undefined, then: () => ToolResult): ToolResult {
  const auth = engine.authorizeMember(state, me, channelName);
  return auth.ok ? then() : auth;
}

function locked(op: (state: State, me: string, a: Args, ctx: EngineCtx) => ToolResult): Run {
  return (deps, a, me) => deps.store.mutate((state, ctx) => authorized(state, me, a.channel, () => op(state, me, a, ctx)));
}

function readOnly(op: (state: State, me: string, a: Args, ctx: EngineCtx) => ToolResult): Run {
  return (deps, a, me) => deps.store.read((state, ctx) => authorized(state, me, a.channel, () => op(state, me, a, ctx)));
}

function channelOnly(description: string, op: (state: State, input: engine.ChannelCall, ctx: EngineCtx) => ToolResult): MemberTool {
  return {
    description,
    input: objectSchema({ channel }, ['channel']),
    run: locked((state, me, a, ctx) => op(state, { channel: a.channel, session_id: me }, ctx)),
  };
}

const send = locked((state, me, a, ctx) => engine.sendMessage(state, {
  channel: a.channel, session_id: me, content: a.content, type: a.type, reply_to: a.reply_to,
  to: a.to, broadcast: a.broadcast === true, session_description: a.session_description,
}, ctx));

const leave = locked((state, me, a, ctx) => engine.disconnectChannel(state, { channel: a.channel, session_id: me }, ctx));

const MEMBER_TOOLS: Record<string, MemberTool> = {
  opencomms_send: {
    description: 'Send a message as this session. With 3+ members name the recipient with `to` (session id or role) or set broadcast.',
    input: objectSchema({
      channel,
      content: { type: 'string', maxLength: MAX_CONTENT_CHARS },
      // No enum, as in the MCP server: a wrong value (notably the reserved
      // `system`) is the engine's to refuse, with invalid_message_type.
      type: { type: 'string', maxLength: MAX_ID_CHARS, description: `${SENDER_MESSAGE_TYPES.join(', ')} (default manual)` },
      reply_to: { type: 'string', maxLength: MAX_ID_CHARS, description: 'message_id this answers' },
      to: memberRef,
      broadcast: { type: 'boolean' },
      session_description: { type: 'string', description: 'One line on what this channel is for (kept once)' },
    }, ['channel', 'content']),
    run: async (deps, a, me) => {
      const result = await send(deps, a, me);
      if (result.ok && Array.isArray(result.data?.recipients)) deps.onSent(result.data.recipients as string[]);
      return result;
    },
  },
  opencomms_inbox: {
    description: 'Preview your pending mail in a channel. It is pushed into this session when you are idle.',
    input: objectSchema({ channel, limit }, ['channel']),
    run: readOnly((state, me, a, ctx) => engine.inbox(state, { channel: a.channel, session_id: me, limit: a.limit }, ctx)),
  },
  opencomms_status: {
    description: 'Show your channels, members, pending counts and recent errors. Start here when unsure.',
    input: objectSchema({ channel }),
    // Not behind the roster check, like the MCP status (PROTOCOL 6.1): it shows only the caller's own
    // channels, so a session in none gets an empty answer rather than not_member.
    run: (deps, a, me) => deps.store.read((state, ctx) => {
      const result = engine.status(state, { channel: a.channel, session_id: me }, ctx);
      return result.ok ? { ...result, data: { member_id: me, ...result.data } } : result;
    }),
  },
  opencomms_history: {
    description: "Read a channel's messages, newest first. Page back with `before` (a message_id).",
    input: objectSchema({ channel, limit, before: { type: 'string', maxLength: MAX_ID_CHARS } }, ['channel']),
    run: readOnly((state, me, a, ctx) =>
      engine.history(state, { channel: a.channel, session_id: me, limit: a.limit, before: a.before }, ctx)),
  },
  opencomms_pause: channelOnly('Pause a channel: sends are refused and nothing is delivered until resumed.', engine.pauseChannel),
  opencomms_resume: channelOnly('Resume a paused channel.', engine.resumeChannel),
  opencomms_disconnect: {
    ...channelOnly('Leave a channel. Your pending mail in it is dropped; other channels are untouched.', engine.disconnectChannel),
    run: async (deps, a, me) => {
      const result = await leave(deps, a, me);
      // The last member left and the channel went with them: its history log goes too.
      if (result.ok && result.data?.channel_removed === true) await deps.store.dropHistory(String(result.data.channel_id));
      return result;
    },
  },
  opencomms_update_role: {
    description: 'Replace your own role prompt in a channel.',
    input: objectSchema({ channel, role_prompt: { type: 'string', description: 'Your standing instructions in this channel' } }, ['channel', 'role_prompt']),
    run: locked((state, me, a, ctx) => engine.updateRole(state, { channel: a.channel, session_id: me, role_prompt: a.role_prompt }, ctx)),
  },
  opencomms_kick: {
    description: 'Coordinator only (the first member): remove another member by session id or role.',
    input: objectSchema({
      channel, target_session_id: { type: 'string', maxLength: MAX_ID_CHARS }, target_role: { type: 'string', maxLength: MAX_ROLE_CHARS },
    }, ['channel']),
    run: locked((state, me, a, ctx) => engine.kickChannel(state, {
      channel: a.channel, session_id: me, target_session_id: a.target_session_id, target_role: a.target_role,
    }, ctx)),
  },
  opencomms_timer: {
    description: 'A per-channel chess clock: start, stop, switch (to a member), reset, status, set_limit, clear_limit. Advisory only.',
    input: objectSchema({
      channel, action: { type: 'string', enum: TIMER_ACTIONS }, limit_ms: { type: 'integer', minimum: 1 }, to: memberRef,
    }, ['channel', 'action']),
    run: locked((state, me, a, ctx) =>
      engine.timerAction(state, { channel: a.channel, session_id: me, action: a.action, limit_ms: a.limit_ms, to: a.to }, ctx)),
  },
};

const NO_SESSION: ToolResult = {
  ok: false, message: 'OpenCode gave this tool call no session id, so it acts as no member.', data: { reason: 'not_member' },
};

/** The member tools for the `tool` hook; each answers with the MCP server's ToolResult JSON text. */
export function buildMemberTools(deps: MemberToolDeps, kit: SchemaKit): Record<string, HostToolDefinition> {
  const out: Record<string, HostToolDefinition> = {};
  for (const [name, tool] of Object.entries(MEMBER_TOOLS)) {
    out[name] = {
      description: tool.description,
      args: zodArgs(tool.input, kit),
      async execute(args, context) {
        const me = context?.sessionID;
        // Without a session id there is no one to act as; the engine's own
        // refusal for that would speak of an MCP pin, which means nothing here.
        if (typeof me !== 'string' || me.trim() === '') return JSON.stringify(NO_SESSION);
        deps.noteSession(me);
        const refusal = argumentRefusal(tool.input, args);
        return JSON.stringify(refusal ?? await tool.run(deps, args, me));
      },
    };
  }
  return out;
}

/** Each member tool's arguments, by name in the MCP server's tools/list order. */
export const MEMBER_TOOL_INPUTS: Readonly<Record<string, InputSchema>> = Object.fromEntries(
  Object.entries(MEMBER_TOOLS).map(([name, tool]) => [name, tool.input]));
