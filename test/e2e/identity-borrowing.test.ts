// No identity is borrowed: a server of another host that inherited Claude
// Code's session variable is not that session, and a host_session_id tool
// argument never decides whom another session's hooks speak for. Real server
// processes and real `opencomms hook` processes on one project.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, startServer, tempProject, type Json, type ServerProcess } from '../helpers/server';
import { memberEnv, ok, refused } from './tools-support';

async function serverOf(t: TestContext, project: string, host: string, env: Record<string, string | undefined> = {}): Promise<ServerProcess> {
  const server = startServer(t, { project, args: ['--project', project, '--host', host], env: { ...memberEnv(undefined), ...env } });
  await server.initialize();
  return server;
}

/** A real `opencomms hook` process fed one Claude Code event on stdin; its answer. */
async function claudeHook(project: string, name: string, sessionId: string): Promise<Json> {
  const event = { hook_event_name: name, session_id: sessionId, transcript_path: '/tmp/t.jsonl', cwd: project };
  const run = await runCli(['hook', '--project', project], {
    input: JSON.stringify(event),
    env: { OPENCOMMS_HOST: 'claude-code', OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, CLAUDE_CODE_SESSION_ID: undefined },
  });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

const OTHER_HOSTS = ['cursor', 'vscode', 'windsurf', 'goose', 'claude-desktop', 'generic', 'codex', 'gemini-cli', 'opencode'];

test('a server of any other host started inside a Claude Code session never speaks as that session\'s member', async (t) => {
  const project = tempProject(t);
  const claude = await serverOf(t, project, 'claude-code', { CLAUDE_CODE_SESSION_ID: 'claude-session-1' });
  const peer = await serverOf(t, project, 'mcp', { OPENCOMMS_MEMBER_ID: 'sess_peer' });
  await ok(claude, 'opencomms_create', { channel: 'c', role: 'writer', role_prompt: 'write' });
  await ok(peer, 'opencomms_join', { channel: 'c', role: 'reviewer', role_prompt: 'review' });
  const claudeId = (await ok(claude, 'opencomms_status', {})).data.member_id;
  const sent = await ok(peer, 'opencomms_send', { channel: 'c', content: 'for the Claude Code session only' });
  for (const host of OTHER_HOSTS) {
    // The same environment a server run from that session's terminal inherits.
    const other = await serverOf(t, project, host, { CLAUDE_CODE_SESSION_ID: 'claude-session-1' });
    const status = await ok(other, 'opencomms_status', {});
    assert.notEqual(status.data.member_id, claudeId, `a ${host} server spoke as the Claude Code session's member`);
    await refused(other, 'opencomms_pull', {}, 'not_member');
    await other.close();
  }
  const pulled = await ok(claude, 'opencomms_pull', {});
  assert.deepEqual(pulled.data.message_ids, sent.data.message_ids, 'the mail waited for its own session');
});

test('a host_session_id argument naming another session never makes that session\'s hooks speak for the caller', async (t) => {
  const project = tempProject(t);
  // A claude-code server whose host names no session (an older Claude Code): it goes by its host process.
  const writer = await serverOf(t, project, 'claude-code');
  const peer = await serverOf(t, project, 'mcp', { OPENCOMMS_MEMBER_ID: 'sess_peer' });
  await ok(writer, 'opencomms_create', { channel: 'c', role: 'writer', role_prompt: 'write', host_session_id: 'victim-session' });
  await ok(peer, 'opencomms_join', { channel: 'c', role: 'reviewer', role_prompt: 'review' });
  const sent = await ok(peer, 'opencomms_send', { channel: 'c', content: 'for the writer only' });
  // The victim never joined; its hooks run on every start and prompt.
  assert.deepEqual(await claudeHook(project, 'SessionStart', 'victim-session'), {});
  assert.deepEqual(await claudeHook(project, 'UserPromptSubmit', 'victim-session'), {});
  assert.deepEqual(await claudeHook(project, 'Stop', 'victim-session'), {});
  const pulled = await ok(writer, 'opencomms_pull', {});
  assert.deepEqual(pulled.data.message_ids, sent.data.message_ids, 'the writer\'s own pull still gets its mail');
});

test('a host_session_id argument that differs from the session the host named is refused with host_session_mismatch', async (t) => {
  const project = tempProject(t);
  const claude = await serverOf(t, project, 'claude-code', { CLAUDE_CODE_SESSION_ID: 'claude-session-A' });
  const args = { channel: 'c', role: 'writer', role_prompt: 'write' };
  const refusal = await refused(claude, 'opencomms_create', { ...args, host_session_id: 'claude-session-B' }, 'host_session_mismatch');
  assert.equal(refusal.data.argument, 'host_session_id');
  // Nothing was created by the refused call, and repeating the host's own session is fine.
  await ok(claude, 'opencomms_create', { ...args, host_session_id: 'claude-session-A' });

  const codex = await serverOf(t, project, 'codex');
  const reply = await codex.request('tools/call', {
    name: 'opencomms_join',
    arguments: { channel: 'c', role: 'reviewer', role_prompt: 'review', host_session_id: 'claude-session-A' },
    _meta: { threadId: 'codex-thread-1' },
  });
  assert.equal(reply.result.isError, true, JSON.stringify(reply.result.structuredContent));
  assert.equal(reply.result.structuredContent.data.reason, 'host_session_mismatch');
  const roster = await ok(claude, 'opencomms_status', { channel: 'c' });
  assert.equal(JSON.stringify(roster.data).includes('"reviewer"'), false, 'nobody joined');
});
