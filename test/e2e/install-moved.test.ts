// A project moves (or a teammate clones it elsewhere): the configs install
// wrote for hosts that expand a variable for the project still start the
// server there, and each session finds a member of its own in the moved
// project. Hosts whose configs need the absolute path say so, and a second
// install puts the new one in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, startServer, tempProject, type Finished, type Json } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { launchAsHost, readJson, runHookCommand, tempHome, type Launch } from '../hosts/install-support';

type Run = (args: string[], options: { cwd?: string }) => Promise<Finished>;

/**
 * A git project installed for `host` in one folder, then moved to another (with a space in its name).
 * Installed in this process unless `run` says otherwise: what these tests check is the launch after the move.
 */
async function installedThenMoved(
  t: Parameters<typeof tempProject>[0], host: string, run: Run = runCliInProcess,
): Promise<{ parent: string; moved: string; before: string }> {
  const parent = tempProject(t);
  const before = join(parent, 'before');
  mkdirSync(join(before, '.git'), { recursive: true });
  const installed = await run(['install', host, '--project', before], { cwd: tmpdir() });
  assert.equal(installed.code, 0, installed.stderr);
  const moved = join(parent, 'moved here');
  renameSync(before, moved);
  return { parent, moved, before };
}

/** Starts the server exactly as `launch` says (after the host's expansion), in `cwd`, and returns opencomms_status. */
async function statusThrough(t: Parameters<typeof tempProject>[0], parent: string, launch: Launch, cwd: string, env: Record<string, string | undefined>): Promise<Json> {
  assert.equal(launch.command, 'node');
  const server = startServer(t, {
    project: parent,
    script: launch.args[0],
    args: launch.args.slice(1),
    env: { ...launch.env, OPENCOMMS_MEMBER_ID: undefined, CLAUDE_CODE_SESSION_ID: undefined, CLAUDE_PROJECT_DIR: undefined, ...env },
    cwd,
  });
  const init = await server.initialize('2025-06-18');
  assert.equal(init.result.serverInfo.name, 'opencomms');
  return server.callTool('opencomms_status');
}

function sessionLinks(project: string): Record<string, { member_id: string }> {
  return JSON.parse(readFileSync(join(project, '.opencomms', 'state.json'), 'utf8')).session_links ?? {};
}

test('claude-code: after the project moves, .mcp.json still starts the server there, and each session gets its member in the moved project', async (t) => {
  const { parent, moved } = await installedThenMoved(t, 'claude-code', runCli);
  const entry = readJson(join(moved, '.mcp.json')).mcpServers.opencomms as Launch;
  // As Claude Code starts it: ${CLAUDE_PROJECT_DIR:-.} expanded, CLAUDE_PROJECT_DIR and the session id in the environment.
  const { launch, cwd } = launchAsHost('claude-code', entry, moved);
  const first = await statusThrough(t, parent, launch, cwd, { CLAUDE_CODE_SESSION_ID: 'moved-session-1', CLAUDE_PROJECT_DIR: moved });
  assert.equal(first.ok, true, JSON.stringify(first));
  assert.match(first.data.member_id, /^sess_/);
  const second = await statusThrough(t, parent, launch, cwd, { CLAUDE_CODE_SESSION_ID: 'moved-session-2', CLAUDE_PROJECT_DIR: moved });
  assert.match(second.data.member_id, /^sess_/);
  assert.notEqual(second.data.member_id, first.data.member_id, 'a second session is a second member');
  assert.equal(sessionLinks(moved)['sid@claude-code:moved-session-1']?.member_id, first.data.member_id, 'the state is in the moved project');

  // The hook of the first session, run as Claude Code runs it, finds the same member there.
  const settings = readJson(join(moved, '.claude', 'settings.json'));
  const command = settings.hooks.SessionStart[0].hooks[0].command as string;
  const event = { hook_event_name: 'SessionStart', session_id: 'moved-session-1', source: 'resume', cwd: moved, transcript_path: '/tmp/t.jsonl' };
  const run = await runHookCommand(command, event, moved, { CLAUDE_PROJECT_DIR: moved, CLAUDE_CODE_SESSION_ID: '' });
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotThrow(() => JSON.parse(run.stdout));
  assert.equal(sessionLinks(moved)['sid@claude-code:moved-session-1']?.member_id, first.data.member_id);
});

test('gemini-cli: after the project moves, the relative server path still starts from the project folder Gemini CLI starts it in', async (t) => {
  const { parent, moved } = await installedThenMoved(t, 'gemini-cli');
  const entry = readJson(join(moved, '.gemini', 'settings.json')).mcpServers.opencomms as Launch;
  const { launch, cwd } = launchAsHost('gemini-cli', entry, moved);
  assert.equal(cwd, moved);
  const status = await statusThrough(t, parent, launch, cwd, {});
  assert.equal(status.ok, true, JSON.stringify(status));
  assert.match(status.data.member_id, /^sess_/, 'the host-process fallback gives the session a member');
  assert.ok(existsSync(join(moved, '.opencomms', 'state.json')));
});

for (const host of ['cursor', 'vscode']) {
  test(`${host}: after the project moves, \${workspaceFolder} still names it`, async (t) => {
    const { parent, moved } = await installedThenMoved(t, host);
    const file = host === 'cursor' ? join(moved, '.cursor', 'mcp.json') : join(moved, '.vscode', 'mcp.json');
    const json = readJson(file);
    const entry = (host === 'cursor' ? json.mcpServers : json.servers).opencomms as Launch;
    const { launch, cwd } = launchAsHost(host, entry, moved);
    const status = await statusThrough(t, parent, launch, cwd, {});
    assert.equal(status.ok, true, JSON.stringify(status));
    assert.ok(existsSync(join(moved, '.opencomms', 'state.json')));
  });
}

test('codex: after the project moves, doctor names the stale absolute path, and a second install writes the new one', async (t) => {
  const { moved, before } = await installedThenMoved(t, 'codex');
  const doctor = await runCli(['doctor', '--project', moved], { cwd: tmpdir() });
  assert.equal(doctor.code, 1);
  assert.ok(doctor.stdout.includes(`starts ${before}/.opencomms/opencomms.js (which does not exist) and names --project ${before} (which does not exist), of the checkout ${before}`), doctor.stdout);
  const env = { HOME: tempHome(t), CODEX_HOME: undefined };
  const again = await runCliInProcess(['install', 'codex', '--project', moved, '--apply'], { cwd: tmpdir(), env });
  assert.equal(again.code, 0, again.stderr);
  assert.ok(again.stdout.includes(`server ${before}/.opencomms/opencomms.js → ${moved}/.opencomms/opencomms.js`), again.stdout);
  assert.equal((await runCliInProcess(['doctor', '--project', moved], { cwd: tmpdir(), env })).code, 0);
});
