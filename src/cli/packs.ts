// The doors to the cold halves. A process runs one of them at most: the hook
// pack (src/hooks) for `opencomms hook`, the cold pack (cold.ts) for the
// server's tools and every other command. Compiled from source, as in the
// tests, each door is a plain require. scripts/build.mjs replaces this module
// in the bundle with one that compiles the embedded text of a pack on first
// call, through pack-runtime.ts.
import type * as Cold from './cold';
import type * as Hook from '../hooks';

export type ColdPack = typeof Cold;
export type HookPack = typeof Hook;

export function loadColdPack(): ColdPack {
  return require('./cold') as ColdPack;
}

export function loadHookPack(): HookPack {
  return require('../hooks') as HookPack;
}
