// The tools that carry mail: send, preview, receive, and the two views of a
// channel (its status and its history).
import * as engine from '../engine';
import { MAX_CONTENT_CHARS, SENDER_MESSAGE_TYPES } from '../engine';
import {
  CHANNEL_ARG, defineTool, LIMIT_ARG, MAX_ID_CHARS, MEMBER_REF_ARG, READ_TOOL, WRITE_TOOL, type CallerTool,
} from './define-tool';
import { objectSchema } from './schema';
import { PULL_LEASE_MS } from './pull-settler';
import type { MailHandover } from '../delivery/handover';
import type { ToolServices } from './services';
import { withArrivals } from './arrivals';
export function messageTools(s: ToolServices): Record<'send' | 'inbox' | 'pull' | 'status' | 'history', CallerTool> {
  return {
    send: defineTool({
      name: 'opencomms_send',
      title: 'Send message',
      description: 'Send a message. With 3+ members name the recipient with `to` (session id or role) or set broadcast.',
      inputSchema: objectSchema(
        {
          channel: CHANNEL_ARG,
          content: { type: 'string', maxLength: MAX_CONTENT_CHARS },
          // No enum here: a string of the wrong value (notably the reserved
          // `system`) is the engine's to refuse, with invalid_message_type.
          type: { type: 'string', maxLength: MAX_ID_CHARS, description: `${SENDER_MESSAGE_TYPES.join(', ')} (default manual)` },
          reply_to: { type: 'string', maxLength: MAX_ID_CHARS, description: 'message_id this answers' },
          to: MEMBER_REF_ARG,
          broadcast: { type: 'boolean' },
          session_description: { type: 'string', description: 'One line on what this channel is for (kept once)' },
        },
        ['channel', 'content'],
      ),
      annotations: WRITE_TOOL,
      handler: async (a, caller) => {
        const args = {
          channel: a.channel, content: a.content, type: a.type, reply_to: a.reply_to,
          to: a.to, broadcast: a.broadcast === true, session_description: a.session_description,
        };
        // The member is pinned here, from the caller's host; the send (engine change `send`) is then
        // committed by this process or, in a burst, by the one holding the lock.
        const pinned = s.identities.pin(caller);
        if ('refusal' in pinned) return pinned.refusal;
        const sent = await s.store.mutate('send', { member: pinned.memberId, ...args }, { member: pinned.memberId });
        // The reply's word on how each recipient gets it: the state's facts, and each one's turn on this machine.
        const result = withArrivals(sent, s.options.projectDir);
        // Spawn-push recipients get their mail now; the driver ignores anyone who is not spawn_push.
        if (result.ok && Array.isArray(result.data?.recipients)) s.spawnDriver?.trigger(result.data.recipients as string[]);
        return result;
      },
    }),
    inbox: defineTool({
      name: 'opencomms_inbox',
      title: 'Preview inbox',
      description: 'Preview your pending mail in a channel without consuming it. Use opencomms_pull to receive it.',
      inputSchema: objectSchema({ channel: CHANNEL_ARG, limit: LIMIT_ARG }, ['channel']),
      annotations: READ_TOOL,
      handler: (a, caller) =>
        s.identities.readInChannel(caller, a.channel, (state, me, ctx) => engine.inbox(state, { channel: a.channel, session_id: me, limit: a.limit }, ctx)),
    }),
    pull: defineTool({
      name: 'opencomms_pull',
      title: 'Receive messages',
      description: 'Receive your pending messages (all channels, or one). Each is framed as untrusted peer data.',
      inputSchema: objectSchema({ channel: CHANNEL_ARG, limit: LIMIT_ARG }),
      annotations: WRITE_TOOL,
      // The mail goes in flight to this process in one locked change and is
      // committed in a second one, only once the reply carrying it was
      // written; a reply that is cancelled or unwritten gives it back (7.1).
      handler: async (a, caller) => {
        const pinned = s.identities.pin(caller);
        if ('refusal' in pinned) return pinned.refusal;
        // This process holds the mail (engine change `mail_pull`); its lease is the one the settling after the reply keeps to.
        const result = await s.identities.changeAsMember(caller, 'mail_pull', { channel: a.channel, limit: a.limit, pid: process.pid, host: s.machine, lease_ms: PULL_LEASE_MS });
        const ids = result.ok && Array.isArray(result.data?.message_ids) ? result.data.message_ids : [];
        const owner = result.data?.owner;
        // Asked at once, while the mail is still what the doorbell rang for.
        if (ids.length > 0 && owner) {
          const handover: MailHandover = { memberId: pinned.memberId, owner, ids, via: 'pull', rungIds: ids.filter((id) => s.isAnnounced(id)) };
          s.pulls.settleAfterReply(caller.call, handover);
        }
        return result;
      },
    }),
    status: defineTool({
      name: 'opencomms_status',
      title: 'Status',
      description: 'Show your channels, members, pending counts and recent errors. Start here when unsure.',
      inputSchema: objectSchema({ channel: CHANNEL_ARG }),
      annotations: READ_TOOL,
      handler: (a, caller) => {
        const pinned = s.identities.pin(caller);
        if ('refusal' in pinned) return pinned.refusal;
        return s.store.readLatest((state, ctx) => {
          const result = engine.channelStatus(state, { channel: a.channel, session_id: pinned.memberId }, ctx);
          // This server's host door, when it has one: which, for which session, its last ring and problem.
          const door = s.doorReport?.();
          return result.ok ? { ...result, data: { member_id: pinned.memberId, ...result.data, ...(door ? { door } : {}) } } : result;
        });
      },
    }),
    history: defineTool({
      name: 'opencomms_history',
      title: 'Channel history',
      description: 'A channel\'s messages, newest first; query (all words) or thread narrows. Page with `before`.',
      inputSchema: objectSchema({
        channel: CHANNEL_ARG, limit: LIMIT_ARG, before: { type: 'string', maxLength: MAX_ID_CHARS },
        query: { type: 'string', maxLength: 200 }, thread: { type: 'string', maxLength: MAX_ID_CHARS },
      }, ['channel']),
      annotations: READ_TOOL,
      handler: async (a, caller) => {
        const isSearch = (typeof a.query === 'string' && a.query.trim() !== '') || (typeof a.thread === 'string' && a.thread.trim() !== '');
        // A search also reads the saved ancestry of the channel (archives may live on a server, so they are fetched first).
        const parentId = isSearch ? await s.store.readLatest((state) => engine.findChannel(state, a.channel)?.parent_channel_id ?? null) : null;
        const archived = parentId === null ? [] : await s.archivedMessagesOf(parentId);
        return s.identities.readInChannel(caller, a.channel, (state, me, ctx) =>
          engine.channelHistory(state, {
            channel: a.channel, session_id: me, limit: a.limit, before: a.before, query: a.query, thread: a.thread, archived,
          }, ctx));
      },
    }),
  };
}
