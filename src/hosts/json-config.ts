// Editing JSON host configs: change only our server entry and our hook
// entries. An existing file, with comments (JSONC) or without, is edited in
// place (jsonc.ts): only the values that change are written, in the file's own
// indentation, line endings and layout. A new file is written with 2-space
// indentation and a trailing newline. JSON.parse keeps the insertion order of
// keys (except integer-like keys, which JSON itself does not order), so
// unrelated entries keep their place.

import { blankJsonc, isJsoncOnly, type JsonObject } from './jsonc';
import { spliceJsonc } from './jsonc-splice';

export type { JsonObject } from './jsonc';

export class ConfigError extends Error {}

/** The marker that tells our hook commands from anyone else's. */
export const OUR_HOOK_MARKER = 'opencomms.js" hook';

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a config file's text, JSON or JSON with comments; whitespace only counts as `{}`. Throws ConfigError. */
export function parseJsonObject(text: string): JsonObject {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (body.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    try {
      value = JSON.parse(blankJsonc(body));
    } catch {
      throw new ConfigError(`it is not valid JSON, with or without comments (${(err as Error).message})`);
    }
  }
  if (!isJsonObject(value)) throw new ConfigError('its top level is not a JSON object');
  return value;
}

/** Compact JSON with the keys sorted at every level (undefined values left out): equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function renderJson(doc: JsonObject): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * The text of `doc` after a change from `before` (the parse of `original`):
 * spliced into the original so every byte outside the change stays. Should a
 * splice fail, plain JSON is rendered anew (nothing is lost but layout); a
 * file with comments throws ConfigError rather than lose them.
 */
export function renderChanged(original: string | undefined, before: JsonObject | undefined, doc: JsonObject): string {
  const body = original?.startsWith('\uFEFF') ? original.slice(1) : original;
  if (body === undefined || before === undefined || body.trim() === '') return renderJson(doc);
  const spliced = spliceJsonc(body, before, doc);
  if (spliced === undefined) {
    if (!isJsoncOnly(body)) return renderJson(doc);
    throw new ConfigError('it has comments, and this change could not be made without losing some; make it by hand (`--dry-run` shows the result as plain JSON)');
  }
  return original === body ? spliced : `\uFEFF${spliced}`;
}

/** The object at `doc[key]`, created when absent; throws ConfigError when it is something else. */
function objectAt(doc: JsonObject, key: string, create: boolean): JsonObject | undefined {
  const value = doc[key];
  if (value === undefined) {
    if (!create) return undefined;
    const fresh: JsonObject = {};
    doc[key] = fresh;
    return fresh;
  }
  if (!isJsonObject(value)) throw new ConfigError(`its "${key}" is not an object`);
  return value;
}

/** Checks that `doc[container]` is absent or an object. */
export function checkContainer(doc: JsonObject, container: string): void {
  objectAt(doc, container, false);
}

/**
 * Sets `doc[container][name]` to `entry`, in place when the name exists
 * already. Keys the user added to an existing entry are kept: ours replace
 * theirs, and an object of ours (an env table) is merged one level deep, so
 * a `trust`, a `timeout` or an extra variable survives a re-install.
 */
export function setEntry(doc: JsonObject, container: string, name: string, entry: JsonObject): void {
  const holder = objectAt(doc, container, true)!;
  const before = holder[name];
  if (!isJsonObject(before)) {
    holder[name] = entry;
    return;
  }
  const merged: JsonObject = { ...before, ...entry };
  for (const [key, value] of Object.entries(entry)) {
    const theirs = before[key];
    if (isJsonObject(value) && isJsonObject(theirs)) merged[key] = { ...theirs, ...value };
  }
  holder[name] = merged;
}

/** Removes `doc[container][name]`, and the container when that left it empty. */
export function removeEntry(doc: JsonObject, container: string, name: string): void {
  const holder = objectAt(doc, container, false);
  if (!holder || !Object.prototype.hasOwnProperty.call(holder, name)) return;
  delete holder[name];
  if (Object.keys(holder).length === 0) delete doc[container];
}

export function getEntry(doc: JsonObject, container: string, name: string): JsonObject | undefined {
  const holder = doc[container];
  if (!isJsonObject(holder)) return undefined;
  const entry = holder[name];
  return isJsonObject(entry) ? entry : undefined;
}

function isOurHook(hook: unknown): boolean {
  return isJsonObject(hook) && typeof hook.command === 'string' && hook.command.includes(OUR_HOOK_MARKER);
}

function hooksOf(entry: unknown): unknown[] | undefined {
  return isJsonObject(entry) && Array.isArray(entry.hooks) ? entry.hooks : undefined;
}

/** Whether any event in `doc.hooks` runs a hook of ours. */
export function hasOurHooks(doc: JsonObject): boolean {
  const hooks = doc.hooks;
  if (!isJsonObject(hooks)) return false;
  return Object.values(hooks).some((list) => Array.isArray(list) && list.some((item) => hooksOf(item)?.some(isOurHook)));
}

/** Checks the shape of `doc.hooks` where we would touch it: an object of arrays. */
export function checkHooks(doc: JsonObject, events: readonly string[]): void {
  const hooks = objectAt(doc, 'hooks', false);
  if (!hooks) return;
  for (const event of events) {
    if (hooks[event] !== undefined && !Array.isArray(hooks[event])) throw new ConfigError(`its "hooks.${event}" is not an array`);
  }
}

/**
 * Makes each event hold exactly one entry of ours, equal to `entry`: an
 * existing entry of ours is replaced where it stands, a hook of ours mixed
 * into someone else's entry is taken out of it, and other entries are kept.
 */
export function mergeHooks(doc: JsonObject, events: readonly string[], entryFor: (event: string) => JsonObject): void {
  const hooks = objectAt(doc, 'hooks', true)!;
  for (const event of events) {
    const list = (hooks[event] as unknown[] | undefined) ?? [];
    const result: unknown[] = [];
    let isPlaced = false;
    for (const item of list) {
      const inner = hooksOf(item);
      if (!inner || !inner.some(isOurHook)) {
        result.push(item);
        continue;
      }
      const others = inner.filter((hook) => !isOurHook(hook));
      if (others.length > 0) result.push({ ...(item as JsonObject), hooks: others });
      else if (!isPlaced) {
        result.push(entryFor(event));
        isPlaced = true;
      }
    }
    if (!isPlaced) result.push(entryFor(event));
    hooks[event] = result;
  }
}

/** Removes our hooks from every event; drops an entry, event or `hooks` only when we emptied it. */
export function removeHooks(doc: JsonObject): void {
  const hooks = doc.hooks;
  if (!isJsonObject(hooks)) return;
  let didRemove = false;
  for (const event of Object.keys(hooks)) {
    const list = hooks[event];
    if (!Array.isArray(list)) continue;
    const result: unknown[] = [];
    let isChanged = false;
    for (const item of list) {
      const inner = hooksOf(item);
      if (!inner || !inner.some(isOurHook)) {
        result.push(item);
        continue;
      }
      isChanged = true;
      const others = inner.filter((hook) => !isOurHook(hook));
      if (others.length > 0) result.push({ ...(item as JsonObject), hooks: others });
    }
    if (!isChanged) continue;
    didRemove = true;
    if (result.length === 0) delete hooks[event];
    else hooks[event] = result;
  }
  if (didRemove && Object.keys(hooks).length === 0) delete doc.hooks;
}
