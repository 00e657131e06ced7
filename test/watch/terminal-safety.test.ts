// What the people view puts on a terminal. format.ts promises "text safe to
// put on a terminal" and screen.ts "each line cut to the terminal's width".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as engine from '../../src/engine/index';
import { openStore } from '../../src/store';
import { CLEAR_SCREEN, diffViews, emptyView, plainLine, printable, renderScreen, takeView } from '../../src/watch/index';
import { cutToColumns } from '../../src/watch/screen';
import { world } from './support';
import { edit } from '../helpers/edit';

// A member id is only checked to be a non-empty string when state.json is
// loaded (state-shape.ts), unlike the role and channel name; the plain line
// and the screen must pass it through printable().
test('a member id holding terminal escapes, accepted by the state loader, is printed without its control characters', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openStore({ projectDir: dir });
  const evil = 'x\u001b]0;owned\u0007\u001b[2J';
  return edit(store, (state, ctx) => engine.createChannel(state, {
    channel: 'dev', role: 'lead', role_prompt: 'Lead.', session_id: evil, project_id: 'local-project', worktree: dir,
    host: 'mcp', surface: 'mcp', delivery_mode: 'pull',
  }, ctx)).then((created) => {
    assert.equal(created.ok, true, created.message);
    const view = takeView(store.snapshot(), store.history);
    assert.equal(view.channels.size, 1, 'premise: the loader kept the member');
    const lines = diffViews(emptyView(), view).map((e) => plainLine(e, 0));
    const frame = renderScreen({ project: dir, view, recentEvents: lines, at: 0, columns: 200, rows: 40 }).slice(CLEAR_SCREEN.length);
    for (const text of [...lines, frame]) assert.equal(/[\u0007\u001b]/.test(text), false, `control characters reach the terminal: ${JSON.stringify(text)}`);
  });
});

// Bidi overrides and isolates belong in printable()'s CONTROL class: an
// error text (free text in state.errors, e.g. an SDK error) could reorder
// what follows it on a bidi-aware terminal.
test('printable text on the screen and in plain lines carries no bidi override or isolate controls', () => {
  const w = world(['a', 'b']);
  const message = 'push to ses_a failed \u202Edetaeler ton\u202C; 0 message(s) re-queued \u2066x\u2069';
  w.state.errors.push({ at: 1, message });
  const view = w.look();
  const line = plainLine({ event: 'error', message, error_at: 1, channel_id: null, member_id: null }, 0);
  const frame = renderScreen({ project: '/p', view, recentEvents: [], at: 0, columns: 200, rows: 40 });
  for (const text of [line, frame]) assert.equal(/[\u202A-\u202E\u2066-\u2069]/.test(text), false, JSON.stringify(text));
});

// Display width of a string on a terminal: East Asian wide characters take two columns.
function columnsOf(text: string): number {
  let width = 0;
  for (const ch of text) width += /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/.test(ch) ? 2 : 1;
  return width;
}

// renderScreen cuts each line by terminal columns, not UTF-16 units: cut by
// units, a project folder with CJK characters makes the header wider than the
// terminal, it wraps, the frame outgrows `rows` and the terminal scrolls.
test('the screen fits the terminal width in columns when the project path has wide characters', () => {
  const w = world(['a', 'b']);
  const columns = 40;
  const frame = renderScreen({ project: `/home/${'项目'.repeat(30)}`, view: w.look(), recentEvents: [], at: 0, columns, rows: 12 });
  const lines = frame.slice(CLEAR_SCREEN.length).split('\n');
  for (const line of lines) assert.ok(columnsOf(line) <= columns, `a line ${columnsOf(line)} columns wide on a ${columns}-column terminal: ${line}`);
});

test('printable drops the left-to-right and right-to-left marks too', () => {
  assert.equal(printable('a\u200Eb\u200Fc'), 'a b c');
});

test('a line is cut by columns: wide characters count two, combining marks none, and a wide one that does not fit is left out', () => {
  assert.equal(cutToColumns('e\u0301e\u0301e\u0301', 2), 'e\u0301e\u0301');
  assert.equal(cutToColumns('ab项目', 5), 'ab项');
  assert.equal(cutToColumns('😀x', 2), '😀');
  assert.equal(cutToColumns('😀x', 1), '');
});
