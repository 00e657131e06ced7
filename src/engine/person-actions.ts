// What a person does from a terminal, as pure changes: say (joining the
// channel on the first one), read their own mail, pause and resume a
// channel, release a reservation. The CLI and the watch view's keys run these
// under the store's lock; they decide nothing themselves. Each records itself,
// with the terminal it came from, in the same change (engine/person-log).
import { drainQueue, sweepInFlight } from './delivery';
import { findChannelEnvelope, pendingFor } from './envelopes';
import { clearPause, isStreakPause } from './loop-guard';
import { joinChannel } from './channels';
import { DEFAULT_PERSON_ROLE, isPersonMemberId, PERSON_HOST } from './person';
import { recordPersonAction, type PersonActor } from './person-log';
import { releaseForPerson, type HeldReservation, type ReleaseTarget } from './reservation-admin';
import { channelNameOf } from './pull';
import { refuse, succeed } from './reasons';
import { sendMessage } from './send';
import { threadIdOf } from './compose';
import { findChannel, memberOf, normalizeChannelName } from './validate';
import type { PersonTerminal } from './person';
import type { Channel, DeliveryOwner, EngineCtx, ProcessCheck, State, ToolResult } from './types';

/** The standing note a person member carries as its role prompt. */
export const PERSON_ROLE_PROMPT = 'A person at a terminal, speaking through `opencomms say`.';

export interface PersonSayInput extends PersonActor {
  channel: string;
  content: string;
  /** The role taken on joining (the first say); default `person`. */
  role?: string | null;
  type?: string | null;
  reply_to?: string | null;
  to?: string | null;
  /** Stamped on the membership, as create and join stamp an agent's. */
  project_id: string;
  worktree: string;
}

function channelOrRefusal(state: State, name: string): Channel | ToolResult {
  const channel = findChannel(state, name);
  if (channel) return channel;
  const names = Object.keys(state.channels);
  return refuse('channel_not_found', `Channel "${normalizeChannelName(name)}" does not exist.`
    + (names.length > 0 ? ` Channels: ${names.join(', ')}.` : ' An agent creates one with opencomms_create.'));
}

/**
 * A person's message. The person joins the channel first when not yet a
 * member (under `role`). Without `to`, a reply goes to the sender of the
 * message it answers and anything else to every other member; a reply to a
 * review request is a review_response unless `type` says otherwise. The send
 * itself is sendMessage's, checks and all, and lifts a loop-guard pause.
 * Each envelope sent carries the person's terminal (person_terminal).
 */
export function personSay(state: State, input: PersonSayInput, ctx: EngineCtx): ToolResult {
  if (!isPersonMemberId(input.person_id)) return refuse('invalid_argument', 'Only a person member says things through this path.');
  const channel = channelOrRefusal(state, input.channel);
  if ('ok' in channel) return channel;
  let joined: string | undefined;
  if (!memberOf(channel, input.person_id)) {
    const entered = joinChannel(state, {
      channel: channel.name, role: input.role ?? DEFAULT_PERSON_ROLE, role_prompt: PERSON_ROLE_PROMPT, session_id: input.person_id,
      project_id: input.project_id, worktree: input.worktree,
      host: PERSON_HOST, surface: 'cli', delivery_mode: 'pull', stale_policy: { mode: 'none', window_ms: null },
    }, ctx);
    if (!entered.ok) return entered;
    joined = String(entered.data?.role);
  }
  const replyTo = typeof input.reply_to === 'string' && input.reply_to.trim() !== '' ? input.reply_to.trim() : null;
  const parent = replyTo === null ? undefined : findChannelEnvelope(state, channel.id, replyTo, ctx.history);
  let to = typeof input.to === 'string' && input.to.trim() !== '' ? input.to.trim() : null;
  if (to === null && parent && parent.sender_session_id !== input.person_id && memberOf(channel, parent.sender_session_id)) to = parent.sender_session_id;
  const type = input.type ?? (parent?.message_type === 'review_request' ? 'review_response' : null);
  const others = channel.members.filter((m) => m.session_id !== input.person_id).length;
  const sent = sendMessage(state, {
    channel: channel.name, session_id: input.person_id, content: input.content, type, reply_to: replyTo, to, broadcast: to === null && others > 0,
  }, ctx);
  if (!sent.ok) return sent;
  const ids = (sent.data?.message_ids ?? []) as string[];
  for (const id of ids) {
    const envelope = state.messages[id];
    if (envelope) envelope.person_terminal = { ...input.terminal };
  }
  recordPersonAction(state, { at: ctx.now(), person_id: input.person_id, action: 'say', channel: channel.name, detail: ids.join(', '), terminal: input.terminal });
  if (joined === undefined) return sent;
  return { ...sent, message: `Joined "${channel.name}" as ${joined}. ${sent.message}`, data: { ...sent.data, joined_as: joined } };
}

/** One message a person's read hands over, with its content as written. */
export interface PersonMail {
  channel: string;
  message_id: string;
  thread_id: string;
  from: string;
  from_role: string;
  type: string;
  reply_to: string | null;
  timestamp: number;
  content: string;
}

export interface PersonReadOptions {
  channel?: string | null;
  terminal: PersonTerminal;
  owner: DeliveryOwner;
  isOwnerAlive: (owner: DeliveryOwner) => boolean;
}

/**
 * The first, locked half of a person's read: the person's waiting mail goes
 * in flight to `owner`, as a pull's does, paused channels included (a pause
 * holds agents' mail, not the person's). The caller commits it as delivered
 * (commitDelivery, same owner) once it was printed, or gives it back.
 */
export function personRead(state: State, reader: string, options: PersonReadOptions, ctx: EngineCtx): ToolResult {
  let only: Channel | undefined;
  if (typeof options.channel === 'string' && options.channel.trim() !== '') {
    const found = channelOrRefusal(state, options.channel);
    if ('ok' in found) return found;
    if (!memberOf(found, reader)) return refuse('not_member', `You are not a member of channel "${found.name}"; \`opencomms say ${found.name} …\` joins it.`);
    only = found;
  }
  const now = ctx.now();
  sweepInFlight(state, options.isOwnerAlive, now);
  const handed = drainQueue(state, reader, { channel: only?.id, owner: options.owner, now, ignoreCooldown: true, includePaused: true });
  const messages: PersonMail[] = handed.map((e) => ({
    channel: channelNameOf(state, e), message_id: e.message_id, thread_id: threadIdOf(e), from: e.sender_session_id, from_role: e.sender_role,
    type: e.message_type, reply_to: e.reply_to, timestamp: e.timestamp, content: e.content,
  }));
  if (messages.length > 0) {
    recordPersonAction(state, {
      at: now, person_id: reader, action: 'read', channel: only?.name ?? null, detail: messages.map((m) => m.message_id).join(', '), terminal: options.terminal,
    });
  }
  const remaining = pendingFor(state, reader, only?.id).length;
  return succeed(messages.length === 0 ? 'No mail for you.' : `${messages.length} message(s).`, {
    messages, message_ids: messages.map((m) => m.message_id), remaining,
  });
}

/**
 * A person pauses or resumes a channel. A person need not be a member (like
 * a person's release of a reservation): they own the project. Resuming lifts
 * a pause of either kind, the loop guard's included.
 */
export function personSetPause(state: State, input: PersonActor & { channel: string; paused: boolean }, ctx: EngineCtx): ToolResult {
  const channel = channelOrRefusal(state, input.channel);
  if ('ok' in channel) return channel;
  const record = (detail: string): void => recordPersonAction(state, {
    at: ctx.now(), person_id: input.person_id, action: input.paused ? 'pause' : 'resume', channel: channel.name, detail, terminal: input.terminal,
  });
  if (input.paused) {
    if (channel.paused) return succeed(`Channel "${channel.name}" is already paused.`, { paused: true, pause_reason: channel.paused_reason ?? 'member' });
    channel.paused = true;
    channel.paused_at = ctx.now();
    delete channel.paused_reason;
    record('paused');
    // A person's pause is a person's to lift (resumeRefusal).
    channel.paused_by = input.person_id;
    return succeed(`Paused channel "${channel.name}": sends are refused and nothing is delivered until a person resumes it.`, { paused: true });
  }
  if (!channel.paused) return succeed(`Channel "${channel.name}" is not paused.`, { paused: false });
  const wasGuard = isStreakPause(channel);
  clearPause(channel);
  record(wasGuard ? 'lifted the loop-guard pause' : 'resumed');
  return succeed(`Resumed channel "${channel.name}"${wasGuard ? ' (the loop guard counts agent messages from 0 again)' : ''}.`, { paused: false });
}

/** A person releases reservations (engine releaseForPerson), recorded with the terminal it came from. */
export function personRelease(state: State, target: ReleaseTarget, by: PersonActor, ctx: EngineCtx, isAlive: ProcessCheck): ToolResult {
  const result = releaseForPerson(state, target, ctx, isAlive);
  if (!result.ok) return result;
  const released = (result.data?.released ?? []) as HeldReservation[];
  recordPersonAction(state, {
    at: ctx.now(), person_id: by.person_id, action: 'release', channel: null,
    detail: released.map((row) => `${row.id} (${row.paths.join(', ')}, held by ${row.member_id})`).join('; '), terminal: by.terminal,
  });
  return result;
}
