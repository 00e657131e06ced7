// The text that carries mail into a hook's answer, kept under the host's
// size cap. The cap is the hosts' own: Claude Code cuts additionalContext and
// a Stop reason at 10,000 characters, and a cut would leave half a framed
// message (an open UNTRUSTED marker) in the model's context. So the batch is
// built whole messages at a time, and whatever does not fit stays queued.
import { BATCH_SEPARATOR, frameMessage } from './framing';
import { clearStale } from './identity';
import { drainQueue, sweepInFlight } from './delivery';
import { channelNameOf } from './pull';
import type { DeliveryOwner, EngineCtx, State } from './types';

/** The most characters (UTF-16 code units, as the hosts count) one answer text may hold. */
export const HOOK_TEXT_MAX_CHARS = 10_000;

const STOP_LINE = '[OpenComms: the messages above came from your channel peers while you worked. Consider them (and answer with opencomms_send if a reply is needed) before you finish.]';

function headerLine(count: number): string {
  return `[OpenComms: ${count} new message${count === 1 ? '' : 's'} from your channel peers, each framed below with its channel.]`;
}

function moreLine(remaining: number): string {
  return `[OpenComms: ${remaining} more message${remaining === 1 ? ' is' : 's are'} waiting that did not fit here; call opencomms_pull to read ${remaining === 1 ? 'it' : 'them'}.]`;
}

function oversizeLine(channelName: string, chars: number, waiting: number): string {
  return `[OpenComms: a message on channel "${channelName}" is too large to show here (${chars} characters); call opencomms_pull to read it.`
    + ` ${waiting} message${waiting === 1 ? ' is' : 's are'} waiting in all.]`;
}

/** What fitBatch decided: how many leading messages go out, and their frames. */
export interface FittedBatch {
  frames: string[];
}

/**
 * Takes leading messages, in order, while the whole answer text still fits
 * under `capChars`. Frames are made one at a time (`frameAt`) so nothing past
 * the first misfit is framed. Room is kept for the header and trailer lines
 * with `total` as the largest count they could show.
 */
export function fitBatch(total: number, frameAt: (index: number) => string, isStop: boolean, capChars = HOOK_TEXT_MAX_CHARS): FittedBatch {
  const fixed = headerLine(total).length + 2 + 2 + moreLine(total).length + (isStop ? 1 + STOP_LINE.length : 0);
  const frames: string[] = [];
  let used = fixed;
  for (let index = 0; index < total; index += 1) {
    const frame = frameAt(index);
    const add = frame.length + (frames.length > 0 ? BATCH_SEPARATOR.length : 0);
    if (used + add > capChars) break;
    frames.push(frame);
    used += add;
  }
  return { frames };
}

/** The text for a batch that fit, with a line for what stays queued. */
export function batchText(frames: readonly string[], remaining: number, isStop: boolean): string {
  const lines = [headerLine(frames.length), '', frames.join(BATCH_SEPARATOR)];
  const tail: string[] = [];
  if (remaining > 0) tail.push(moreLine(remaining));
  if (isStop) tail.push(STOP_LINE);
  if (tail.length > 0) lines.push('', tail.join('\n'));
  return lines.join('\n');
}

/** The text when the oldest waiting message alone is over the cap: a notice, never the message cut short. */
export function oversizeText(channelName: string, chars: number, waiting: number, isStop: boolean): string {
  const line = oversizeLine(channelName, chars, waiting);
  return isStop ? `${line}\n${STOP_LINE}` : line;
}

/** What the first locked step produced for the answer. */
export interface PreparedDelivery {
  /** Ids now in flight to the member, owned by `owner`; empty when only a notice goes out. */
  ids: string[];
  /** The answer text, or null when there is nothing to say. */
  text: string | null;
}

/**
 * A hook's locked step (changes/hooks-mail.ts): clears the member's stale mark, sweeps
 * abandoned in-flight mail, and drains as many whole messages as fit the cap.
 * What would be drained is found by draining a copy first, so the real drain
 * (with that count as its limit) hands over exactly the messages framed.
 */
export function prepareDelivery(
  state: State,
  memberId: string,
  owner: DeliveryOwner,
  isStop: boolean,
  ctx: EngineCtx,
  isOwnerAlive: (owner: DeliveryOwner) => boolean,
  capChars = HOOK_TEXT_MAX_CHARS,
): PreparedDelivery {
  const now = ctx.now();
  clearStale(state, memberId);
  sweepInFlight(state, isOwnerAlive, now);
  // The hook runs at a boundary the host chose, like an explicit pull, so
  // the push cooldown (which spaces out unsolicited pushes) does not apply.
  const drainOptions = { owner, now, ignoreCooldown: true };
  const preview = drainQueue(structuredClone(state), memberId, drainOptions);
  if (preview.length === 0) return { ids: [], text: null };
  const fitted = fitBatch(preview.length, (i) => frameMessage(preview[i]!, channelNameOf(state, preview[i]!), ctx.nonce()), isStop, capChars);
  if (fitted.frames.length === 0) {
    const first = preview[0]!;
    const size = frameMessage(first, channelNameOf(state, first), ctx.nonce()).length;
    return { ids: [], text: oversizeText(channelNameOf(state, first), size, preview.length, isStop) };
  }
  // Same state, same clock, same owner: the real drain hands over exactly the
  // first `limit` messages of the preview, so the frames already made fit them.
  const handed = drainQueue(state, memberId, { ...drainOptions, limit: fitted.frames.length });
  return { ids: handed.map((e) => e.message_id), text: batchText(fitted.frames, preview.length - handed.length, isStop) };
}
