// Presence and reservations through real processes: the server, the hook, the
// status and reservations commands. Where time must pass, the state the
// processes wrote is judged in-process with an injected clock.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli, startServer, tempProject, type ServerProcess } from '../helpers/server';
import { runCliInTerminal } from '../helpers/person-terminal';
import { memberEnv, ok } from './tools-support';
import { openStore } from '../../src/store';
import { judgeEdit, presenceOf, HOLDER_AWAY_GRACE_MS, type State } from '../../src/engine';
import { isRecordedProcessAlive } from '../../src/process/liveness';
import { takeView } from '../../src/watch/view';

async function serverOf(t: TestContext, project: string, host: 'claude-code' | 'codex', sessionId: string): Promise<ServerProcess> {
  const env = host === 'claude-code' ? { ...memberEnv(undefined), CLAUDE_CODE_SESSION_ID: sessionId } : { ...memberEnv(undefined), CLAUDE_CODE_SESSION_ID: undefined };
  const server = startServer(t, { project, args: ['--project', project, '--host', host], env });
  await server.initialize();
  return server;
}

async function preToolUse(project: string, sessionId: string, file: string): Promise<Record<string, any>> {
  const event = { hook_event_name: 'PreToolUse', session_id: sessionId, cwd: project, tool_name: 'Edit', tool_input: { file_path: file, old_string: 'a', new_string: 'b' } };
  const run = await runCli(['hook'], { input: JSON.stringify(event), env: { OPENCOMMS_HOST: 'claude-code', OPENCOMMS_MEMBER_ID: undefined, CLAUDE_PROJECT_DIR: project } });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

function stateOf(project: string): State {
  return openStore({ projectDir: project }).snapshot();
}

const isAlive = (proc: Parameters<typeof isRecordedProcessAlive>[0]) => isRecordedProcessAlive(proc);

test('a session in no channel, with no member yet, is denied an edit of a file held exclusively and told how to join the holder\'s channel', async (t) => {
  const project = tempProject(t);
  const a = await serverOf(t, project, 'claude-code', 'session-A');
  await ok(a, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  await ok(a, 'opencomms_reserve', { channel: 'dev', paths: ['src/**'] });
  const denied = await preToolUse(project, 'fresh-session', join(project, 'src', 'a.ts'));
  assert.equal(denied.hookSpecificOutput?.permissionDecision, 'deny');
  assert.match(denied.hookSpecificOutput.permissionDecisionReason, /opencomms_join with channel "dev"/);
});

test('a Codex holder is away as soon as its server is killed, and its reservation ends 10 minutes after that', async (t) => {
  const project = tempProject(t);
  const codex = await serverOf(t, project, 'codex', 'unused');
  await ok(codex, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  await ok(codex, 'opencomms_reserve', { channel: 'dev', paths: ['src/a.ts'] });
  const holder = (await ok(codex, 'opencomms_status', {})).data.member_id as string;
  assert.equal(presenceOf(stateOf(project), holder, Date.now(), isAlive).present, true);
  codex.child.kill('SIGKILL');
  await codex.exited;
  const state = stateOf(project);
  const judged = presenceOf(state, holder, Date.now(), isAlive);
  assert.equal(judged.present, false, 'away at the first look after the pid died');
  const since = judged.away_since!;
  assert.ok(Date.now() - since < 30_000, 'away within 30 s of the exit');
  assert.equal(judgeEdit(state, undefined, 'src/a.ts', since + HOLDER_AWAY_GRACE_MS - 1, isAlive).kind, 'deny');
  assert.equal(judgeEdit(state, undefined, 'src/a.ts', since + HOLDER_AWAY_GRACE_MS, isAlive).kind, 'pass');
});

test('a person\'s reservations --release frees the edit at once and the holder is told; an unknown id exits 1', async (t) => {
  const project = tempProject(t);
  const a = await serverOf(t, project, 'claude-code', 'session-A');
  await ok(a, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  await ok(a, 'opencomms_reserve', { channel: 'dev', paths: ['src/a.ts'] });
  const file = join(project, 'src', 'a.ts');
  assert.equal((await preToolUse(project, 'session-B', file)).hookSpecificOutput?.permissionDecision, 'deny');
  const listed = await runCli(['reservations', '--json', '--project', project]);
  assert.equal(listed.code, 0, listed.stderr);
  const [row] = JSON.parse(listed.stdout).reservations;
  const unknown = await runCliInTerminal(['reservations', '--release', 'rsv_unknown', '--project', project]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no reservation with id rsv_unknown holds/);
  const usage = await runCli(['reservations', '--release', 'x', '--release-member', 'y', '--project', project]);
  assert.equal(usage.code, 2);
  const released = await runCliInTerminal(['reservations', '--release', row.id, '--project', project]);
  assert.equal(released.code, 0, released.stderr);
  assert.match(released.stdout, /released rsv_/);
  assert.deepEqual(await preToolUse(project, 'session-B', file), {});
  const pulled = await ok(a, 'opencomms_pull', {});
  assert.match(JSON.stringify(pulled.data), /a person released your reservation of src\/a\.ts/);
});

test('status, watch, reservations and opencomms_status agree on who is present and what holds', async (t) => {
  const project = tempProject(t);
  const a = await serverOf(t, project, 'claude-code', 'session-A');
  const codex = await serverOf(t, project, 'codex', 'unused');
  await ok(a, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'write' });
  await ok(codex, 'opencomms_join', { channel: 'dev', role: 'coder', role_prompt: 'code' });
  await ok(a, 'opencomms_reserve', { channel: 'dev', paths: ['docs/**'] });
  await ok(codex, 'opencomms_reserve', { channel: 'dev', paths: ['src/**'] });
  const coder = (await ok(codex, 'opencomms_status', {})).data.member_id as string;
  codex.child.kill('SIGKILL');
  await codex.exited;

  const cli = JSON.parse((await runCli(['status', '--json', '--project', project])).stdout);
  const tool = (await ok(a, 'opencomms_status', {})).data;
  const held = JSON.parse((await runCli(['reservations', '--json', '--project', project])).stdout).reservations;
  const view = takeView(stateOf(project), openStore({ projectDir: project }).history);
  const watched = [...view.channels.values()][0]!;

  const awayIn = (channel: { members: Array<{ session_id: string; stale: boolean }> }) => channel.members.filter((m) => m.stale).map((m) => m.session_id);
  assert.deepEqual(awayIn(cli.data.channels[0]), [coder]);
  assert.deepEqual(awayIn(tool.channels[0]), [coder]);
  assert.deepEqual(awayIn(watched), [coder]);
  const paths = (rows: Array<{ path?: string; paths?: string[] }>) => rows.flatMap((r) => r.paths ?? [r.path!]).sort();
  // The away holder's reservation still holds (less than 10 minutes away): everyone shows both.
  assert.deepEqual(paths(cli.data.channels[0].reservations), ['docs/**', 'src/**']);
  assert.deepEqual(paths(tool.channels[0].reservations), ['docs/**', 'src/**']);
  assert.deepEqual(paths(held), ['docs/**', 'src/**']);
  assert.deepEqual(paths(watched.reservations ?? []), ['docs/**', 'src/**']);
  assert.equal(held.find((r: { member_id: string }) => r.member_id === coder).holder_away_since, cli.data.channels[0].reservations.find((r: { member_id: string }) => r.member_id === coder).holder_away_since);
});
