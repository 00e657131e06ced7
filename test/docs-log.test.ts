// What the documents say about `opencomms log` and the watch view's keys is
// what the code does: the example lines are printed by the printer itself,
// the numbers are the constants and the measured test's, and every key the
// help line names has a row in docs/person.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageBlock, periodLine } from '../src/cli/log';
import { LOG_PRINT_PAGE } from '../src/cli/log-index';
import { KEY_HELP } from '../src/cli/watch-keys';
import { formatIsoTime } from '../src/engine/index';
import { RESERVATION_LOG_KEPT } from '../src/engine/reservation-log';

const ROOT = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The `opencomms log` section of docs/watch.md. */
function logSection(): string {
  const doc = read('docs/watch.md');
  const start = doc.indexOf('## `opencomms log`');
  assert.ok(start >= 0, 'docs/watch.md has a log section');
  return doc.slice(start, doc.indexOf('\n## ', start + 1));
}

test('the transcript example in docs/watch.md is what log prints for it: the period line and the message block', () => {
  const section = logSection();
  const period = periodLine({
    channel: 'review', channel_id: 'chn_a0e47a2cba222f9442ddd8f811ed5b76', messages: 2, open_review_requests: 1,
    tasks: { done: 1, claimed: 1, asked: 0 }, reservations: { taken: 1, lapsed: 0 }, problems: 0,
  });
  assert.ok(section.includes(`\nthe whole history:\n${period}\n`), `docs/watch.md shows the period line as log prints it:\n${period}`);
  const at = (iso: string): number => Date.parse(iso);
  const block = messageBlock({
    channel: 'review', channel_id: 'chn_a0e47a2cba222f9442ddd8f811ed5b76', message_id: 'ocm_a3c4…', at: at('2026-12-07T05:53:49.499Z'),
    type: 'review_request', reply_to: null, thread_id: null, content: 'Please look at the parser change.',
    from: { role: 'writer', member: 'alice-1', host: 'claude-code', kind: 'agent' },
    to: { role: 'reviewer', member: 'bob-1', host: 'codex', kind: 'agent' },
    path: [
      { step: 'queued', at: at('2026-12-07T05:53:49.499Z') },
      { step: 'rung', at: at('2026-12-07T05:53:49.610Z'), via: 'codex_queue' },
      { step: 'delivered', at: at('2026-12-07T05:53:50.101Z'), via: 'codex_queue' },
      { step: 'answered', at: at('2026-12-07T05:54:12.004Z'), by: 'ocm_77e1…' },
    ],
  });
  assert.equal(formatIsoTime(at('2026-12-07T05:53:49.499Z')), '2026-12-07T05:53:49.499Z', 'premise: times print as ISO');
  assert.ok(section.includes(block), `docs/watch.md shows the message as log prints it:\n${block}`);
});

test('the numbers in docs/watch.md\'s log section are the page size, the reservation record\'s length and the measured test\'s', () => {
  const section = logSection().replace(/\s+/g, ' ');
  assert.ok(section.includes(`reads the records back ${LOG_PRINT_PAGE} at a time`), `the page is ${LOG_PRINT_PAGE} messages`);
  assert.ok(section.includes(`record of its newest ${RESERVATION_LOG_KEPT} reservation changes`), `a channel keeps ${RESERVATION_LOG_KEPT} reservation changes`);
  assert.ok(section.includes(`after each ${LOG_PRINT_PAGE} waits`));
  const e2e = read('test/e2e/log.test.ts');
  const constant = (name: string): number => Number(new RegExp(`const ${name} = ([\\d_]+);`).exec(e2e)![1]!.replace(/_/g, ''));
  const records = constant('RECORDS_PER_CHANNEL') + 1;
  const channels = (/const CHANNELS = \[([^\]]*)\]/.exec(e2e)![1]!.match(/'c\d'/g) ?? []).length;
  assert.ok(section.includes(`A history of ${(records * channels).toLocaleString('en-US')} records of ${constant('RECORD_TEXT_CHARS').toLocaleString('en-US')} characters`));
  assert.ok(section.includes(`prints in a ${constant('HEAP_LIMIT_MIB')} MiB heap on either store`));
});

test('every key the watch help names has a row in docs/person.md\'s key table', () => {
  const table = read('docs/person.md').split('\n').filter((line) => line.startsWith('| `'));
  const keys = [...KEY_HELP.matchAll(/[,:] ([a-z?])(?=[ /])/g)].map((m) => m[1]!);
  assert.deepEqual(keys, ['j', 'v', 'w', 'r', 'p', 'x', '?', 'q']);
  for (const key of keys) assert.ok(table.some((row) => row.includes(`\`${key}\``)), `docs/person.md has no row for the ${key} key`);
});
