// The state watcher on the real file system, in temp dirs. Positive cases
// wait (bounded) for the listener. Negative cases never sleep: they watch
// through an observing seam, write a sentinel file after the files under
// test, and once the sentinel's event has reached the watcher (inotify
// delivers in order) they run the mocked debounce clock and count calls.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchStateDir, type DirWatch, type StateWatcher, type WatchDir } from '../../src/local/state-dir-watch';
import { replaceFile } from '../../src/files/replace-file';
import { NODE_FS } from '../../src/files/fs-port';

const WAIT_MS = 5_000;

/** Lets the microtask that carries a leading wake-up run. */
async function settle(): Promise<void> {
  await Promise.resolve();
  await Promise.resolve();
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function stateDirIn(t: TestContext, create = true): string {
  const stateDir = join(tempDir(t), '.opencomms');
  if (create) mkdirSync(stateDir);
  return stateDir;
}

/** Saves state.json the way the store does: temp file, fsync, rename. */
function saveState(stateDir: string, text: string): void {
  replaceFile(NODE_FS, join(stateDir, 'state.json'), text);
}

function watched(t: TestContext, stateDir: string, options: Parameters<typeof watchStateDir>[1] = {}): StateWatcher {
  const watcher = watchStateDir(stateDir, options);
  t.after(() => watcher.close());
  return watcher;
}

/** A listener that counts calls and lets a test wait (bounded, on real timers) for the n-th. */
function counter(): { listener: () => void; count: () => number; reach: (n: number) => Promise<void> } {
  let calls = 0;
  let waiters: (() => void)[] = [];
  return {
    listener: () => {
      calls += 1;
      const ready = waiters;
      waiters = [];
      for (const w of ready) w();
    },
    count: () => calls,
    reach: (n) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`listener reached ${calls} of ${n} calls within ${WAIT_MS} ms`)), WAIT_MS);
      const check = (): void => {
        if (calls >= n) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    }),
  };
}

/** fs.watch behind the seam, recording every file name after the watcher has handled it. */
function observingWatch(): { watch: WatchDir; seen: (string | null)[]; until: (name: string) => Promise<void> } {
  const seen: (string | null)[] = [];
  let waiters: (() => void)[] = [];
  const observe: WatchDir = (dir, onEvent) => watch(dir, { persistent: false }, (_event, filename) => {
    const name = filename == null ? null : String(filename);
    onEvent(name);
    seen.push(name);
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  });
  const until = (name: string): Promise<void> => new Promise((resolve) => {
    const check = (): void => {
      if (seen.includes(name)) resolve();
      else waiters.push(check);
    };
    check();
  });
  return { watch: observe, seen, until };
}

test('a rename-replace of state.json wakes the listener', async (t) => {
  const stateDir = stateDirIn(t);
  saveState(stateDir, '{"v":0}');
  const calls = counter();
  watched(t, stateDir).onChange(calls.listener);
  saveState(stateDir, '{"v":1}');
  await calls.reach(1);
  // The watch is on the directory, so it survives the replaced inode.
  saveState(stateDir, '{"v":2}');
  await calls.reach(2);
});

test('a burst of saves wakes the listener at once, and at most once more when the window ends', { timeout: WAIT_MS }, async (t) => {
  const stateDir = stateDirIn(t);
  const observer = observingWatch();
  const calls = counter();
  watched(t, stateDir, { watch: observer.watch, debounceMs: 5 }).onChange(calls.listener);
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  for (let i = 0; i < 5; i += 1) saveState(stateDir, `{"v":${i}}`);
  writeFileSync(join(stateDir, 'sentinel'), 'x');
  await observer.until('sentinel');
  await settle();
  assert.ok(observer.seen.filter((name) => name === 'state.json').length >= 1);
  assert.equal(calls.count(), 1, 'the first change wakes the listener without waiting for a timer');
  t.mock.timers.tick(5);
  const afterWindow = calls.count();
  assert.ok(afterWindow === 1 || afterWindow === 2, `woke ${afterWindow} times for one burst`);
  t.mock.timers.tick(1_000);
  assert.equal(calls.count(), afterWindow, 'nothing more once the burst is over');
});

test('changes inside the window after a wake-up give exactly one more wake-up at its end', { timeout: WAIT_MS }, async (t) => {
  const stateDir = stateDirIn(t);
  const observer = observingWatch();
  const calls = counter();
  watched(t, stateDir, { watch: observer.watch, debounceMs: 50 }).onChange(calls.listener);
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  saveState(stateDir, '{"v":1}');
  await observer.until('state.json');
  await settle();
  assert.equal(calls.count(), 1);
  saveState(stateDir, '{"v":2}');
  saveState(stateDir, '{"v":3}');
  writeFileSync(join(stateDir, 'sentinel'), 'x');
  await observer.until('sentinel');
  await settle();
  assert.equal(calls.count(), 1, 'later changes wait for the window to end');
  t.mock.timers.tick(50);
  assert.equal(calls.count(), 2);
  t.mock.timers.tick(1_000);
  assert.equal(calls.count(), 2);
});

test('lock, temp and other files in the directory do not wake the listener', { timeout: WAIT_MS }, async (t) => {
  const stateDir = stateDirIn(t);
  saveState(stateDir, '{"v":0}');
  const observer = observingWatch();
  const calls = counter();
  watched(t, stateDir, { watch: observer.watch }).onChange(calls.listener);
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  writeFileSync(join(stateDir, '.state.lock'), '{"pid":1}', { flag: 'wx' });
  rmSync(join(stateDir, '.state.lock'));
  writeFileSync(join(stateDir, '.state.1.abcd.tmp'), '{}');
  rmSync(join(stateDir, '.state.1.abcd.tmp'));
  mkdirSync(join(stateDir, 'pins'));
  writeFileSync(join(stateDir, 'pins', 'm.json'), '{}');
  writeFileSync(join(stateDir, 'sentinel'), 'x');
  await observer.until('sentinel');
  assert.ok(observer.seen.includes('.state.lock'), 'the lock file event did reach the watcher');
  t.mock.timers.tick(10_000);
  assert.equal(calls.count(), 0);
});

test('close cancels a pending trailing wake-up and stops watching', { timeout: WAIT_MS }, async (t) => {
  const stateDir = stateDirIn(t);
  const observer = observingWatch();
  const calls = counter();
  const watcher = watched(t, stateDir, { watch: observer.watch, debounceMs: 50 });
  watcher.onChange(calls.listener);
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  saveState(stateDir, '{"v":1}');
  await observer.until('state.json');
  await settle();
  assert.equal(calls.count(), 1);
  // A second change inside the window leaves a trailing wake-up pending.
  saveState(stateDir, '{"v":2}');
  writeFileSync(join(stateDir, 'sentinel'), 'x');
  await observer.until('sentinel');
  watcher.close();
  t.mock.timers.tick(10_000);
  await settle();
  assert.equal(calls.count(), 1);

  // A second, independent watch proves later saves were really made.
  const later = observingWatch();
  const probe = later.watch(stateDir, () => undefined);
  t.after(() => probe.close());
  saveState(stateDir, '{"v":3}');
  await later.until('state.json');
  t.mock.timers.tick(10_000);
  await settle();
  assert.equal(calls.count(), 1);
});

test('an unsubscribed listener is not called; the others still are', async (t) => {
  const stateDir = stateDirIn(t);
  const kept = counter();
  const dropped = counter();
  const watcher = watched(t, stateDir);
  watcher.onChange(kept.listener);
  const unsubscribe = watcher.onChange(dropped.listener);
  unsubscribe();
  saveState(stateDir, '{"v":1}');
  await kept.reach(1);
  assert.equal(dropped.count(), 0);
});

test('a listener that throws is logged and does not stop the others', async (t) => {
  const stateDir = stateDirIn(t);
  const lines: string[] = [];
  const calls = counter();
  const watcher = watched(t, stateDir, { log: (line) => lines.push(line) });
  watcher.onChange(() => {
    throw new Error('boom');
  });
  watcher.onChange(calls.listener);
  saveState(stateDir, '{"v":1}');
  await calls.reach(1);
  assert.ok(lines.some((line) => line.includes('boom')));
});

test('where fs.watch throws, the stat poll notices a replaced state.json', { timeout: WAIT_MS }, async (t) => {
  const stateDir = stateDirIn(t);
  saveState(stateDir, '{"v":0}');
  const lines: string[] = [];
  const calls = counter();
  const unavailable: WatchDir = () => {
    throw Object.assign(new Error('watching is not supported here'), { code: 'ENOSYS' });
  };
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  watched(t, stateDir, { watch: unavailable, pollMs: 2_000, log: (line) => lines.push(line) }).onChange(calls.listener);
  assert.ok(lines.some((line) => line.includes('polling')));
  t.mock.timers.tick(2_000 + 5);
  await settle();
  assert.equal(calls.count(), 0, 'an unchanged file does not fire');
  saveState(stateDir, '{"v":1}');
  t.mock.timers.tick(2_000);
  await settle();
  assert.equal(calls.count(), 1);
  t.mock.timers.tick(2_000 + 5);
  await settle();
  assert.equal(calls.count(), 1, 'the same file does not fire twice');
});

test('a watch that fails later with an error falls back to the poll', { timeout: WAIT_MS }, async (t) => {
  const stateDir = stateDirIn(t);
  saveState(stateDir, '{"v":0}');
  const handles: (EventEmitter & DirWatch)[] = [];
  const failing: WatchDir = () => {
    const handle = Object.assign(new EventEmitter(), { close: () => undefined });
    handles.push(handle);
    return handle;
  };
  const calls = counter();
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  watched(t, stateDir, { watch: failing, pollMs: 100 }).onChange(calls.listener);
  assert.equal(handles.length, 1);
  handles[0]!.emit('error', new Error('EMFILE'));
  saveState(stateDir, '{"v":1}');
  t.mock.timers.tick(100);
  await settle();
  assert.equal(calls.count(), 1);
});

// A poll too slow to matter within the wait, so only a watch can pass these.
const NO_POLL_MS = 600_000;

test('a state directory created later is picked up by watching the project dir', async (t) => {
  const stateDir = stateDirIn(t, false);
  const calls = counter();
  watched(t, stateDir, { pollMs: NO_POLL_MS }).onChange(calls.listener);
  mkdirSync(stateDir);
  saveState(stateDir, '{"v":1}');
  await calls.reach(1);
});

test('where the project dir cannot be watched, a poll waits for the state directory, then a real watch takes over', async (t) => {
  const stateDir = stateDirIn(t, false);
  const watchedDirs: string[] = [];
  const onlyStateDir: WatchDir = (dir, onEvent) => {
    watchedDirs.push(dir);
    if (dir !== stateDir) throw Object.assign(new Error('not here'), { code: 'ENOSYS' });
    return watch(dir, { persistent: false }, (_event, filename) => onEvent(filename == null ? null : String(filename)));
  };
  const calls = counter();
  watched(t, stateDir, { watch: onlyStateDir, pollMs: 10 }).onChange(calls.listener);
  mkdirSync(stateDir);
  saveState(stateDir, '{"v":1}');
  await calls.reach(1);
  assert.ok(watchedDirs.includes(stateDir), 'the state directory got a real watch');
  const seen = calls.count();
  saveState(stateDir, '{"v":2}');
  await calls.reach(seen + 1);
});

test('a state directory removed and created again is watched again', async (t) => {
  const stateDir = stateDirIn(t);
  const calls = counter();
  watched(t, stateDir, { pollMs: NO_POLL_MS }).onChange(calls.listener);
  saveState(stateDir, '{"v":1}');
  await calls.reach(1);
  rmSync(stateDir, { recursive: true });
  // The removal of state.json is a change too; once it has been reported the
  // old watch is gone, so the next call can only come from a new watch.
  await calls.reach(2);
  mkdirSync(stateDir);
  saveState(stateDir, '{"v":2}');
  await calls.reach(3);
});
