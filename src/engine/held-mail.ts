// Mail held behind a pause. A paused channel keeps its accepted mail queued;
// a pull, status and the send that trips the loop guard say how much waits,
// who paused the channel and who may lift the pause, so held mail never
// reads as "no pending messages" (PROTOCOL 5.7).
import { pendingFor } from './envelopes';
import { isStreakPause, maxAgentStreakOf } from './loop-guard';
import { isPersonMemberId } from './person';
import type { Channel, State } from './types';

/** Who paused a channel: the loop guard, a person, a member (an agent), or nobody recorded (an older version's pause). */
export type PauserKind = 'loop_guard' | 'person' | 'member' | 'unknown';

/** One paused channel's held mail, as pull, status and send report it in `data.held`. */
export interface HeldMail {
  channel: string;
  /** Messages that wait in it: the caller's own in a pull, everyone's in status and send. */
  count: number;
  /** `loop_guard`, or the member id (a person's: `person-…`) of whoever paused it; null when not recorded. */
  paused_by: string | null;
  pauser: PauserKind;
  paused_at: number | null;
  /** What a person runs in a terminal to lift the pause. */
  lift: string;
  /** Whether a member may lift it with opencomms_resume: only a member's pause, never the loop guard's or a person's. */
  agent_may_resume: boolean;
  /** The same, as one sentence. */
  text: string;
}

/** Who paused `channel`, by kind. */
export function pauserOf(channel: Channel): PauserKind {
  if (isStreakPause(channel)) return 'loop_guard';
  if (channel.paused_by === undefined) return 'unknown';
  return isPersonMemberId(channel.paused_by) ? 'person' : 'member';
}

function heldSentence(channel: Channel, count: number, pauser: PauserKind, lift: string): string {
  const waits = `${count} message${count === 1 ? ' waits' : 's wait'} in channel "${channel.name}"`;
  switch (pauser) {
    case 'loop_guard':
      return `${waits}, paused by the loop guard (${maxAgentStreakOf(channel)} messages in a row from agents, none from a person); `
        + `a person lifts it with \`${lift}\` (or \`opencomms say ${channel.name} …\`) in a terminal.`;
    case 'person':
      return `${waits}, paused by the person ${channel.paused_by}; a person lifts it with \`${lift}\` in a terminal.`;
    default:
      return `${waits}, paused by ${pauser === 'member' ? `member ${channel.paused_by}` : 'a member'}; `
        + `any member lifts it with opencomms_resume, or a person with \`${lift}\` in a terminal.`;
  }
}

/** What waits in a paused channel: `count` messages, who paused it, and how it is lifted. */
export function heldIn(channel: Channel, count: number): HeldMail {
  const pauser = pauserOf(channel);
  const lift = `opencomms resume ${channel.name}`;
  return {
    channel: channel.name,
    count,
    paused_by: pauser === 'loop_guard' ? 'loop_guard' : channel.paused_by ?? null,
    pauser,
    paused_at: channel.paused_at,
    lift,
    agent_may_resume: pauser === 'member' || pauser === 'unknown',
    text: heldSentence(channel, count, pauser, lift),
  };
}

/** How many messages wait (pending) in a channel, for every recipient. */
export function pendingInChannel(state: State, channel: Channel): number {
  let count = 0;
  for (const envelope of Object.values(state.messages)) {
    if (envelope.channel_id === channel.id && envelope.delivery_status === 'pending') count += 1;
  }
  return count;
}

/** The recipient's mail held in paused channels it is in (only `channelId`'s when given): one entry per channel with mail. */
export function heldMailOf(state: State, recipient: string, channelId?: string): HeldMail[] {
  const held: HeldMail[] = [];
  for (const channel of Object.values(state.channels)) {
    if (!channel.paused || (channelId !== undefined && channel.id !== channelId)) continue;
    if (!channel.members.some((m) => m.session_id === recipient)) continue;
    const count = pendingFor(state, recipient, channel.id).length;
    if (count > 0) held.push(heldIn(channel, count));
  }
  return held;
}

/** The sentences of `held`, and a word to the agent when only a person can lift one of them. */
export function describeHeld(held: readonly HeldMail[]): string {
  if (held.length === 0) return '';
  const needsPerson = held.some((h) => !h.agent_may_resume);
  return `${held.map((h) => h.text).join(' ')}${needsPerson ? ' Tell your user.' : ''}`;
}
