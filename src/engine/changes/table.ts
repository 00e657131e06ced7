// Every change a store can apply, by name. A change is a pure function of
// the state, its arguments (plain JSON, so that a change waiting for the lock
// can be written down and applied by whichever process holds it), the engine
// context and the commit's side work (tx). Callers name the change and give
// its arguments (`store.mutate('send', {...})`); no caller code runs while a
// store holds its lock.
import type { ChangeFn } from './change-fn';
import { cliChanges } from './cli';
import { hooksChanges } from './hooks';
import { messageChanges } from './message';
import { pushChanges } from './push';
import { toolsChanges } from './tools';

export type { ChangeFn } from './change-fn';

export const CHANGES = {
  ...messageChanges,
  ...toolsChanges,
  ...hooksChanges,
  ...cliChanges,
  ...pushChanges,
};

export type Changes = typeof CHANGES;
export type ChangeName = keyof Changes;
export type ChangeArgs<K extends ChangeName> = Parameters<Changes[K]>[1];
export type ChangeResult<K extends ChangeName> = ReturnType<Changes[K]>;

/** The change called `name`, or undefined when this build has none by that name (a newer peer's). */
export function changeNamed(name: string): ChangeFn<unknown> | undefined {
  return Object.prototype.hasOwnProperty.call(CHANGES, name) ? (CHANGES as Record<string, ChangeFn<unknown>>)[name] : undefined;
}
