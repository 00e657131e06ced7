// After a corrupt state.json is quarantined, tool refusals say so, through the
// shipped server (issue 35, item 14): a send to a channel the lost state held
// is refused with `state_quarantined`, naming the copy that is on disk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempProject } from '../helpers/server';
import { channelOf, ok, refused, statePath } from './tools-support';

test('a send to a channel lost with a corrupt state.json is refused as state_quarantined, naming where the state went', async (t) => {
  const project = tempProject(t);
  const [writer] = await channelOf(t, project, 'dev', ['writer', 'reviewer']);
  await ok(writer!, 'opencomms_send', { channel: 'dev', content: 'before' });
  writeFileSync(statePath(project), '{"schema_version": 2, "channels": ');
  const refusal = await refused(writer!, 'opencomms_send', { channel: 'dev', content: 'after' }, 'state_quarantined');
  const name: string = refusal.data.preserved_as;
  assert.match(name, /^state\.corrupt-\d+\.json$/);
  assert.ok(existsSync(join(project, '.opencomms', name)), 'the copy is where the refusal says');
  assert.ok(refusal.message.includes(join(project, '.opencomms')), refusal.message);
  await refused(writer!, 'opencomms_pull', { channel: 'dev' }, 'state_quarantined');
});
