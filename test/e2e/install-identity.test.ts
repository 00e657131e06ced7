// Which member id install writes, the print-only hosts, and usage errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { json, readJson, snapshot, writeFiles } from '../hosts/install-support';

const opts = { cwd: tmpdir() };
// Tests of the executable's paths (install, --dry-run, the two usage refusals) use runCli; the rest run in this process.
const inProcess = runCliInProcess;

function pinsOf(project: string): string[] {
  const dir = join(project, '.opencomms', 'pins');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

test('--member is an opt-in fixed id: written into the config, pinned under the host, and install says every session shares it', async (t) => {
  const project = tempProject(t);
  const { code, stdout } = await runCli(['install', 'cursor', '--project', project, '--member', 'alice-1'], opts);
  assert.equal(code, 0);
  assert.match(stdout, /member id alice-1 .*every cursor session/);
  assert.equal(readJson(join(project, '.cursor/mcp.json')).mcpServers.opencomms.env.OPENCOMMS_MEMBER_ID, 'alice-1');
  assert.equal(readJson(join(project, '.opencomms/pins/alice-1.json')).host, 'cursor');
});

test('a malformed --member exits 2 with one line and writes nothing', async (t) => {
  const project = tempProject(t);
  const { code, stderr } = await runCli(['install', 'cursor', '--project', project, '--member', '<set by: opencomms install-member>'], opts);
  assert.equal(code, 2);
  assert.equal(stderr.trim().split('\n').length, 1);
  assert.deepEqual(snapshot(project), {});
});

test('install mints no id and writes no pin; the pins already there stay as they were', async (t) => {
  const project = tempProject(t);
  assert.equal((await inProcess(['pin', '--project', project, '--host', 'codex', '--id', 'bob'], opts)).code, 0);
  const pin = readFileSync(join(project, '.opencomms/pins/bob.json'), 'utf8');
  const { code, stdout } = await inProcess(['install', 'codex', '--project', project], opts);
  assert.equal(code, 0);
  assert.doesNotMatch(stdout, /bob|member id/);
  assert.deepEqual(pinsOf(project), ['bob.json']);
  assert.equal(readFileSync(join(project, '.opencomms/pins/bob.json'), 'utf8'), pin);
  assert.doesNotMatch(readFileSync(join(project, '.codex/config.toml'), 'utf8'), /OPENCOMMS_MEMBER_ID/);
  const files = snapshot(project);
  const again = await inProcess(['install', 'codex', '--project', project], opts);
  assert.match(again.stdout, /already installed/);
  assert.deepEqual(snapshot(project), files);
});

test('re-installing with another --member replaces our entry in place', async (t) => {
  const project = tempProject(t);
  writeFiles(project, { '.mcp.json': json({ mcpServers: { a: { command: 'a' }, z: { command: 'z' } } }) });
  await inProcess(['install', 'claude-code', '--project', project, '--member', 'first'], opts);
  await inProcess(['install', 'claude-code', '--project', project, '--member', 'second'], opts);
  const config = readJson(join(project, '.mcp.json'));
  assert.deepEqual(Object.keys(config.mcpServers), ['a', 'z', 'opencomms']);
  assert.equal(config.mcpServers.opencomms.env.OPENCOMMS_MEMBER_ID, 'second');
  const stop = readJson(join(project, '.claude/settings.json')).hooks.Stop;
  assert.equal(stop.length, 1);
  assert.match(stop[0].hooks[0].command, /^OPENCOMMS_MEMBER_ID=second /);
});

test('--dry-run on a fresh project says each session gets its own member and writes nothing', async (t) => {
  const project = tempProject(t);
  const { code, stdout } = await runCli(['install', 'opencode', '--project', project, '--dry-run'], opts);
  assert.equal(code, 0);
  assert.match(stdout, /each opencode session gets a member of its own/);
  assert.doesNotMatch(stdout, /sess_|would pin/);
  assert.match(stdout, /would write .*\.opencode\/plugin\/opencomms\.js: the OpenCode plugin/);
  assert.doesNotMatch(stdout, /opencode\.json/, 'OpenCode gets no MCP server entry: the plugin gives its tools');
  assert.deepEqual(snapshot(project), {});
});

test('an unknown host exits 2 and lists the hosts', async (t) => {
  const project = tempProject(t);
  for (const command of ['install', 'uninstall']) {
    const { code, stderr } = await runCli([command, 'emacs', '--project', project], opts);
    assert.equal(code, 2);
    assert.equal(stderr.trim().split('\n').length, 1);
    assert.match(stderr, /claude-code, codex, gemini-cli, opencode, cursor, vscode, claude-desktop, windsurf, goose/);
  }
  assert.deepEqual(snapshot(project), {});
});

for (const [host, marker] of [['claude-desktop', '"mcpServers"'], ['windsurf', '"mcpServers"'], ['goose', 'extensions:\n  opencomms:']] as const) {
  test(`${host}: prints the entry to paste and where, with no member id, writing only the bundle copy`, async (t) => {
    const project = tempProject(t);
    const { code, stdout } = await inProcess(['install', host, '--project', project], opts);
    assert.equal(code, 0);
    assert.ok(stdout.includes(marker), stdout);
    assert.ok(stdout.includes(join(project, '.opencomms', 'opencomms.js')));
    assert.doesNotMatch(stdout, /OPENCOMMS_MEMBER_ID|sess_/);
    assert.match(stdout, /absolute path/, 'says why the snippet names the project by its absolute path');
    assert.deepEqual(Object.keys(snapshot(project)).sort(), [join('.opencomms', 'opencomms.js'), join('.opencomms', 'package.json')].sort());
    if (host !== 'goose') {
      // The snippet shows its wrapper; the words say only the entry goes into the existing object.
      assert.match(stdout, /Add the "opencomms" entry below to the "mcpServers" object of .*beside your other servers \(the outer braces only make the snippet valid JSON\)/);
      const pasted = JSON.parse(stdout.slice(stdout.indexOf('{'), stdout.lastIndexOf('}') + 1)) as { mcpServers: { opencomms: { args: string[]; env?: object } } };
      assert.equal(pasted.mcpServers.opencomms.env, undefined);
      assert.equal(pasted.mcpServers.opencomms.args.at(-1), host);
    }
    const un = await inProcess(['uninstall', host, '--project', project], opts);
    assert.equal(un.code, 0);
    assert.match(un.stdout, /remove the opencomms entry/);
  });
}

test('the copied bundle runs inside a "type": "module" project', async (t) => {
  const project = tempProject(t);
  writeFiles(project, { 'package.json': json({ type: 'module' }) });
  assert.equal((await inProcess(['install', 'cursor', '--project', project], opts)).code, 0);
  const { spawnSync } = await import('node:child_process');
  const run = spawnSync(process.execPath, [join(project, '.opencomms', 'opencomms.js'), '--version'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(run.status, 0, run.stderr);
});

test('the bundle copy is rewritten only when its content differs', async (t) => {
  const project = tempProject(t);
  await inProcess(['install', 'cursor', '--project', project], opts);
  writeFiles(project, { '.opencomms/opencomms.js': '// stale\n' });
  const { stdout } = await inProcess(['install', 'cursor', '--project', project], opts);
  assert.match(stdout, /wrote \.opencomms[/\\]opencomms\.js/);
  assert.notEqual(readFileSync(join(project, '.opencomms/opencomms.js'), 'utf8'), '// stale\n');
  const again = await inProcess(['install', 'cursor', '--project', project], opts);
  assert.match(again.stdout, /already installed/);
});

test('uninstall takes our hook out of a mixed entry and keeps the other hook', async (t) => {
  const project = tempProject(t);
  await inProcess(['install', 'claude-code', '--project', project, '--member', 'm1'], opts);
  const settings = readJson(join(project, '.claude/settings.json'));
  settings.hooks.Stop[0].hooks.push({ type: 'command', command: 'echo mine' });
  writeFiles(project, { '.claude/settings.json': json(settings) });
  await inProcess(['uninstall', 'claude-code', '--project', project], opts);
  assert.deepEqual(readJson(join(project, '.claude/settings.json')), { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] } });
  assert.equal(existsSync(join(project, '.mcp.json')), false);
});
