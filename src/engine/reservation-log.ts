// What a channel remembers of its reservations after they are gone: how many
// were taken and how many lapsed, and when, so the transcript's period line
// (opencomms log) can count them. A reservation leaves channel.reservations
// when it is released or lapses, and nothing else records it. Counted per
// change, not per path (one reserve of 500 paths is one entry), and only the
// newest RESERVATION_LOG_KEPT entries are kept.
import type { Channel, ReservationLogEntry } from './types';

/** Entries a channel keeps, newest last. */
export const RESERVATION_LOG_KEPT = 100;

/** Notes `count` reservations taken or lapsed; nothing for none. */
export function logReservations(channel: Channel, what: ReservationLogEntry['what'], memberId: string, count: number, at: number): void {
  if (count <= 0) return;
  const log = channel.reservation_log ?? [];
  log.push({ at, what, member_id: memberId, count });
  channel.reservation_log = log.slice(-RESERVATION_LOG_KEPT);
}

/** Whether a value read from state.json is a log entry (channel-shape drops the others). */
export function isReservationLogEntry(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const r = e as Record<string, unknown>;
  return typeof r.at === 'number' && Number.isFinite(r.at) && (r.what === 'taken' || r.what === 'lapsed')
    && typeof r.member_id === 'string' && typeof r.count === 'number' && Number.isSafeInteger(r.count) && r.count > 0;
}

/**
 * Reservations taken and lapsed in a period (`isIn` says which times are in
 * it): the log's entries, and the reservations still listed that are over by
 * time but not yet tidied away (their lapse is logged when they go).
 */
export function reservationCounts(channel: Channel, isIn: (at: number) => boolean, now: number): { taken: number; lapsed: number } {
  const counts = { taken: 0, lapsed: 0 };
  for (const e of channel.reservation_log ?? []) if (isIn(e.at)) counts[e.what] += e.count;
  for (const r of channel.reservations ?? []) if (r.expires_at <= now && isIn(r.expires_at)) counts.lapsed += 1;
  return counts;
}
