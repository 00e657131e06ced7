// The changes that carry mail: a send, and the settling of mail a reply
// carried once the reply's fate is known (delivery/handover.ts).
import type { DeliveryOwner, Member, ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { arrivalFacts, commitPull } from '../arrival';
import { findChannel } from '../validate';
import { JUDGE_BY_LEASE } from '../presence';
import { commitDelivery, returnUnsentDelivery } from '../delivery';
import { authorizeMember } from '../identity';
import { isPersonMemberId } from '../person';
import { markReminded } from '../requests';
import { sendMessage } from '../send';
import { isOwner, isText, isTextList, malformed } from './args';

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
  const sent = sendMessage(state, {
    channel: a.channel, session_id: a.member, content: a.content, type: a.type, reply_to: a.reply_to,
    to: a.to, broadcast: a.broadcast, session_description: a.session_description,
  }, ctx);
  const ids = sent.data?.recipients;
  const channel = findChannel(state, a.channel);
  if (!sent.ok || !Array.isArray(ids) || channel === undefined) return sent;
  // What the state says of how each recipient gets it; the sender's process adds each one's turn (arrivalOf).
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  const members = (ids as string[]).map((id) => channel.members.find((m) => m.session_id === id)).filter((m): m is Member => m !== undefined);
  return { ...sent, data: { ...sent.data, arrival_facts: members.map((m) => arrivalFacts(state, m, ctx.now(), isAlive)) } };
};

/** Mail a reply carried, still in flight under `owner`, once the reply was written (`sent`) or not. */
export interface MailSettleArgs {
  member: string;
  owner: DeliveryOwner;
  ids: string[];
  /**
   * How a written reply counts the mail: `hook`, delivered in a hook's
   * answer; `pull`, pulled (a tool's reply or a read), delivered through the
   * door that rang for it or the doorbell that announced it, if any.
   */
  via: 'hook' | 'pull';
  /** Of `ids`, those the puller's doorbell announced (`pull` only). */
  rung_ids?: string[];
  /** Open requests the reply reminded its reader of (a Stop hook): marked as reminded once it was written. */
  reminder_ids?: string[];
  sent: boolean;
}

const isOptionalTextList = (value: unknown): boolean => value === undefined || isTextList(value);

// Written: committed as delivered. Not written: given back to pending, the
// attempt undone. Only mail still in flight under `owner` is touched.
const mail_settle: ChangeFn<MailSettleArgs> = (state, a, ctx): ToolResult => {
  if (!isText(a.member) || !isOwner(a.owner) || !isTextList(a.ids) || (a.via !== 'hook' && a.via !== 'pull')
    || !isOptionalTextList(a.rung_ids) || !isOptionalTextList(a.reminder_ids) || typeof a.sent !== 'boolean') return malformed('mail settle');
  if (!a.sent) {
    returnUnsentDelivery(state, a.member, a.ids, a.owner);
    return { ok: true, message: 'given back' };
  }
  if (a.via === 'hook') commitDelivery(state, a.member, a.ids, 'pull', ctx.now(), a.owner, 'hook');
  else commitPull(state, a.member, a.ids, new Set(a.rung_ids ?? []), ctx.now(), a.owner);
  markReminded(state, a.member, a.reminder_ids ?? []);
  return { ok: true, message: 'committed' };
};

export const messageChanges = { send: sendChange, mail_settle };
