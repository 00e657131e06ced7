// Reservations end to end: one Claude Code session reserves a file through
// its MCP server; another session's PreToolUse hook (the real CLI process)
// is denied the edit, naming the holder, until the holder releases it.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdProject, runCli, startServer, tempProject, type ServerProcess } from '../helpers/server';
import { memberEnv, ok, refused } from './tools-support';

async function claudeServer(t: TestContext, project: string, sessionId: string): Promise<ServerProcess> {
  const server = startServer(t, {
    project,
    args: ['--project', project, '--host', 'claude-code'],
    env: { ...memberEnv(undefined), CLAUDE_CODE_SESSION_ID: sessionId },
  });
  await server.initialize();
  return server;
}

async function preToolUse(project: string, sessionId: string, file: string): Promise<Record<string, any>> {
  const event = { hook_event_name: 'PreToolUse', session_id: sessionId, cwd: project, tool_name: 'Edit', tool_input: { file_path: file, old_string: 'a', new_string: 'b' } };
  const run = await runCli(['hook'], { input: JSON.stringify(event), env: { OPENCOMMS_HOST: 'claude-code', OPENCOMMS_MEMBER_ID: undefined, CLAUDE_PROJECT_DIR: project } });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test('member A reserves src/a.ts; member B\'s PreToolUse Edit of it is denied naming A; after A releases it passes', async (t) => {
  const project = tempProject(t);
  const a = await claudeServer(t, project, 'session-A');
  const b = await claudeServer(t, project, 'session-B');
  await ok(a, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  await ok(b, 'opencomms_join', { channel: 'dev', role: 'reviewer', role_prompt: 'review' });
  const granted = await ok(a, 'opencomms_reserve', { channel: 'dev', paths: ['src/a.ts'], reason: 'splitting the module' });
  assert.deepEqual(granted.data.granted.map((g: { path: string }) => g.path), ['src/a.ts']);
  const aId = (await ok(a, 'opencomms_status', {})).data.member_id;

  const denied = await preToolUse(project, 'session-B', join(project, 'src', 'a.ts'));
  assert.equal(denied.hookSpecificOutput.permissionDecision, 'deny');
  assert.match(denied.hookSpecificOutput.permissionDecisionReason, new RegExp(`writer \\(${aId}\\) until `));
  assert.match(denied.hookSpecificOutput.permissionDecisionReason, /\nsplitting the module\n<<<END_UNTRUSTED_PEER_MESSAGE nonce=/);
  assert.deepEqual(await preToolUse(project, 'session-A', join(project, 'src', 'a.ts')), {}, 'the holder edits freely');
  const clash = await refused(b, 'opencomms_reserve', { channel: 'dev', paths: ['src/*.ts'] }, 'reservation_conflict');
  assert.equal(clash.data.conflicts[0].holder, aId);

  await ok(a, 'opencomms_release', { channel: 'dev' });
  assert.deepEqual(await preToolUse(project, 'session-B', join(project, 'src', 'a.ts')), {});
});

test('reserve refuses paths outside the project, escapes and empty globs with invalid_path, and the argument guard checks the array', async (t) => {
  const project = tempProject(t);
  const a = await claudeServer(t, project, 'session-A');
  await ok(a, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  const outside = await refused(a, 'opencomms_reserve', { channel: 'dev', paths: ['/etc/passwd', '../x', ' '] }, 'invalid_path');
  assert.match(outside.message, /"\/etc\/passwd" is outside the project; "..\/x" leaves the project/);
  const wrong = await refused(a, 'opencomms_reserve', { channel: 'dev', paths: 'src/a.ts' }, 'invalid_argument');
  assert.equal(wrong.data.argument, 'paths');
  await refused(a, 'opencomms_reserve', { channel: 'dev', paths: [1] }, 'invalid_argument');
  await refused(a, 'opencomms_reserve', { channel: 'dev', paths: [] }, 'invalid_argument');
});

test('a reservation named through a link holds the real files: alias/** (alias -> src) is granted as src/** and stops an edit of src/a.ts', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'a.ts'), 'a\n');
  symlinkSync('src', join(project, 'alias'));
  const outside = mkdtempSync(join(tmpdir(), 'oc-outside-'));
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  symlinkSync(outside, join(project, 'ext'));
  const a = await claudeServer(t, project, 'session-A');
  const b = await claudeServer(t, project, 'session-B');
  await ok(a, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  await ok(b, 'opencomms_join', { channel: 'dev', role: 'reviewer', role_prompt: 'review' });
  const granted = await ok(a, 'opencomms_reserve', { channel: 'dev', paths: ['alias/**', 'alias/new.ts'] });
  assert.deepEqual(granted.data.granted.map((g: { path: string }) => g.path), ['src/**', 'src/new.ts']);
  assert.equal((await preToolUse(project, 'session-B', join(project, 'src', 'a.ts'))).hookSpecificOutput?.permissionDecision, 'deny');
  await refused(a, 'opencomms_reserve', { channel: 'dev', paths: ['ext/**'] }, 'invalid_path');
  const released = await ok(a, 'opencomms_release', { channel: 'dev', paths: ['alias/**'] });
  assert.deepEqual(released.data.released, ['src/**']);
});

test('a server whose project is given as a link reserves by the real path and by the link\'s path alike', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, 'src'));
  const parent = mkdtempSync(join(tmpdir(), 'oc-link-'));
  t.after(() => rmSync(parent, { recursive: true, force: true }));
  const linked = join(parent, 'project');
  symlinkSync(project, linked);
  const a = await claudeServer(t, linked, 'session-A');
  // The server is held by the link's path: the real folder must also wait for it to stop before it is removed.
  holdProject(project, () => {
    a.child.stdin.end();
    return a.exited;
  });
  await ok(a, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  const granted = await ok(a, 'opencomms_reserve', { channel: 'dev', paths: [join(realpathSync(project), 'src', 'a.ts'), join(linked, 'src', 'b.ts')] });
  assert.deepEqual(granted.data.granted.map((g: { path: string }) => g.path), ['src/a.ts', 'src/b.ts']);
});
