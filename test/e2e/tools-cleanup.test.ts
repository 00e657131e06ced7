import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempProject } from '../helpers/server';
import { channelOf, member, ok, refused } from './tools-support';

function historyFiles(project: string): string[] {
  const dir = join(project, '.opencomms', 'history');
  return existsSync(dir) ? readdirSync(dir) : [];
}

test('when the last member leaves, the channel and its history log are both removed', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await channelOf(t, project, 'c', ['writer', 'reviewer']);
  await ok(writer!, 'opencomms_send', { channel: 'c', content: 'one message for the log' });
  await ok(reviewer!, 'opencomms_pull', {});
  // The pull commits once its reply is out; the reviewer's next call waits for that commit.
  await ok(reviewer!, 'opencomms_status', {});
  assert.equal(historyFiles(project).length, 1);
  await ok(writer!, 'opencomms_disconnect', { channel: 'c' });
  assert.equal(historyFiles(project).length, 1, 'the log stays while a member remains');
  const last = await ok(reviewer!, 'opencomms_disconnect', { channel: 'c' });
  assert.equal(last.data.channel_removed, true);
  assert.deepEqual(historyFiles(project), []);
});

test('deleting an archive answers that it was deleted', async (t) => {
  const project = tempProject(t);
  const [writer] = await channelOf(t, project, 'c', ['writer', 'reviewer']);
  const saved = await ok(writer!, 'opencomms_save_session', { channel: 'c' });
  const deleted = await ok(writer!, 'opencomms_delete_session', { channel: saved.data.archive_id, confirm: true });
  assert.equal(deleted.data.phase, 'archive');
  assert.match(deleted.message, /^Deleted the archive/);
  assert.equal(existsSync(join(project, '.opencomms', 'archives', `${saved.data.archive_id}.json`)), false);
});

test('resume_session from an unpinned server is refused as unpinned before any archive lookup', async (t) => {
  const project = tempProject(t);
  const server = await member(t, project, 'has space');
  await refused(server, 'opencomms_resume_session', { channel: 'anything' }, 'unpinned');
});
