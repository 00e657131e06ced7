// Saved sessions over MCP: save, resume (the name ladder), delete with
// confirmation, and archive ids that cannot leave the archives folder. The
// save runs on real server processes; the rest of the table on the same
// servers in this process (tools-support's localChannelOf).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { tempProject } from '../helpers/server';
import { channelOf, join, localChannelOf, localMember, ok, refused, statePath } from './tools-support';

function archiveFile(project: string, id: string): string {
  return joinPath(project, '.opencomms', 'archives', `${id}.json`);
}

function liveChannels(project: string): string[] {
  return Object.keys(JSON.parse(readFileSync(statePath(project), 'utf8')).channels);
}

test('save_session writes archives/<chn_id>.json and removes the live channel', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await channelOf(t, project, 'review', ['writer', 'reviewer']);
  await ok(writer!, 'opencomms_send', { channel: 'review', content: 'one' });
  const saved = await ok(writer!, 'opencomms_save_session', { channel: 'review', summary: 'done for today' });
  assert.match(saved.data.archive_id, /^chn_/);
  assert.equal(saved.data.message_count, 1);

  const archive = JSON.parse(readFileSync(archiveFile(project, saved.data.archive_id), 'utf8'));
  assert.equal(archive.channel_id, saved.data.archive_id);
  assert.equal(archive.name, 'review');
  assert.equal(archive.summary, 'done for today');
  assert.deepEqual(archive.members.map((m: { session_id: string }) => m.session_id), ['sess_writer', 'sess_reviewer']);
  assert.deepEqual(liveChannels(project), []);
  await refused(reviewer!, 'opencomms_send', { channel: 'review', content: 'still there?' }, 'channel_not_found');
  assert.deepEqual((await ok(reviewer!, 'opencomms_status', {})).data.channels, []);
});

test('resume_session opens the archive under its name, then <name>-r2, for archived members only', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await localChannelOf(t, project, 'review', ['writer', 'reviewer']);
  const saved = await ok(writer!, 'opencomms_save_session', { channel: 'review' });
  const outsider = await localMember(t, project, 'sess_outsider');
  await refused(outsider, 'opencomms_resume_session', { channel: 'review' }, 'not_archived_member');
  assert.deepEqual(liveChannels(project), []);

  const first = await ok(writer!, 'opencomms_resume_session', { channel: 'review' });
  assert.equal(first.data.name, 'review');
  const second = await ok(reviewer!, 'opencomms_resume_session', { channel: saved.data.archive_id });
  assert.equal(second.data.name, 'review-r2');
  assert.equal(second.data.parent_channel_id, saved.data.archive_id);
  assert.deepEqual(liveChannels(project).sort(), ['review', 'review-r2']);
  await join(reviewer!, 'review-r2', 'reviewer');
});

test('delete_session without confirm=true is refused with confirm_required and deletes nothing', async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'review', ['writer', 'reviewer']);
  await refused(writer!, 'opencomms_delete_session', { channel: 'review', confirm: false }, 'confirm_required');
  assert.deepEqual(liveChannels(project), ['review']);
  const saved = await ok(writer!, 'opencomms_save_session', { channel: 'review' });
  await refused(writer!, 'opencomms_delete_session', { channel: saved.data.archive_id, confirm: false }, 'confirm_required');
  assert.ok(existsSync(archiveFile(project, saved.data.archive_id)));
});

test('delete_session with confirm=true removes a live channel, or an archive of its member', async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'live', ['writer', 'reviewer']);
  const live = await ok(writer!, 'opencomms_delete_session', { channel: 'live', confirm: true });
  assert.equal(live.data.phase, 'live');
  assert.deepEqual(liveChannels(project), []);

  const [again] = await localChannelOf(t, project, 'kept', ['editor', 'critic']);
  const saved = await ok(again!, 'opencomms_save_session', { channel: 'kept' });
  const gone = await ok(again!, 'opencomms_delete_session', { channel: saved.data.archive_id, confirm: true });
  assert.equal(gone.data.phase, 'archive');
  assert.equal(existsSync(archiveFile(project, saved.data.archive_id)), false);
  assert.deepEqual((await ok(again!, 'opencomms_archive', { mode: 'list' })).data.archives, []);
});

for (const id of ['../../victim', 'chn_x/../../../victim', '..\\..\\victim', '/etc/passwd', 'chn_../../victim']) {
  test(`an archive id like ${JSON.stringify(id)} is refused and never reaches a file outside the archives folder`, async (t) => {
    const project = tempProject(t);
    const [writer] = await localChannelOf(t, project, 'c', ['writer', 'reviewer']);
    // A readable, deletable "archive" that a traversal would land on, naming the caller as a member.
    const victim = joinPath(project, 'victim.json');
    const members = JSON.parse(readFileSync(statePath(project), 'utf8')).channels.c.members;
    const bait = JSON.stringify({ schema: 1, channel_id: id, name: 'bait', members, messages: [], saved_at: 1 });
    writeFileSync(victim, bait);
    await refused(writer!, 'opencomms_archive', { channel: id, mode: 'summary' }, 'not_found');
    await refused(writer!, 'opencomms_archive', { channel: id, mode: 'messages' }, 'not_found');
    await refused(writer!, 'opencomms_resume_session', { channel: id }, 'not_found');
    await refused(writer!, 'opencomms_delete_session', { channel: id, confirm: true }, 'not_found');
    assert.equal(readFileSync(victim, 'utf8'), bait);
    assert.deepEqual(liveChannels(project), ['c']);
  });
}

test('the same bait record under a valid id inside the archives folder is read (control for the tests above)', async (t) => {
  const project = tempProject(t);
  const [writer] = await localChannelOf(t, project, 'c', ['writer', 'reviewer']);
  const members = JSON.parse(readFileSync(statePath(project), 'utf8')).channels.c.members;
  mkdirSync(joinPath(project, '.opencomms', 'archives'), { recursive: true });
  writeFileSync(archiveFile(project, 'chn_bait'), JSON.stringify({ schema: 1, channel_id: 'chn_bait', name: 'bait', members, messages: [], saved_at: 1 }));
  const summary = await ok(writer!, 'opencomms_archive', { channel: 'chn_bait', mode: 'summary' });
  assert.equal(summary.data.name, 'bait');
});
