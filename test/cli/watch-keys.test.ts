// The pieces of the watch view's keys and --notify that need no terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitKeys } from '../../src/cli/watch-keys';
import { createNotifier, notificationsFor } from '../../src/cli/watch-notify';
import type { WatchEvent } from '../../src/watch';
import { until } from '../helpers/wait';

test('terminal input splits into named keys and characters', () => {
  assert.deepEqual(splitKeys('j\u001b[Bk\u001bOA'), ['j', 'down', 'k', 'up']);
  assert.deepEqual(splitKeys('\u001b'), ['escape']);
  assert.deepEqual(splitKeys('a\r\u007f\b\u0003'), ['a', 'enter', 'backspace', 'backspace', 'ctrl-c']);
  assert.deepEqual(splitKeys('é😀'), ['é', '😀'], 'a character outside the BMP stays whole');
});

const sent = (to: string, extra: Partial<WatchEvent> = {}): WatchEvent => ({
  event: 'sent', channel: 'review', channel_id: 'chn_1', message_id: 'ocm_1', message_type: 'review_request', from_id: 'sess_w',
  from_role: 'writer', to_id: to, to_role: 'person', delivery_method: null, delivered_via: null, ...extra,
} as WatchEvent);

test('only mail to the person and a loop-guard pause notify; arguments are plain labels', () => {
  const events: WatchEvent[] = [
    sent('person-ada'), sent('sess_other'),
    { event: 'paused', channel: 'review', channel_id: 'chn_1', reason: 'agent_streak' },
    { event: 'paused', channel: 'quiet', channel_id: 'chn_2', reason: 'member' },
    sent('person-ada', { channel: 'we ird\u001b[2J', from_id: 'x y' }),
  ];
  assert.deepEqual(notificationsFor(events, 'person-ada'), [
    ['review', 'sess_w', 'review_request'], ['review', 'loop-guard', 'paused'], ['we_ird__2J', 'x_y', 'review_request'],
  ]);
});

test('a notify command with nothing in it is no notifier; one that cannot start is logged, not thrown', async () => {
  assert.equal(createNotifier('   ', 'person-ada', () => undefined), undefined);
  const logged: string[] = [];
  const notifier = createNotifier('/nonexistent/notifier-program', 'person-ada', (line) => logged.push(line))!;
  notifier.onEvents([sent('person-ada')]);
  await until('the failed start on the log', () => logged.length > 0, { timeoutMs: 5_000 });
  assert.match(logged[0]!, /--notify \/nonexistent\/notifier-program: .*ENOENT/);
});
