// Times are milliseconds since the epoch. A time read from disk is checked
// with isDateTime before it is kept, and formatIsoTime never throws, so a
// hand-edited number cannot crash whoever prints it.
import { MAX_DATE_MS } from './constants';

/** True for a finite number of milliseconds that a Date can hold. */
export function isDateTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_DATE_MS;
}

/** The ISO 8601 form of a time, or "unknown time" for any number a Date cannot hold. */
export function formatIsoTime(ms: number): string {
  return isDateTime(ms) ? new Date(ms).toISOString() : 'unknown time';
}

/** A finite time moved into the range a Date holds (the nearest end), so it can be printed and still sorts. */
export function clampToDateRange(ms: number): number {
  return Math.min(MAX_DATE_MS, Math.max(-MAX_DATE_MS, ms));
}

/**
 * How far ahead of this clock a time another process or machine wrote may
 * be and still be believed. Processes on one machine share one clock; the
 * machines that share one Redis or one network folder are kept within
 * milliseconds of each other by NTP, and within seconds by a virtual machine
 * that just resumed or a host whose NTP lapsed for a while. Thirty seconds
 * covers that, and is short next to every lifetime it guards, so a stamp
 * planted just inside it (a committed file) holds things up for seconds, not
 * for as long as its writer liked.
 */
export const FUTURE_SLACK_MS = 30_000;

/**
 * The one rule for a time written by another process or machine (a lock
 * stamp, a queue ticket, a lease's or reservation's or claim's expiry):
 * believable at `now` unless it lies later than `now + leadMs +
 * FUTURE_SLACK_MS`, where `leadMs` is how far ahead of its writer's clock
 * such a time is ever written (0 for a time something happened; the
 * longest lifetime for an expiry). A time past that was written by a clock
 * far ahead or by hand: it is not believed, and the holder it speaks for is
 * judged by something else (its file's own age) or treated as expired.
 */
export function isBelievableTime(time: number, now: number, leadMs = 0): boolean {
  return time <= now + leadMs + FUTURE_SLACK_MS;
}
