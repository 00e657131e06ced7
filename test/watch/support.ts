// A small world for the watch unit tests: engine calls on one state, the
// store's save simulated, and a watcher fired by hand.
import {
  emptyState, type State,
} from '../../src/engine/index';
import type { StateWatcher } from '../../src/local/state-dir-watch';
import { takeView, type WatchView } from '../../src/watch/index';
import { channelWith, fakeCtx, simulateSave, type FakeCtx } from '../engine/helpers';

export interface World {
  ctx: FakeCtx;
  state: State;
  /** Saves (finished mail leaves for history) and returns the view a watcher would read now. */
  look(): WatchView;
}

export function world(members: string[] = []): World {
  const ctx = fakeCtx();
  const state = members.length > 0 ? channelWith(ctx, members) : emptyState();
  return {
    ctx,
    state,
    look() {
      simulateSave(state, ctx.history);
      // A copy: the engine mutates in place, and a view must stay what it saw.
      return takeView(structuredClone(state), ctx.history);
    },
  };
}

export interface HandWatcher extends StateWatcher {
  fire(): void;
  isClosed: boolean;
}

/** A StateWatcher whose changes happen when the test says so. */
export function handWatcher(): HandWatcher {
  const listeners = new Set<() => void>();
  const watcher: HandWatcher = {
    isClosed: false,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      watcher.isClosed = true;
      listeners.clear();
    },
    fire() {
      for (const listener of [...listeners]) listener();
    },
  };
  return watcher;
}
