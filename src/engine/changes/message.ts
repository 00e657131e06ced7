// The changes that carry mail.
import type { ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { authorizeMember } from '../identity';
import { isPersonMemberId } from '../person';
import { sendMessage } from '../send';

/** A send by a member (never a person: a person speaks through personSay). */
export interface SendArgs {
  member: string;
  channel: string;
  content: string;
  type?: string | null;
  reply_to?: string | null;
  to?: string | null;
  broadcast: boolean;
  session_description?: string | null;
}

const TEXT_ARGS = ['type', 'reply_to', 'to', 'session_description'] as const;

// Arguments may come from a file another process wrote: their types are checked again.
function isSendArgs(a: SendArgs): boolean {
  const loose = a as unknown as Record<string, unknown>;
  return typeof a.member === 'string' && typeof a.channel === 'string' && typeof a.content === 'string' && typeof a.broadcast === 'boolean'
    && TEXT_ARGS.every((key) => loose[key] === undefined || loose[key] === null || typeof loose[key] === 'string');
}

const sendChange: ChangeFn<SendArgs> = (state, a, ctx): ToolResult => {
  if (!isSendArgs(a)) return { ok: false, message: 'The send arguments were malformed: send again.', data: { reason: 'invalid_argument' } };
  // The send tool never speaks as a person (OPENCOMMS_MEMBER_ID, pins and sessions refuse the prefix; a person
  // speaks through `opencomms say`), so a send that names one was not made by it.
  if (isPersonMemberId(a.member)) {
    return { ok: false, message: 'A send through the tools cannot speak as a person: a person speaks with `opencomms say`.', data: { reason: 'invalid_argument' } };
  }
  const auth = authorizeMember(state, a.member, a.channel);
  if (!auth.ok) return auth;
  return sendMessage(state, {
    channel: a.channel, session_id: a.member, content: a.content, type: a.type, reply_to: a.reply_to,
    to: a.to, broadcast: a.broadcast, session_description: a.session_description,
  }, ctx);
};

export const messageChanges = { send: sendChange };
