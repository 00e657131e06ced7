// `opencomms watch` (the people view, stdout a pipe) followed through a whole
// scripted conversation: create, join, send, pull, pause, resume, and both
// members disconnecting. After each step the test waits (bounded, woken by
// the watch's own output) for that step's lines, checks them, and at the end
// checks the complete stream: every event, once, in the order it happened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempProject, type ServerProcess } from '../helpers/server';
import { create, join, member, ok } from './tools-support';
import { startWatch, type WatchProcess } from '../watch/watch-process';

type Step = (servers: { writer: ServerProcess; reviewer: ServerProcess }) => Promise<unknown>;

/** Runs `action`, waits until `count` new lines follow it, and returns exactly those lines. */
async function step(watch: WatchProcess, what: string, count: number, action: () => Promise<unknown>): Promise<string[]> {
  const before = watch.lines.length;
  await action();
  await watch.waitFor(`${count} line(s) after ${what}`, () => (watch.lines.length - before >= count ? true : undefined));
  return watch.lines.slice(before, before + count);
}

// A scripted conversation, as the steps each side takes. `messageId` is
// filled by the send step so later expectations can name the message.
function conversation(ids: { message?: string }): [string, number, Step][] {
  return [
    ['create', 2, ({ writer }) => create(writer, 'seq', 'writer')], // created + the creator joining
    ['join', 1, ({ reviewer }) => join(reviewer, 'seq', 'reviewer')],
    ['send', 1, async ({ writer }) => {
      const sent = await ok(writer, 'opencomms_send', { channel: 'seq', content: 'SECRET-sequence-2207' });
      ids.message = sent.data.message_ids[0];
    }],
    ['pull', 1, ({ reviewer }) => ok(reviewer, 'opencomms_pull', {})],
    ['pause', 1, ({ writer }) => ok(writer, 'opencomms_pause', { channel: 'seq' })],
    ['resume', 1, ({ writer }) => ok(writer, 'opencomms_resume', { channel: 'seq' })],
    ['the reviewer disconnects', 1, ({ reviewer }) => ok(reviewer, 'opencomms_disconnect', { channel: 'seq' })],
    ['the writer, the last member, disconnects', 1, ({ writer }) => ok(writer, 'opencomms_disconnect', { channel: 'seq' })],
  ];
}

test('plain lines follow a scripted conversation step by step, in order, without content', async (t) => {
  const project = tempProject(t);
  const people = startWatch(t, ['--project', project]);
  await people.matching(/^\d\d:\d\d:\d\d watching .*: 0 channel\(s\), 0 pending$/);
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  const ids: { message?: string } = {};

  const expected: Record<string, (id: string) => RegExp[]> = {
    create: () => [/^channel seq created$/, /^writer \(sess_writer\) joined seq \(host mcp, \w+\)$/],
    join: () => [/^reviewer \(sess_reviewer\) joined seq \(host mcp, \w+\)$/],
    send: (id) => [new RegExp(`^seq: writer -> reviewer sent manual ${id}$`)],
    pull: (id) => [new RegExp(`^seq: ${id} delivered to reviewer by pull$`)],
    pause: () => [/^channel seq paused$/],
    resume: () => [/^channel seq resumed$/],
    'the reviewer disconnects': () => [/^reviewer \(sess_reviewer\) left seq$/],
    'the writer, the last member, disconnects': () => [/^channel seq removed$/],
  };

  const all: string[] = [];
  for (const [what, count, action] of conversation(ids)) {
    const lines = await step(people, what, count, () => action({ writer, reviewer }));
    const patterns = expected[what]!(ids.message ?? '');
    assert.equal(lines.length, patterns.length);
    lines.forEach((line, i) => {
      const m = /^(\d\d:\d\d:\d\d) (.*)$/.exec(line);
      assert.ok(m, `no time stamp on ${JSON.stringify(line)}`);
      assert.match(m[2]!, patterns[i]!, `after ${what}`);
    });
    all.push(...lines);
  }

  // Ending the watch flushes nothing new: the stream above was the whole story.
  people.child.kill('SIGINT');
  assert.deepEqual(await people.exit(), { code: 0, signal: null });
  assert.deepEqual(people.lines.slice(1), all, 'no event was repeated, dropped or reordered');
  assert.equal(people.lines.some((l) => l.includes('SECRET') || l.includes('\u001b')), false);
});

test('--json: every line parses, and the event sequence matches the conversation', async (t) => {
  const project = tempProject(t);
  const people = startWatch(t, ['--project', project, '--json']);
  await people.event('the watching line', (e) => e.event === 'watching');
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  const ids: { message?: string } = {};

  for (const [what, count, action] of conversation(ids)) {
    const lines = await step(people, what, count, () => action({ writer, reviewer }));
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `after ${what}: ${line}`);
  }
  people.child.kill('SIGINT');
  assert.deepEqual(await people.exit(), { code: 0, signal: null });

  const events = people.lines.map((l) => JSON.parse(l) as Record<string, any>);
  for (const e of events) assert.equal(typeof e.at, 'number');
  assert.deepEqual(events.map((e) => e.event), [
    'watching', 'created', 'joined', 'joined', 'sent', 'delivered', 'paused', 'resumed', 'left', 'removed',
  ]);
  // Stamps never go backwards: the stream is in the order things were seen.
  for (let i = 1; i < events.length; i++) assert.ok(events[i]!.at >= events[i - 1]!.at);
  const [, created, joinedWriter, joinedReviewer, sent, delivered, paused, resumed, left, removed] = events;
  assert.equal(created!.channel, 'seq');
  const channelId = created!.channel_id;
  for (const e of events.slice(1)) assert.equal(e.channel_id, channelId, `${e.event} names the channel`);
  assert.deepEqual([joinedWriter!.member_id, joinedWriter!.role], ['sess_writer', 'writer']);
  assert.deepEqual([joinedReviewer!.member_id, joinedReviewer!.role], ['sess_reviewer', 'reviewer']);
  assert.equal(sent!.message_id, ids.message);
  assert.deepEqual([sent!.from_id, sent!.to_id, sent!.message_type], ['sess_writer', 'sess_reviewer', 'manual']);
  assert.deepEqual([delivered!.message_id, delivered!.delivery_method], [ids.message, 'pull']);
  assert.equal(paused!.channel, 'seq');
  assert.equal(resumed!.channel, 'seq');
  assert.deepEqual([left!.member_id, left!.role], ['sess_reviewer', 'reviewer']);
  assert.equal(removed!.channel, 'seq');
  assert.equal(people.lines.join('\n').includes('SECRET'), false);
});
