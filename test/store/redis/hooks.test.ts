// Hooks on a Redis project: the real `opencomms hook` process on one
// "machine" (a folder of its own) decides from the state another machine's
// server wrote: a reservation held elsewhere denies the edit, mail sent
// elsewhere arrives at the next prompt, and a waiter is woken by a commit
// made elsewhere (the commit notice, not a file watch).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DIST, runCli, runToExit, startServer, tempProject, type ServerProcess } from '../../helpers/server';
import { ok } from '../../e2e/tools-support';
import { DEFAULT_CODEC } from '../../../src/store/default-codec';
import { createRedisStore } from '../../../src/store/redis/redis-store';
import { configFor, SKIP_WITHOUT_REDIS, startRedis, storeEnv, type RedisServer } from './server';
import { until } from '../../helpers/wait';

const skip = SKIP_WITHOUT_REDIS;



/** A Claude Code session's server on a folder of its own. */
async function claudeServer(t: TestContext, redis: RedisServer, projectId: string, sessionId: string): Promise<ServerProcess> {
  const folder = tempProject(t);
  const server = startServer(t, {
    project: folder,
    args: ['--project', folder, '--host', 'claude-code'],
    env: { ...storeEnv(redis, projectId), CLAUDE_CODE_SESSION_ID: sessionId },
  });
  await server.initialize();
  return server;
}

function hookEnv(redis: RedisServer, projectId: string, folder: string): Record<string, string | undefined> {
  return { ...storeEnv(redis, projectId), OPENCOMMS_HOST: 'claude-code', CLAUDE_PROJECT_DIR: folder };
}

async function hook(redis: RedisServer, projectId: string, folder: string, event: Record<string, unknown>): Promise<Record<string, any>> {
  const run = await runCli(['hook'], { input: JSON.stringify({ cwd: folder, ...event }), env: hookEnv(redis, projectId, folder) });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test('a reservation held on one machine denies the edit on another; mail sent there arrives at the next prompt here', { skip }, async (t) => {
  const redis = await startRedis(t);
  const a = await claudeServer(t, redis, 'hooks-across', 'session-A');
  const b = await claudeServer(t, redis, 'hooks-across', 'session-B');
  await ok(a, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  await ok(b, 'opencomms_join', { channel: 'dev', role: 'reviewer', role_prompt: 'review' });
  await ok(a, 'opencomms_reserve', { channel: 'dev', paths: ['src/a.ts'], reason: 'splitting the module' });

  const edit = { hook_event_name: 'PreToolUse', session_id: 'session-B', tool_name: 'Edit', tool_input: { file_path: join(b.project, 'src', 'a.ts'), old_string: 'a', new_string: 'b' } };
  const denied = await hook(redis, 'hooks-across', b.project, edit);
  assert.equal(denied.hookSpecificOutput.permissionDecision, 'deny');
  assert.match(denied.hookSpecificOutput.permissionDecisionReason, /splitting the module/);

  await ok(a, 'opencomms_send', { channel: 'dev', content: 'reserved a.ts for the split' });
  const prompt = await hook(redis, 'hooks-across', b.project, { hook_event_name: 'UserPromptSubmit', session_id: 'session-B', prompt: 'go on' });
  assert.match(prompt.hookSpecificOutput.additionalContext, /reserved a\.ts for the split/);
  const inbox = await ok(b, 'opencomms_inbox', { channel: 'dev' });
  assert.equal(inbox.data.messages.length, 0, 'the hook delivered it: nothing left pending');
});

test('a waiting Stop hook on one machine is woken by mail committed on another', { skip }, async (t) => {
  const redis = await startRedis(t);
  const a = await claudeServer(t, redis, 'wait-across', 'session-A');
  const b = await claudeServer(t, redis, 'wait-across', 'session-B');
  await ok(a, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  await ok(b, 'opencomms_join', { channel: 'dev', role: 'reviewer', role_prompt: 'review' });

  const bId = (await ok(b, 'opencomms_status', {})).data.member_id as string;
  const env: Record<string, string | undefined> = { ...process.env, ...hookEnv(redis, 'wait-across', b.project) };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const waiter = spawn(process.execPath, [DIST, 'hook', '--wait', '--timeout', '60s'], { env: env as NodeJS.ProcessEnv });
  const finished = runToExit(waiter, JSON.stringify({ hook_event_name: 'Stop', session_id: 'session-B', cwd: b.project, stop_hook_active: false }), 'hook --wait');
  // Sent only once the waiter holds its lease (it has looked and found nothing),
  // so the wake-up can only come from the commit notice.
  const observer = createRedisStore({ config: configFor(redis.port, 'wait-across'), codec: DEFAULT_CODEC, projectDir: tempProject(t) });
  t.after(() => observer.close());
  await until('the waiter\'s lease', async () => {
    assert.equal(waiter.exitCode, null, 'the waiter ended before it took a lease');
    return observer.readLatest((state) => state.wait_leases?.[bId] !== undefined);
  });
  await ok(a, 'opencomms_send', { channel: 'dev', content: 'review please' });
  const done = await finished;
  assert.equal(done.code, 2, done.stderr);
  assert.match(done.stderr, /1 new message waiting for you .*channel "dev" from writer/);
});
