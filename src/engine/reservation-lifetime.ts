// The one lifetime rule of a reservation (PROTOCOL 5.6), judged the same way
// by the hooks, the reserve tool, status, watch and `opencomms reservations`:
// whether one holds now, and when one that holds will lapse by time alone.
import { logReservations } from './reservation-log';
import { HOLDER_AWAY_GRACE_MS, MAX_RESERVATION_TTL_MINUTES } from './constants';
import { JUDGE_BY_LEASE, presenceOf } from './presence';
import { isBelievableTime } from './times';
import type { Channel, ProcessCheck, Reservation, State } from './types';

/** When a reservation's holder went away (presenceOf), or null while it is present. */
export function holderAwaySince(state: State, r: Reservation, now: number, isAlive: ProcessCheck): number | null {
  const judged = presenceOf(state, r.member_id, now, isAlive);
  return judged.present ? null : (judged.away_since ?? Number.NEGATIVE_INFINITY);
}

/**
 * Whether a reservation is over by time: at `expires_at`, and at once when
 * that lies further ahead than the longest TTL (and the clock slack), which
 * no reserve grants: a time written by hand or a clock far ahead (times.ts
 * isBelievableTime).
 */
export function isReservationOver(r: Reservation, now: number): boolean {
  return now >= r.expires_at || !isBelievableTime(r.expires_at, now, MAX_RESERVATION_TTL_MINUTES * 60_000);
}

/**
 * The one lifetime rule: a reservation holds until it is over by time
 * (isReservationOver), while its holder is still a member of the channel and
 * is present or went away less than HOLDER_AWAY_GRACE_MS ago. A holder whose
 * away time is unknown counts as away long ago.
 */
export function isLiveReservation(state: State, channel: Channel, reservation: Reservation, now: number, isAlive: ProcessCheck): boolean {
  if (isReservationOver(reservation, now)) return false;
  if (!channel.members.some((m) => m.session_id === reservation.member_id)) return false;
  const since = holderAwaySince(state, reservation, now, isAlive);
  return since === null || now - since < HOLDER_AWAY_GRACE_MS;
}

/**
 * The live reservations of a channel: isLiveReservation for each, with each
 * holder's presence judged once (a holder of 2,000 paths is one member; its
 * presence walks the roster and the leases, and would be judged 2,000 times).
 */
export function liveReservations(state: State, channel: Channel, now: number, isAlive: ProcessCheck): Reservation[] {
  const reservations = channel.reservations ?? [];
  if (reservations.length <= 1) return reservations.filter((r) => isLiveReservation(state, channel, r, now, isAlive));
  const verdicts = new Map<string, boolean>();
  return reservations.filter((r) => {
    if (isReservationOver(r, now)) return false;
    let holds = verdicts.get(r.member_id);
    if (holds === undefined) {
      // Its expiry is judged above; here only its holder, as of a reservation that has not lapsed.
      holds = isLiveReservation(state, channel, { ...r, expires_at: now + 1 }, now, isAlive);
      verdicts.set(r.member_id, holds);
    }
    return holds;
  });
}

/** Drops every reservation that no longer holds; returns how many went. */
export function pruneReservations(state: State, now: number, isAlive: ProcessCheck = JUDGE_BY_LEASE): number {
  let dropped = 0;
  for (const channel of Object.values(state.channels)) {
    if (!channel.reservations) continue;
    const kept = liveReservations(state, channel, now, isAlive);
    dropped += channel.reservations.length - kept.length;
    // Each holder's lapse is logged when the upkeep finds it, which is at the next change after it.
    for (const holder of new Set(channel.reservations.map((r) => r.member_id))) {
      const gone = channel.reservations.filter((r) => r.member_id === holder && !kept.includes(r));
      if (gone.length > 0) logReservations(channel, 'lapsed', holder, gone.length, Math.min(now, ...gone.map((r) => r.expires_at)));
    }
    if (kept.length > 0) channel.reservations = kept;
    else delete channel.reservations;
  }
  return dropped;
}


/** When a reservation that holds lapses if nothing changes, and since when its holder is away (null while present). */
export interface ReservationLapse {
  holder_away_since: number | null;
  /** The earlier of its expiry and HOLDER_AWAY_GRACE_MS after its holder went away (a present holder: its expiry). */
  lapses_at: number;
}

/** When `r` lapses by time alone: its expiry, or 10 minutes after its holder went away, whichever comes first. */
export function reservationLapse(state: State, r: Reservation, now: number, isAlive: ProcessCheck): ReservationLapse {
  const since = holderAwaySince(state, r, now, isAlive);
  if (since === null || !Number.isFinite(since)) return { holder_away_since: null, lapses_at: since === null ? r.expires_at : now };
  return { holder_away_since: since, lapses_at: Math.min(r.expires_at, since + HOLDER_AWAY_GRACE_MS) };
}

/** The earliest time a reservation of the project that holds at `now` lapses by time alone, or null when none holds. */
export function nextReservationLapse(state: State, now: number, isAlive: ProcessCheck): number | null {
  let next: number | null = null;
  for (const channel of Object.values(state.channels)) {
    for (const r of liveReservations(state, channel, now, isAlive)) {
      const at = reservationLapse(state, r, now, isAlive).lapses_at;
      if (next === null || at < next) next = at;
    }
  }
  return next;
}
