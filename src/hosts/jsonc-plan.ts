// What a splice must do in one object or array: the items whose values
// changed, those taken out and those added; or undefined when items both
// come and go and the value is better written anew.
import type { JsonObject } from './jsonc';
import type { Container, Item } from './jsonc-spans';

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k], b[k]));
}

function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

export interface Plan {
  changed: [Item, unknown, unknown][];
  removed: Set<Item>;
  added: [string | undefined, unknown][];
}

export function planObject(node: Container, before: JsonObject, after: JsonObject): Plan | undefined {
  // JSON.parse keeps the last of duplicate keys; so do we.
  const itemOf = (key: string): Item => {
    const found = [...node.items].reverse().find((item) => item.key === key);
    if (!found) throw new Error(`no member ${JSON.stringify(key)} in the text`);
    return found;
  };
  const removedKeys = Object.keys(before).filter((key) => !hasOwn(after, key));
  const addedKeys = Object.keys(after).filter((key) => !hasOwn(before, key));
  const isDuplicated = new Set(node.items.map((item) => item.key)).size !== node.items.length;
  if (node.items.length !== Object.keys(before).length && !isDuplicated) throw new Error('the text has other members');
  if ((removedKeys.length > 0 && addedKeys.length > 0) || (isDuplicated && removedKeys.length > 0)) return undefined;
  const changed: [Item, unknown, unknown][] = [];
  for (const key of Object.keys(after)) {
    if (hasOwn(before, key) && !sameJson(before[key], after[key])) changed.push([itemOf(key), before[key], after[key]]);
  }
  return {
    changed,
    removed: new Set(removedKeys.map(itemOf)),
    added: addedKeys.map((key) => [key, after[key]]),
  };
}

export function planArray(node: Container, before: unknown[], after: unknown[]): Plan | undefined {
  if (node.items.length !== before.length) throw new Error('the text has other elements');
  const common = Math.min(before.length, after.length);
  if (after.length >= before.length) {
    // Elements changed where they stand, and any new ones at the end.
    const changed: [Item, unknown, unknown][] = [];
    for (let i = 0; i < common; i++) if (!sameJson(before[i], after[i])) changed.push([node.items[i], before[i], after[i]]);
    return { changed, removed: new Set(), added: after.slice(before.length).map((v) => [undefined, v]) };
  }
  // Fewer elements: only as many taken out, the rest unchanged and in order.
  const removed = new Set<Item>();
  let next = 0;
  before.forEach((value, i) => {
    if (next < after.length && sameJson(value, after[next])) next++;
    else removed.add(node.items[i]);
  });
  return next === after.length ? { changed: [], removed, added: [] } : undefined;
}
