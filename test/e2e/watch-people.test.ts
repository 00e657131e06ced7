// `opencomms watch` without --member, end to end: the --json event stream
// and the plain lines a non-TTY stdout gets, from real server processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempProject } from '../helpers/server';
import { create, join, member, ok } from './tools-support';
import { startWatch } from '../watch/watch-process';

test('--json prints one object per event: created, joined, sent, delivered after a pull, paused; SIGINT exits 0', async (t) => {
  const project = tempProject(t);
  const people = startWatch(t, ['--project', project, '--json']);
  const start = await people.event('the watching line', (e) => e.event === 'watching');
  assert.equal(start.channels, 0);
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  await create(writer, 'review', 'writer');
  await join(reviewer, 'review', 'reviewer');
  const joined = await people.event('the reviewer joined', (e) => e.event === 'joined' && e.member_id === 'sess_reviewer');
  assert.equal(joined.channel, 'review');
  assert.equal(joined.role, 'reviewer');
  await people.event('the channel created', (e) => e.event === 'created' && e.channel === 'review');

  const sent = await ok(writer, 'opencomms_send', { channel: 'review', content: 'SECRET-people-4711' });
  const [id] = sent.data.message_ids;
  const sentEvent = await people.event('the send', (e) => e.event === 'sent' && e.message_id === id);
  assert.equal(sentEvent.from_role, 'writer');
  assert.equal(sentEvent.to_id, 'sess_reviewer');
  await ok(reviewer, 'opencomms_pull', {});
  const delivered = await people.event('the delivery', (e) => e.event === 'delivered' && e.message_id === id);
  assert.equal(delivered.delivery_method, 'pull');
  await ok(writer, 'opencomms_pause', { channel: 'review' });
  await people.event('the pause', (e) => e.event === 'paused' && e.channel === 'review');

  assert.equal(people.lines.join('\n').includes('SECRET'), false);
  for (const line of people.lines) assert.equal(typeof JSON.parse(line).at, 'number');
  people.child.kill('SIGINT');
  assert.deepEqual(await people.exit(), { code: 0, signal: null });
});

test('a non-TTY stdout gets one plain line per event; SIGINT exits 0', async (t) => {
  const project = tempProject(t);
  const people = startWatch(t, ['--project', project]);
  await people.matching(/^\d\d:\d\d:\d\d watching .*: 0 channel\(s\), 0 pending$/);
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  await create(writer, 'review', 'writer');
  await join(reviewer, 'review', 'reviewer');
  await people.matching(/^\d\d:\d\d:\d\d channel review created$/);
  await people.matching(/^\d\d:\d\d:\d\d reviewer \(sess_reviewer\) joined review \(host mcp, \w+\)$/);
  await ok(writer, 'opencomms_pause', { channel: 'review' });
  await people.matching(/^\d\d:\d\d:\d\d channel review paused$/);
  assert.equal(people.lines.some((l) => l.includes('\u001b')), false);
  people.child.kill('SIGINT');
  assert.deepEqual(await people.exit(), { code: 0, signal: null });
});
