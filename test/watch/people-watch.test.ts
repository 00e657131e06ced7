import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pauseChannel, sendMessage } from '../../src/engine/index';
import { CLEAR_SCREEN, HIDE_CURSOR, plainLine, renderScreen, SHOW_CURSOR, startPeopleWatch, type PeopleOutput } from '../../src/watch/index';
import { mustOk } from '../engine/helpers';
import { handWatcher, world, type World } from './support';

function watching(w: World, output: PeopleOutput) {
  const out: string[] = [];
  const watcher = handWatcher();
  const watch = startPeopleWatch({
    project: '/p', stateDir: '/unused', snapshot: () => structuredClone(w.state), history: w.ctx.history, output,
    write: (text) => out.push(text), now: () => Date.UTC(2026, 0, 1, 12, 0, 0), log: () => undefined,
    size: () => ({ columns: 100, rows: 40 }), watch: () => watcher,
  });
  return { out, watcher, watch };
}

test('--json starts with a watching line, then one JSON object per event', () => {
  const w = world(['a', 'b']);
  const { out, watcher } = watching(w, 'json');
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: 'hi' }, w.ctx));
  mustOk(pauseChannel(w.state, { channel: 'dev', session_id: 'a' }, w.ctx));
  watcher.fire();
  const objects = out.map((line) => JSON.parse(line));
  assert.deepEqual(objects.map((o) => o.event), ['watching', 'sent', 'paused']);
  assert.equal(objects[0].channels, 1);
  assert.ok(out.every((line) => line.endsWith('\n') && line.indexOf('\n') === line.length - 1));
});

test('plain output prints one time-stamped line per event', () => {
  const w = world(['a', 'b']);
  const { out, watcher } = watching(w, 'lines');
  mustOk(pauseChannel(w.state, { channel: 'dev', session_id: 'a' }, w.ctx));
  watcher.fire();
  assert.deepEqual(out.slice(1), ['12:00:00 channel dev paused\n']);
});

test('the screen hides the cursor, redraws whole on each change, and shows the cursor again on close', () => {
  const w = world(['a', 'b']);
  const { out, watcher, watch } = watching(w, 'screen');
  assert.equal(out[0], HIDE_CURSOR);
  assert.ok(out[1]!.startsWith(CLEAR_SCREEN));
  mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: 'hi' }, w.ctx));
  watcher.fire();
  assert.ok(out[2]!.startsWith(CLEAR_SCREEN));
  assert.match(out[2]!, /R1 +b +host .*1 pending/);
  assert.match(out[2]!, /recent events\n.*R0 -> R1 sent manual/);
  watch.close();
  assert.equal(out[out.length - 1], `${SHOW_CURSOR}\n`);
  watch.close();
  assert.equal(out.filter((t) => t.includes(SHOW_CURSOR)).length, 1);
});

test('the screen strips control characters from peer-chosen names and fits the terminal', () => {
  const w = world(['a', 'b']);
  w.state.channels.dev!.members[1]!.role = 'evil\u001b[2Jrole';
  const frame = renderScreen({ project: '/p', view: w.look(), recentEvents: [], at: 0, columns: 30, rows: 6 });
  const body = frame.slice(CLEAR_SCREEN.length);
  assert.equal(body.includes('\u001b'), false);
  const lines = body.split('\n').filter((l) => l !== '');
  assert.ok(lines.length <= 5);
  assert.ok(lines.every((l) => l.length <= 30));
});

test('plain lines strip control characters too', () => {
  const line = plainLine({ event: 'created', channel: 'a\nb\u001b', channel_id: 'chn_x' }, 0);
  assert.equal(line, '00:00:00 channel a b  created');
});

test('in a short terminal the screen drops the oldest mail and events, and keeps the newest of each', () => {
  const w = world(['a', 'b']);
  for (let i = 1; i <= 8; i++) {
    const sent = mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content: `m${i}` }, w.ctx));
    w.state.messages[(sent.data!.message_ids as string[])[0]!]!.timestamp = i * 1000; // shown as 00:00:0i
  }
  const events = Array.from({ length: 8 }, (_, i) => `event number ${i + 1}`);
  const rows = 14;
  const body = renderScreen({ project: '/p', view: w.look(), recentEvents: events, at: 0, columns: 200, rows }).slice(CLEAR_SCREEN.length);
  const lines = body.split('\n').slice(0, -1);
  assert.ok(lines.length <= rows - 1, `${lines.length} lines for ${rows} rows:\n${body}`);
  assert.match(body, /event number 8$/m, `the newest event was cut:\n${body}`);
  assert.doesNotMatch(body, /event number 1$/m, `the oldest event was kept over newer ones:\n${body}`);
  assert.match(body, /^ {2}00:00:08 dev: /m, `the newest mail was cut:\n${body}`);
  assert.doesNotMatch(body, /^ {2}00:00:01 dev: /m, `the oldest mail was kept over newer mail:\n${body}`);
});
