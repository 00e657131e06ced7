// `node dist/opencomms.js hook` as a host runs it: the event on stdin,
// exactly one JSON object and a newline on stdout, exit code 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { parseFrames } from '../../src/engine/index';
import { DIST, runCli, runToExit } from '../helpers/server';
import { channelWith, claudeEvent, geminiEvent, send, stateOf, statusOf, tempProject } from '../hooks/support';

const CLEAN_ENV = { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_HOST: undefined };

async function runHookCli(project: string, event: Record<string, unknown> | string, env: Record<string, string | undefined> = {}, extraArgs: string[] = []) {
  const run = await runCli(['hook', '--project', project, ...extraArgs], {
    input: typeof event === 'string' ? event : JSON.stringify(event),
    env: { ...CLEAN_ENV, ...env },
  });
  assert.match(run.stdout, /^\{.*\}\n$/s, `stdout: ${run.stdout}`);
  assert.equal(run.stdout.indexOf('\n'), run.stdout.length - 1, 'exactly one line');
  return { ...run, answer: JSON.parse(run.stdout) as Record<string, any> };
}

async function setUp(t: Parameters<typeof tempProject>[0], host = 'claude-code') {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: 'bob-1', role: 'reviewer', host: 'mcp' },
    { id: 'alice-1', role: 'author', host, hostSessionId: 's' },
  ]);
  return { project, store };
}

test('no mail: exactly "{}\\n", exit 0, nothing on stderr', async (t) => {
  const { project } = await setUp(t);
  const run = await runHookCli(project, claudeEvent('UserPromptSubmit', 's', { prompt: 'hi' }));
  assert.equal(run.code, 0);
  assert.equal(run.stdout, '{}\n');
  assert.equal(run.stderr, '');
});

test('mail at UserPromptSubmit: one additionalContext answer, then delivered', async (t) => {
  const { project, store } = await setUp(t);
  const [id] = await send(store, 'review', 'bob-1', 'alice-1', ['over the pipe']);
  const run = await runHookCli(project, claudeEvent('UserPromptSubmit', 's'));
  assert.equal(run.code, 0);
  assert.equal(run.answer.hookSpecificOutput.hookEventName, 'UserPromptSubmit');
  const frames = parseFrames(run.answer.hookSpecificOutput.additionalContext);
  assert.ok(frames.ok);
  assert.deepEqual(frames.frames.map((f) => f.content), ['over the pipe']);
  assert.equal(statusOf(store, 'review', id!), 'delivered');
});

test('Stop blocks once; the continuation with stop_hook_active answers {}', async (t) => {
  const { project, store } = await setUp(t);
  await send(store, 'review', 'bob-1', 'alice-1', ['before you go']);
  const block = await runHookCli(project, claudeEvent('Stop', 's', { stop_hook_active: false }));
  assert.equal(block.answer.decision, 'block');
  assert.match(block.answer.reason, /before you go/);
  const again = await runHookCli(project, claudeEvent('Stop', 's', { stop_hook_active: true }));
  assert.deepEqual(again.answer, {});
});

test('Gemini AfterAgent denies with the mail as the new prompt', async (t) => {
  const { project, store } = await setUp(t, 'gemini-cli');
  await send(store, 'review', 'bob-1', 'alice-1', ['gemini retry']);
  const run = await runHookCli(project, geminiEvent('AfterAgent', 's', { prompt_response: 'done' }));
  assert.equal(run.answer.decision, 'deny');
  assert.match(run.answer.reason, /gemini retry/);
});

test('the cap over the pipe: many messages give a partial batch under 10,000 characters, the rest pending', async (t) => {
  const { project, store } = await setUp(t);
  await send(store, 'review', 'bob-1', 'alice-1', Array.from({ length: 25 }, (_, i) => `m${i} ${'z'.repeat(1000)}`));
  const run = await runHookCli(project, claudeEvent('PostToolUse', 's', { tool_name: 'Bash' }));
  const text = run.answer.hookSpecificOutput.additionalContext as string;
  assert.ok(text.length <= 10_000);
  const frames = parseFrames(text);
  assert.ok(frames.ok);
  const left = 25 - frames.frames.length;
  assert.ok(left > 0);
  assert.match(text, new RegExp(`${left} more messages? (is|are) waiting`));
  assert.equal(stateOf(store).queues['alice-1']!.length, left);
});

test('SessionEnd marks the member stale; the next prompt clears it', async (t) => {
  const { project, store } = await setUp(t);
  assert.equal((await runHookCli(project, claudeEvent('SessionEnd', 's', { reason: 'exit' }))).stdout, '{}\n');
  assert.equal(stateOf(store).channels.review!.members[1]!.stale, true);
  assert.equal((await runHookCli(project, claudeEvent('UserPromptSubmit', 's'))).stdout, '{}\n');
  assert.equal(stateOf(store).channels.review!.members[1]!.stale, false);
});

test('fail open: garbage stdin and a missing project both print {} and exit 0', async (t) => {
  const { project } = await setUp(t);
  const garbage = await runHookCli(project, '\u0000\u0001 not json');
  assert.equal(garbage.code, 0);
  assert.equal(garbage.stdout, '{}\n');
  const missing = await runHookCli(`${project}/does-not-exist`, claudeEvent('UserPromptSubmit', 's'));
  assert.equal(missing.code, 0);
  assert.equal(missing.stdout, '{}\n');
});

test('--wait exits 2 with a notice on stderr when mail waits', async (t) => {
  const { project, store } = await setUp(t);
  await send(store, 'review', 'bob-1', 'alice-1', ['wake']);
  const run = await runHookCli(project, claudeEvent('Stop', 's'), {}, ['--wait', '--timeout', '5s']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /opencomms_pull/);
});

test('a hook answer that cannot reach the host (stdout closed) leaves its mail pending for the next hook', async (t) => {
  const { project, store } = await setUp(t);
  const ids = await send(store, 'review', 'bob-1', 'alice-1', ['first', 'second']);
  const child = spawn(process.execPath, [DIST, 'hook', '--project', project], {
    env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !(key in CLEAN_ENV))),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // The host is gone before the answer comes: nobody reads stdout any more.
  child.stdout.destroy();
  const run = await runToExit(child, JSON.stringify(claudeEvent('UserPromptSubmit', 's')), 'the hook');
  assert.equal(run.code, 0);
  assert.match(run.stderr, /could not write its answer/);
  assert.deepEqual(ids.map((id) => statusOf(store, 'review', id)), ['pending', 'pending']);
  assert.deepEqual(stateOf(store).queues['alice-1'], ids);
  assert.deepEqual(ids.map((id) => stateOf(store).messages[id]!.attempts), [0, 0], 'an answer nobody read is not a failed handover');
  const next = await runHookCli(project, claudeEvent('UserPromptSubmit', 's'));
  const frames = parseFrames(next.answer.hookSpecificOutput.additionalContext);
  assert.ok(frames.ok);
  assert.deepEqual(frames.frames.map((f) => f.content), ['first', 'second']);
});
