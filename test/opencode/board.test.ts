// The board in OpenCode: each turn's system prompt restates the tasks the
// session's member holds (so claims outlive compaction, as the role does),
// and a member the board rang for work is prompted once, while idle, with
// the fixed notice and no task text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as engine from '../../src/engine';
import { channelWith, memberOf, startHarness } from './helpers';
import { edit } from '../helpers/edit';

test('a member holding a claim gets the claims digest in every turn\'s system prompt; one holding none does not', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A', 'ses_B']); } });
  const a = memberOf(h.store, 'ses_A');
  await edit(h.store, (state, ctx) => {
    engine.addTask(state, 'person-ada', { title: 'Port the cache', paths: ['src/cache/**'], project_dir: h.dir }, ctx);
    return engine.claimTask(state, a, 't1', ctx);
  });
  const output = { system: [] as string[] };
  await h.plugin.hooks['experimental.chat.system.transform']({ sessionID: 'ses_A' }, output);
  const digest = output.system.find((s) => s.startsWith('[OpenComms] You hold 1 task(s)'));
  assert.ok(digest, JSON.stringify(output.system));
  assert.ok(digest.length <= 600);
  assert.match(digest, /t1 \(claimed \d+ min ago; paths src\/cache\/\*\*\)/);
  const other = { system: [] as string[] };
  await h.plugin.hooks['experimental.chat.system.transform']({ sessionID: 'ses_B' }, other);
  assert.equal(other.system.some((s) => s.includes('You hold')), false);
});

test('a member waiting for work is prompted once when a task becomes ready, with no task text; the wake leaves the board', async (t) => {
  const h = await startHarness(t, { setup: async ({ store, dir }) => { await channelWith(store, dir, ['ses_A']); } });
  const a = memberOf(h.store, 'ses_A');
  await h.plugin.hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_A' } } });
  await h.plugin.settle();
  await edit(h.store, (state, ctx) => {
    engine.recordPresence(state, a, { pid: process.pid, machine: 'm', start: null, kind: 'plugin' }, ctx.now(), 10_000);
    return engine.nextTask(state, a, ctx);
  });
  await edit(h.store, (state, ctx) => engine.addTask(state, 'person-ada', { title: 'SECRET-4711 port it', project_dir: h.dir }, ctx));
  assert.ok(h.store.snapshot().board!.wakes[a]);
  h.watcher.fire();
  await h.plugin.settle();
  h.watcher.fire();
  await h.plugin.settle();
  const wakes = h.client.prompts.filter((p) => p.text.includes('a task is ready'));
  assert.deepEqual(wakes, [{ id: 'ses_A', text: 'OpenComms: a task is ready: call opencomms_task with action next.' }]);
  assert.deepEqual(h.store.snapshot().board!.wakes, {});
});
