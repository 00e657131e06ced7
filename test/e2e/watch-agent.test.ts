// `opencomms watch --member ID` end to end: real server processes send, a
// real watch process prints. "No line" is never asserted after a sleep: a
// later line that must come after the one that must not, or an event from a
// parallel --json watch, is the evidence that the change was seen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { DIST, runCli, tempProject } from '../helpers/server';
import { create, join, member, ok } from './tools-support';
import { LineReader, startWatch, watchEnv } from '../watch/watch-process';

test('one line per new mail batch, never the content, nothing for own sends or for changes without new mail', async (t) => {
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  const third = await member(t, project, 'sess_third');
  await create(writer, 'review', 'writer');
  await join(reviewer, 'review', 'reviewer');
  await join(third, 'review', 'third');
  const people = startWatch(t, ['--project', project, '--json']);
  await people.event('the people view is up', (e) => e.event === 'watching');
  const agent = startWatch(t, ['--project', project, '--member', 'sess_reviewer']);

  await ok(writer, 'opencomms_send', { channel: 'review', to: 'reviewer', content: 'SECRET-one-4711' });
  const first = await agent.line(1);
  assert.match(first, /^1 OpenComms message waits for you: from writer on channel review\. Call opencomms_pull/);

  // Changes that bring the reviewer nothing new.
  await ok(reviewer, 'opencomms_send', { channel: 'review', to: 'writer', content: 'own send' });
  await ok(writer, 'opencomms_send', { channel: 'review', to: 'third', content: 'for the third' });
  // Each change seen by the people view before the next is made: a pause and a
  // resume read by a watch in one go would show it nothing to report.
  await ok(writer, 'opencomms_pause', { channel: 'review' });
  await people.event('paused', (e) => e.event === 'paused');
  await ok(writer, 'opencomms_resume', { channel: 'review' });
  await people.event('resumed', (e) => e.event === 'resumed');

  // The next line must be for this later mail, so none came in between.
  await ok(writer, 'opencomms_send', { channel: 'review', to: 'reviewer', content: 'SECRET-two-4711' });
  const second = await agent.line(2);
  assert.match(second, /^2 OpenComms messages wait for you \(1 new\): from writer on channel review\./);

  // A pull brings nothing new either; once the people view shows it delivered, still two lines.
  const pulled = await ok(reviewer, 'opencomms_pull', {});
  const lastId = pulled.data.message_ids[pulled.data.message_ids.length - 1];
  await people.event('the pull delivered', (e) => e.event === 'delivered' && e.message_id === lastId);
  assert.equal(agent.lines.length, 2);
  assert.equal(agent.lines.join('\n').includes('SECRET'), false);
  assert.equal(agent.stderr, '');
});

test('mail waiting at start gives one line at once; closing stdin ends the watch with 0', async (t) => {
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  await create(writer, 'review', 'writer');
  await join(reviewer, 'review', 'reviewer');
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'a' });
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'b' });

  const agent = startWatch(t, ['--project', project, '--member', 'sess_reviewer']);
  assert.match(await agent.line(1), /^2 OpenComms messages wait for you: from writer on channel review\./);
  agent.child.stdin!.end();
  assert.deepEqual(await agent.exit(), { code: 0, signal: null });
  assert.equal(agent.lines.length, 1);
});

test('SIGTERM ends the agent watch with 0', async (t) => {
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  await create(writer, 'review', 'writer');
  const agent = startWatch(t, ['--project', project, '--member', 'sess_writer']);
  // A line first, so the signal reaches a watch that is up and working.
  const reviewer = await member(t, project, 'sess_reviewer');
  await join(reviewer, 'review', 'reviewer');
  await ok(reviewer, 'opencomms_send', { channel: 'review', content: 'hello' });
  await agent.line(1);
  agent.child.kill('SIGTERM');
  assert.deepEqual(await agent.exit(), { code: 0, signal: null });
});

test('the watch ends when its parent process dies, even with stdin on /dev/null', async (t) => {
  const project = tempProject(t);
  const writer = await member(t, project, 'sess_writer');
  const reviewer = await member(t, project, 'sess_reviewer');
  await create(writer, 'review', 'writer');
  await join(reviewer, 'review', 'reviewer');
  await ok(writer, 'opencomms_send', { channel: 'review', content: 'wake up' });

  // The parent shares its stdout with the watch, so our pipe closes only when both are gone.
  const script = `
    const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, ${JSON.stringify([DIST, 'watch', '--project', project, '--member', 'sess_reviewer'])},
      { stdio: ['ignore', 'inherit', 'inherit'] });
    process.stdout.write('child ' + child.pid + '\\n');`;
  const parent = spawn(process.execPath, ['-e', script], { env: watchEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const out = new LineReader(parent);
  t.after(() => {
    const line = out.lines.find((l) => l.startsWith('child '));
    if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
    if (line && !out.isClosed) {
      try {
        process.kill(Number(line.slice(6)), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  await out.matching(/^child \d+$/);
  // The mail line proves the watch is up, and that /dev/null did not end it.
  await out.matching(/OpenComms message waits for you/);
  parent.kill('SIGKILL');
  await out.waitFor('the watch to exit after its parent', () => (out.isClosed ? true : undefined));
  assert.equal(out.lines.filter((l) => l.includes('OpenComms')).length, 1);
});

test('a malformed member id exits 2 with one line on stderr and nothing on stdout', async (t) => {
  const project = tempProject(t);
  const result = await runCli(['watch', '--project', project, '--member', 'not a member!'], { env: { OPENCOMMS_PROJECT_DIR: undefined } });
  assert.equal(result.code, 2);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr.trim().split('\n').length, 1);
  assert.match(result.stderr, /--member/);
});
