// Held mail said as held, through the shipped server (issue 35, item 13): once
// the loop guard pauses a channel, the recipient's pull, its status and the
// operator's `opencomms status` say how much waits, that the loop guard
// paused it and what a person runs to lift it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DIST, runCli, tempProject } from '../helpers/server';
import { channelOf, ok } from './tools-support';

test('after the loop guard pauses a channel, the recipient\'s pull and status say what is held and how a person lifts it', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await channelOf(t, project, 'tiny', ['writer', 'reviewer'], { max_agent_streak: 2 });
  await ok(writer!, 'opencomms_send', { channel: 'tiny', content: 'one' });
  const tripping = await ok(writer!, 'opencomms_send', { channel: 'tiny', content: 'two' });
  assert.deepEqual(tripping.data.held.map((h: any) => [h.channel, h.count, h.paused_by]), [['tiny', 2, 'loop_guard']]);

  const pulled = await ok(reviewer!, 'opencomms_pull', {});
  assert.deepEqual(pulled.data.message_ids, []);
  assert.doesNotMatch(pulled.message, /No pending messages/);
  assert.deepEqual(pulled.data.held.map((h: any) => [h.channel, h.count, h.paused_by, h.lift]), [['tiny', 2, 'loop_guard', 'opencomms resume tiny']]);
  assert.match(pulled.message, /2 messages wait in channel "tiny", paused by the loop guard/);

  const status = await ok(reviewer!, 'opencomms_status', {});
  assert.deepEqual(status.data.held.map((h: any) => [h.channel, h.count, h.pauser]), [['tiny', 2, 'loop_guard']]);
  const plain = await runCli(['status', '--project', project], { cwd: project });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /held: 2 messages wait in channel "tiny", paused by the loop guard /);
  // Run as `node <path>/dist/opencomms.js`, the CLI suggests that form, not an `opencomms` the shell may not know.
  assert.ok(plain.stdout.includes(`\`node ${DIST} resume tiny\``), plain.stdout);
});
