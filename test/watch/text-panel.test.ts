// The `v` key of the watch view: the selected message's text under the rows,
// framed behind a bar, made harmless, wrapped to the width, cut to half the
// screen with a pointer to `opencomms log` for the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from '../../src/engine/index';
import { CLEAR_SCREEN, renderScreen, textPanel, TEXT_BAR, type WatchView } from '../../src/watch/index';
import { WatchKeys } from '../../src/cli/watch-keys';
import type { Store } from '../../src/store';
import { mustOk } from '../engine/helpers';
import { world } from './support';

const DRIVERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const HOSTILE = 'first line\u001b[2J\u001b]0;pwned\u0007\r\nsecond\u202eevil\u2066 line\u2028third\u009b31m\tend\u0085fourth';

function viewWith(content: string): { view: WatchView; id: string } {
  const w = world(['a', 'b']);
  const sent = mustOk(sendMessage(w.state, { channel: 'dev', session_id: 'a', content }, w.ctx));
  return { view: w.look(), id: (sent.data!.message_ids as string[])[0]! };
}

test('the text panel frames every line of the text behind a bar, with no control or bidi character left', () => {
  const { view, id } = viewWith(HOSTILE);
  const panel = textPanel({ view, envelope: view.mail.get(id)!, columns: 120, maxLines: 20, command: 'opencomms' });
  assert.match(panel[0]!, new RegExp(`^text of manual ${id}, \\S+ on dev: R0 \\(a\\) -> R1 \\(b\\), pending$`));
  const body = panel.slice(1, -1);
  assert.deepEqual(body.map((line) => line.startsWith(TEXT_BAR)), body.map(() => true));
  assert.equal(body.length, 4, JSON.stringify(body));
  assert.equal(body[0], `${TEXT_BAR}first line\uFFFD[2J\uFFFD]0;pwned\uFFFD`);
  assert.equal(body[2], `${TEXT_BAR}third\uFFFD31m  end`);
  assert.equal(body[3], `${TEXT_BAR}fourth`);
  for (const line of panel) assert.doesNotMatch(line, DRIVERS);
  assert.equal(panel[panel.length - 1], '  (end of the text; v or Esc hides it)');
});

test('a long text is wrapped to the width and cut to the lines given, saying how much more there is and where', () => {
  const text = `${'word '.repeat(60)}\n${Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n')}`;
  const { view, id } = viewWith(text);
  const panel = textPanel({ view, envelope: view.mail.get(id)!, columns: 44, maxLines: 10, command: 'npx opencomms' });
  assert.equal(panel.length, 10);
  const head = panel.findIndex((line) => line.startsWith(TEXT_BAR));
  assert.ok(head >= 2, 'the header wraps too');
  assert.ok(panel.every((line) => line.length <= 44), panel.join('\n'));
  // 300 characters at 40 columns a line, then 40 short lines: 48 lines, of which what is left after the header and the end lines.
  const end = panel.findIndex((line, i) => i > head && !line.startsWith(TEXT_BAR));
  const body = panel.slice(head, end);
  assert.deepEqual(body.map((line) => line.length), Array(body.length).fill(44));
  assert.equal(panel.slice(end).join(''), `  (${48 - body.length} more line(s): npx opencomms log dev shows it whole; v or Esc hides it)`);
});

test('v shows the selected message\'s text on the screen, follows the selection, and v or Esc hides it', () => {
  const { view, id } = viewWith('hello from a\nsecond line');
  let redraws = 0;
  const keys = new WatchKeys({
    store: {} as Store, person: 'person-ada', projectId: 'p', view: () => view, redraw: () => redraws++, quit: () => undefined,
    here: { ok: false, reason: 'no_person_terminal', problem: 'not here' }, command: 'opencomms',
  });
  const frame = (): string => renderScreen({ project: '/p', view, recentEvents: [], at: 0, columns: 100, rows: 30, ...keys.overlay() }).slice(CLEAR_SCREEN.length);
  keys.feed('v');
  assert.deepEqual(keys.overlay().footer, ['Select a message first (j/k), then v shows its text.']);
  keys.feed('j');
  assert.equal(keys.overlay().selected, `channel:${view.mail.get(id)!.channel_id}`);
  keys.feed('jv');
  assert.equal(keys.overlay().selected, `mail:${id}`);
  const shown = frame().split('\n');
  assert.ok(shown.includes(`${TEXT_BAR}hello from a`) && shown.includes(`${TEXT_BAR}second line`), shown.join('\n'));
  assert.ok(shown.length <= 30);
  // Moving to a row that is no message shows no text; coming back shows it again.
  keys.feed('k');
  assert.equal(frame().includes(TEXT_BAR), false);
  keys.feed('j');
  assert.ok(frame().includes(`${TEXT_BAR}hello from a`));
  keys.feed('v');
  assert.equal(frame().includes(TEXT_BAR), false);
  keys.feed('v\u001b');
  assert.equal(frame().includes(TEXT_BAR), false);
  assert.equal(redraws, 7);
});
