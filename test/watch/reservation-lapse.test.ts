// The view redraws when a reservation lapses by time (issue 35, item 14): its
// expiry, or its holder away 10 minutes, changes no state and wakes no
// watcher, so the watch sets its own timer for the next lapse. Time is mocked.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { markStale, reservePaths } from '../../src/engine/index';
import { CLEAR_SCREEN, startPeopleWatch } from '../../src/watch/index';
import { mustOk } from '../engine/helpers';
import { handWatcher, world, type World } from './support';

function screenOf(w: World) {
  const frames: string[] = [];
  const watch = startPeopleWatch({
    project: '/p', stateDir: '/unused', snapshot: () => structuredClone(w.state), history: w.ctx.history, output: 'screen',
    write: (text) => { if (text.startsWith(CLEAR_SCREEN)) frames.push(text); }, now: () => Date.now(), log: () => undefined,
    size: () => ({ columns: 120, rows: 40 }), watch: () => handWatcher(),
  });
  return { frames, watch };
}

function reserve(w: World, who: string, ttlMinutes: number): void {
  mustOk(reservePaths(w.state, { channel: 'dev', session_id: who, paths: ['src/a.ts'], project_dir: '/work/repo', ttl_minutes: ttlMinutes }, w.ctx));
}

test('the screen redraws without the reservation once its ttl runs out, with no change of the state', (t) => {
  const w = world(['a', 'b']);
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: w.ctx.now() });
  t.after(() => mock.timers.reset());
  reserve(w, 'a', 1);
  const { frames, watch } = screenOf(w);
  t.after(() => watch.close());
  assert.match(frames.at(-1)!, /reserved src\/a\.ts/);
  mock.timers.tick(59_000);
  assert.equal(frames.length, 1, 'nothing to redraw before the lapse');
  mock.timers.tick(1_001);
  assert.equal(frames.length, 2);
  assert.doesNotMatch(frames.at(-1)!, /reserved src\/a\.ts/);
});

test('the screen redraws without the reservation 10 minutes after its holder went away', (t) => {
  const w = world(['a', 'b']);
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: w.ctx.now() });
  t.after(() => mock.timers.reset());
  reserve(w, 'a', 60);
  markStale(w.state, 'a', w.ctx.now());
  const { frames, watch } = screenOf(w);
  t.after(() => watch.close());
  assert.match(frames.at(-1)!, /reserved src\/a\.ts/);
  mock.timers.tick(10 * 60_000 + 1);
  assert.equal(frames.length, 2);
  assert.doesNotMatch(frames.at(-1)!, /reserved src\/a\.ts/);
});
