// dist/opencomms.js must work as the only file a user has: curl'd into a
// folder of its own, with no sibling file, source map or node_modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, runCli, startServer, tempProject } from '../helpers/server';

function aloneCopy(t: Parameters<typeof tempProject>[0]): string {
  const dir = join(tempProject(t), 'vendored');
  mkdirSync(dir);
  const script = join(dir, 'opencomms.js');
  copyFileSync(DIST, script);
  assert.deepEqual(readdirSync(dir), ['opencomms.js']);
  return script;
}

test('a lone copy of the bundle runs commands', async (t) => {
  const script = aloneCopy(t);
  const project = tempProject(t);
  const pinned = await runCli(['pin', '--project', project, '--host', 'codex'], { script });
  assert.equal(pinned.code, 0, pinned.stderr);
  assert.match(pinned.stdout.trim(), /^sess_[0-9a-f]{24}$/);
  const status = await runCli(['status', '--json', '--project', project], { script });
  assert.equal(status.code, 0, status.stderr);
  assert.deepEqual(JSON.parse(status.stdout).data.channels, []);
});

test('a lone copy of the bundle serves tools calls', async (t) => {
  const script = aloneCopy(t);
  const server = startServer(t, { script, env: { OPENCOMMS_MEMBER_ID: 'alone-1' } });
  await server.initialize();
  const created = await server.callTool('opencomms_create', { channel: 'solo', role: 'writer', role_prompt: 'You write.' });
  assert.equal(created.ok, true, created.message);
  const listed = await server.request('tools/list');
  assert.equal(listed.result.tools.length, 20);
});

test('a lone copy of the bundle answers hooks', async (t) => {
  const script = aloneCopy(t);
  const project = tempProject(t);
  const event = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's1', cwd: project, prompt: 'hi' });
  const hook = await runCli(['hook', '--project', project], { script, input: event });
  assert.equal(hook.code, 0, hook.stderr);
  assert.equal(hook.stdout, '{}\n');
});
