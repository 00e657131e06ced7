// A conflict with another member's reservation, and how our own sentences
// name it: until when it holds, and the holder's words framed as peer data.
import { framePeerText } from './framing';
import { formatIsoTime } from './times';
import type { ReservationLapse } from './reservation-lifetime';
import type { Channel, Reservation } from './types';

/** One conflict as the tool and the hooks report it. */
export interface Conflict {
  path: string;
  /** The channel the reservation lives in: where to ask its holder. */
  channel: string;
  held_path: string;
  holder: string;
  role: string;
  exclusive: boolean;
  reason: string | null;
  expires_at: number;
  /** Since when its holder is away (null while present), and when it lapses by time alone (reservation-lifetime). */
  holder_away_since: ReservationLapse['holder_away_since'];
  lapses_at: number;
  /** Set when the hold is a claimed task's paths (INTERFACE section 8): the task's id. Such a hold has no expiry of its own. */
  task?: string;
}

export function conflictOf(path: string, channel: Channel, r: Reservation, lapse: ReservationLapse): Conflict {
  return {
    path, channel: channel.name, held_path: r.path, holder: r.member_id, role: r.role, exclusive: r.exclusive, reason: r.reason, expires_at: r.expires_at,
    ...lapse,
  };
}

/** Until when a conflict holds, and for an away holder since when (the lapse being 10 minutes later unless it comes back). */
export function lapseText(c: Conflict): string {
  const until = `until ${formatIsoTime(c.lapses_at)}`;
  if (c.holder_away_since === null) return until;
  return `${until} (its holder is away since ${formatIsoTime(c.holder_away_since)}; it lapses 10 minutes after that unless the holder comes back`
    + `${c.lapses_at < c.expires_at ? `, else at its expiry ${formatIsoTime(c.expires_at)}` : ''})`;
}

// A holder's reason is peer text, and so is the glob it reserved: our own
// sentences name the glob only when it reads as a path (no space, quote or
// other character a sentence needs); otherwise it goes into the frame too.
const PLAIN_PATTERN = /^[A-Za-z0-9._/*?@+=,~%#-]+$/;

export function shownHeldPath(c: Pick<Conflict, 'held_path'>): string {
  return PLAIN_PATTERN.test(c.held_path) ? c.held_path : 'a pattern shown in the peer data below';
}

/**
 * What the holder wrote about a conflicting reservation (its reason, and its
 * glob when that is not plain) framed as peer data with a fresh nonce, or
 * undefined when it wrote nothing that needs a frame.
 */
export function frameHolderText(c: Pick<Conflict, 'held_path' | 'holder' | 'role' | 'reason'>, nonce: string): string | undefined {
  const isPlain = PLAIN_PATTERN.test(c.held_path);
  if (c.reason === null && isPlain) return undefined;
  const what = isPlain ? `the reason ${c.role} gave for reserving ${c.held_path}` : `the pattern ${c.role} reserved${c.reason === null ? '' : ', and its reason'}`;
  const content = isPlain ? c.reason! : [`pattern: ${c.held_path}`, ...(c.reason === null ? [] : [`reason: ${c.reason}`])].join('\n');
  return framePeerText(what, c.holder, content, nonce);
}
