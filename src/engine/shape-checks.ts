// The small checks every shape of state.json is validated with: a wrong type
// is a rejection (ShapeError), a missing field with a known default is filled
// in and noted, a safeguard out of range is restored or clamped.

/** Thrown inside the codec only; parseState turns it into { ok: false }. */
export class ShapeError extends Error {}

export type Obj = Record<string, unknown>;

export function rejectShape(message: string): never {
  throw new ShapeError(message);
}

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Rejects keys that would change an object's prototype when written back. */
export function checkKeys(obj: Obj, where: string): void {
  if (Object.prototype.hasOwnProperty.call(obj, '__proto__')) rejectShape(`${where} has a forbidden "__proto__" key`);
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Backfill helper: sets obj[key] to the fallback when absent, noting it. */
export function fill(obj: Obj, key: string, fallback: unknown, where: string, notes: string[]): void {
  if (obj[key] === undefined) {
    obj[key] = fallback;
    notes.push(`${where}: ${key} set to its default`);
  }
}

export function requireType(holds: boolean, where: string, key: string, expected: string): void {
  if (!holds) rejectShape(`${where}.${key} must be ${expected}`);
}

export function stringOrNull(obj: Obj, key: string, where: string, notes: string[]): void {
  fill(obj, key, null, where, notes);
  requireType(obj[key] === null || typeof obj[key] === 'string', where, key, 'a string or null');
}

export function numberOrNull(obj: Obj, key: string, where: string, notes: string[]): void {
  fill(obj, key, null, where, notes);
  requireType(obj[key] === null || isFiniteNumber(obj[key]), where, key, 'a number or null');
}

export function safeguard(obj: Obj, key: string, fallback: number, min: number, max: number, where: string, notes: string[]): void {
  const value = obj[key];
  if (!isFiniteNumber(value)) {
    obj[key] = fallback;
    notes.push(`${where}: ${key} restored to ${fallback}`);
  } else if (value < min || value > max) {
    obj[key] = Math.min(max, Math.max(min, Math.floor(value)));
    notes.push(`${where}: ${key} clamped to ${obj[key] as number}`);
  }
}

export function numberRecord(obj: Obj, key: string, where: string, notes: string[]): void {
  fill(obj, key, {}, where, notes);
  const record = obj[key];
  if (!isObj(record)) rejectShape(`${where}.${key} must be an object`);
  checkKeys(record, `${where}.${key}`);
  for (const [k, v] of Object.entries(record)) {
    if (!isFiniteNumber(v)) {
      delete record[k];
      notes.push(`${where}: dropped a malformed ${key} entry`);
    }
  }
}

// A list only notices depend on: anything malformed in it is dropped with a note.
export function softArray(c: Obj, key: string, where: string, notes: string[], isGood: (entry: unknown) => boolean): void {
  if (c[key] === undefined) return;
  const list = Array.isArray(c[key]) ? (c[key] as unknown[]) : [];
  const kept = list.filter(isGood);
  if (!Array.isArray(c[key]) || kept.length !== list.length) notes.push(`${where}: ${key} had malformed entries, dropped`);
  if (kept.length > 0) c[key] = kept;
  else delete c[key];
}
