// Argument checks for the push room's changes: their arguments may come from
// a file another process wrote, so their types are checked again.
import type { DeliveryOwner } from '../types';

/** A refusal: nothing of the change was saved. */
export interface Refused {
  ok: false;
  message: string;
  data?: Record<string, unknown>;
}

/** A change's answer: done with `data` of this shape, or refused. */
export type Answer<D extends object> = { ok: true; message: string; data: D } | Refused;

export const isText = (value: unknown): value is string => typeof value === 'string';

/** Whether a change's arguments are an object at all (null and other values are refused first). */
export const isArgsObject = (value: unknown): boolean => typeof value === 'object' && value !== null;

export const isTextList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isText);

export function isOwner(value: unknown): value is DeliveryOwner {
  const owner = value as Partial<DeliveryOwner> | null;
  return typeof owner === 'object' && owner !== null && typeof owner.pid === 'number' && isText(owner.host) && typeof owner.lease_until === 'number';
}

/** The refusal of a change whose arguments are not what it takes: nothing of it is saved. */
export function malformed(what: string): Refused {
  return { ok: false, message: `The ${what} arguments were malformed (a process of another version?): nothing was changed; try again.`, data: { reason: 'invalid_argument' } };
}
