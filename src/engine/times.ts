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
