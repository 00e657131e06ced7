// `opencomms watch` names the path that really delivered each message: a hook,
// a pull the doorbell prompted (Claude Code), or the agent's own pull. Real
// server, hook and watch processes on one project.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempProject } from '../helpers/server';
import { channelWith, claudeEvent, send } from '../hooks/support';
import { create, join, member, ok } from './tools-support';
import { startWatch } from '../watch/watch-process';

test('mail a hook hands over is shown as delivered by hook', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: 'bob-1', role: 'reviewer', host: 'mcp' },
    { id: 'alice-1', role: 'author', host: 'claude-code', hostSessionId: 's' },
  ]);
  const people = startWatch(t, ['--project', project, '--json']);
  await people.event('the watching line', (e) => e.event === 'watching');
  const [id] = await send(store, 'review', 'bob-1', 'alice-1', ['over the hook']);
  const hook = await runCli(['hook', '--project', project], {
    input: JSON.stringify(claudeEvent('UserPromptSubmit', 's')),
    env: { OPENCOMMS_MEMBER_ID: 'alice-1', OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_HOST: 'claude-code' },
  });
  assert.match(hook.stdout, /additionalContext/);
  const delivered = await people.event('the delivery', (e) => e.event === 'delivered' && e.message_id === id);
  assert.equal(delivered.delivered_via, 'hook');
});

test('a Claude Code pull after the doorbell rang is shown as by doorbell; a pull nobody rang for, as by pull', async (t) => {
  const project = tempProject(t);
  const people = startWatch(t, ['--project', project]);
  await people.matching(/ watching /);
  const writer = await member(t, project, 'sess_writer');
  const claude = await member(t, project, 'sess_claude', 'claude-code');
  const plain = await member(t, project, 'sess_plain');
  await create(writer, 'review', 'writer');
  await join(claude, 'review', 'claude');
  await join(plain, 'review', 'plain');

  const toClaude = await ok(writer, 'opencomms_send', { channel: 'review', content: 'for claude', to: 'claude' });
  await claude.waitFor('the bell', () => claude.replies.find((r) => r.method === 'notifications/claude/channel'));
  await ok(claude, 'opencomms_pull', {});
  await people.matching(new RegExp(`${toClaude.data.message_ids[0]} delivered to claude by doorbell$`));

  const toPlain = await ok(writer, 'opencomms_send', { channel: 'review', content: 'for plain', to: 'plain' });
  await ok(plain, 'opencomms_pull', {});
  await people.matching(new RegExp(`${toPlain.data.message_ids[0]} delivered to plain by pull$`));
});
