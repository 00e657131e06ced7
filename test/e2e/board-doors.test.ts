// The board's wake through each host's own door: an idle Claude Code session
// waiting for work is rung through its inbox, an idle Codex thread through
// `codex queue`, once per wake, with the fixed notice and the wake's time,
// never the task's text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, tempProject } from '../helpers/server';
import { until } from '../helpers/wait';
import { runCliInTerminal } from '../helpers/person-terminal';
import { hookEvent, parsed, startInbox, stubCodex } from './door-support';
import { memberEnv, ok } from './tools-support';

const NOTICE = /^OpenComms: a task is ready: call opencomms_task with action next \(rung \d{4}-\d\d-\d\dT[\d:.]+Z\)\.$/;

test('an idle Claude Code session waiting for work is rung through its inbox when a person adds a task; no task text', async (t) => {
  const inbox = await startInbox(t, { kind: 'accept' });
  const project = tempProject(t);
  const worker = startServer(t, {
    project,
    args: ['--project', project, '--host', 'claude-code'],
    env: { ...memberEnv(undefined), CLAUDE_CODE_SESSION_ID: 'cc-worker', CLAUDE_CODE_MESSAGING_SOCKET: inbox.path, CLAUDE_CODE_MESSAGING_TOKEN: 'tok' },
  });
  await worker.initialize();
  const none = await ok(worker, 'opencomms_task', { action: 'next' });
  assert.equal(none.data.task, undefined);
  await hookEvent(project, { hook_event_name: 'Stop', session_id: 'cc-worker' });
  const added = await runCliInTerminal(['task', 'add', 'SECRET-4711 refactor the lexer', '--project', project]);
  assert.equal(added.code, 0, added.stderr);
  const [auth, user] = parsed(await inbox.connection(1));
  assert.deepEqual(auth, { type: 'auth', token: 'tok' });
  assert.match(user!.message.content, NOTICE);
  assert.equal(inbox.allLines().join('\n').includes('SECRET'), false);
  const taken = await ok(worker, 'opencomms_task', { action: 'next' });
  assert.equal(taken.data.task.id, 't1');
  // A later task with nobody waiting rings nothing more; the next wait and task ring again, with a notice of their own.
  await ok(worker, 'opencomms_task', { action: 'done', id: 't1' });
  await ok(worker, 'opencomms_task', { action: 'next' });
  await hookEvent(project, { hook_event_name: 'Stop', session_id: 'cc-worker' });
  await runCliInTerminal(['task', 'add', 'second', '--project', project]);
  const [, second] = parsed(await inbox.connection(2));
  assert.match(second!.message.content, NOTICE);
  assert.notEqual(second!.message.content, user!.message.content);
});

test('an idle Codex thread waiting for work is rung through codex queue on its own thread', async (t) => {
  const codex = stubCodex(t);
  const project = tempProject(t);
  const worker = startServer(t, {
    project, args: ['--project', project, '--host', 'codex'], env: { ...memberEnv(undefined), OPENCOMMS_CODEX_BIN: codex.bin },
  });
  await worker.initialize();
  const reply = await worker.request('tools/call', { name: 'opencomms_task', arguments: { action: 'next' }, _meta: { threadId: 'thr-worker' } });
  assert.equal(reply.result.structuredContent.ok, true);
  await runCliInTerminal(['task', 'add', 'SECRET-4711 port the cache', '--project', project]);
  const runs = await until('codex queue run', () => (codex.runs().length > 0 ? codex.runs() : undefined));
  const argv = runs[0]!;
  assert.deepEqual(argv.slice(0, 3), ['queue', '--thread', 'thr-worker']);
  assert.match(argv.at(-1)!, NOTICE);
  assert.equal(JSON.stringify(runs).includes('SECRET'), false);
});
