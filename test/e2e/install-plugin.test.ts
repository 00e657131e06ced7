// install claude-code --plugin and the OpenCode plugin copy, through the shipped CLI.
import { test, type TestContext } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { DIST, runCli, tempProject, type Json } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { json, readJson, snapshot, writeFiles } from '../hosts/install-support';

const PLUGIN_REL = join('.opencomms', 'claude-plugin');

function install(project: string, extra: string[] = [], env?: Record<string, string | undefined>) {
  return runCliInProcess(['install', 'claude-code', '--plugin', '--project', project, ...extra], { cwd: tmpdir(), env });
}

/** The shipped CLI, for one test of each path (install, --dry-run, uninstall, a refusal): the rest run in this process. */
function installByCli(project: string, extra: string[] = [], env?: Record<string, string | undefined>) {
  return runCli(['install', 'claude-code', '--plugin', '--project', project, ...extra], { cwd: tmpdir(), env });
}

function memberIdIn(stdout: string): string {
  const match = /member id (\S+)/.exec(stdout);
  assert.ok(match, `no member id in: ${stdout}`);
  return match[1];
}

const marketplaceOf = (project: string): string => `opencomms-${createHash('sha256').update(project).digest('hex').slice(0, 8)}`;

/** A temp dir holding only a fake `claude` (a sh script that logs its argv and cwd), or nothing. */
function fakeBin(t: TestContext, withClaude: boolean): { dir: string; log: string } {
  const dir = tempProject(t);
  const log = join(dir, 'claude.log');
  if (withClaude) {
    const script = join(dir, 'claude');
    writeFileSync(script, `#!/bin/sh\n{ printf 'cwd=%s\\n' "$(pwd)"; for a in "$@"; do printf 'arg=%s\\n' "$a"; done; echo ---; } >> '${log}'\necho "fake claude ok"\n`);
    chmodSync(script, 0o755);
  }
  return { dir, log };
}

test('--plugin writes the plugin folder with no member id, absolute paths and no monitor, and prints the two commands', async (t) => {
  const project = tempProject(t);
  const { code, stdout, stderr } = await installByCli(project);
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stdout, /member id|sess_/);
  assert.match(stdout, /each claude-code session gets a member of its own/);
  assert.match(stdout, /absolute path/);
  const dir = join(project, PLUGIN_REL);
  const bundle = join(project, '.opencomms', 'opencomms.js');
  const manifest = readJson(join(dir, '.claude-plugin/plugin.json'));
  assert.equal(manifest.name, 'opencomms');
  assert.equal(manifest.version, (await runCli(['--version'])).stdout.split(' ')[0]);
  assert.ok(manifest.description);
  const marketplace = readJson(join(dir, '.claude-plugin/marketplace.json'));
  assert.equal(marketplace.name, marketplaceOf(project));
  assert.deepEqual(marketplace.plugins.map((p: Json) => [p.name, p.source]), [['opencomms', './']]);
  const server = readJson(join(dir, '.mcp.json')).mcpServers.opencomms;
  assert.equal(server.command, 'node');
  assert.deepEqual(server.args, [bundle, '--project', project, '--host', 'claude-code']);
  assert.equal(server.env, undefined);
  const hooks = readJson(join(dir, 'hooks/hooks.json')).hooks;
  assert.deepEqual(Object.keys(hooks), ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd']);
  const plain = `OPENCOMMS_HOST=claude-code node "${bundle}" hook --project "${project}"`;
  for (const event of Object.keys(hooks)) assert.equal(hooks[event][0].hooks[0].command, plain, event);
  const rewake = hooks.Stop[0].hooks[1];
  assert.equal(rewake.command, `OPENCOMMS_HOST=claude-code node "${bundle}" hook --wait --timeout 30m --project "${project}"`);
  assert.equal(rewake.async, true);
  assert.equal(rewake.asyncRewake, true);
  assert.ok(rewake.timeout >= 1800);
  assert.deepEqual(readJson(join(dir, 'monitors/monitors.json')), [], 'a monitor follows one member, so there is none without --member');
  assert.ok(!existsSync(join(project, '.opencomms/pins')), 'no pin is written');
  assert.ok(!existsSync(join(project, '.mcp.json')), 'the plugin replaces the plain .mcp.json entry');
  assert.ok(!existsSync(join(project, '.claude')), 'the plugin replaces the plain hooks');
  assert.ok(stdout.includes(`claude plugin marketplace add ${dir} --scope local\n`), stdout);
  assert.ok(stdout.includes(`claude plugin install opencomms@${marketplaceOf(project)} --scope local\n`), stdout);
});

test('--plugin: a second run is byte-identical; --member writes the fixed id, pins it and adds the mail monitor', async (t) => {
  const project = tempProject(t);
  assert.equal((await runCliInProcess(['install', 'claude-code', '--project', project], { cwd: tmpdir() })).code, 0);
  const first = await install(project);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /uninstall claude-code/, 'warns that the plain install would run too');
  const files = snapshot(project);
  const again = await install(project);
  assert.equal(again.code, 0);
  assert.match(again.stdout, /nothing changed/);
  assert.deepEqual(snapshot(project), files);
  const other = tempProject(t);
  const chosen = await install(other, ['--member', 'alice-2']);
  assert.equal(memberIdIn(chosen.stdout), 'alice-2');
  const dir = join(other, PLUGIN_REL);
  const bundle = join(other, '.opencomms', 'opencomms.js');
  assert.equal(readJson(join(dir, '.mcp.json')).mcpServers.opencomms.env.OPENCOMMS_MEMBER_ID, 'alice-2');
  assert.match(readJson(join(dir, 'hooks/hooks.json')).hooks.Stop[0].hooks[0].command, /^OPENCOMMS_MEMBER_ID=alice-2 OPENCOMMS_HOST=claude-code /);
  const monitors = readJson(join(dir, 'monitors/monitors.json'));
  assert.equal(monitors.length, 1);
  assert.equal(monitors[0].command, `OPENCOMMS_MEMBER_ID=alice-2 node "${bundle}" watch --member alice-2 --project "${other}"`);
  assert.ok(monitors[0].name && monitors[0].description);
  assert.equal(readJson(join(other, '.opencomms/pins/alice-2.json')).host, 'claude-code');
});

test('--plugin --dry-run writes nothing and prints the exact bytes', async (t) => {
  const project = tempProject(t);
  const dry = await installByCli(project, ['--member', 'dry_member', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(snapshot(project), {});
  assert.equal((await install(project, ['--member', 'dry_member'])).code, 0);
  for (const rel of ['.claude-plugin/plugin.json', '.claude-plugin/marketplace.json', '.mcp.json', 'hooks/hooks.json', 'monitors/monitors.json']) {
    const path = join(project, PLUGIN_REL, rel);
    assert.ok(dry.stdout.includes(`would write ${path}:\n${readFileSync(path, 'utf8')}`), rel);
  }
});

test('uninstall claude-code removes only the plugin files (and the plain entries), keeps others, prints the claude commands', async (t) => {
  const project = tempProject(t);
  assert.equal((await install(project)).code, 0);
  writeFiles(project, { [join(PLUGIN_REL, 'hooks', 'mine.txt')]: 'keep\n', '.mcp.json': json({ mcpServers: { other: { command: 'x' } } }) });
  const dry = await runCli(['uninstall', 'claude-code', '--project', project, '--dry-run'], { cwd: tmpdir() });
  assert.equal(dry.code, 0);
  assert.ok(existsSync(join(project, PLUGIN_REL, '.mcp.json')));
  const { code, stdout, stderr } = await runCli(['uninstall', 'claude-code', '--project', project], { cwd: tmpdir() });
  assert.equal(code, 0, stderr);
  const left = Object.keys(snapshot(project)).filter((f) => !f.startsWith(join('.opencomms', 'pins')));
  assert.deepEqual(left.sort(), ['.mcp.json', join(PLUGIN_REL, 'hooks', 'mine.txt'), join('.opencomms', 'opencomms.js'), join('.opencomms', 'package.json')].sort());
  assert.ok(stdout.includes(`claude plugin uninstall opencomms@${marketplaceOf(project)} --scope local\n`), stdout);
  assert.ok(stdout.includes(`claude plugin marketplace remove ${marketplaceOf(project)}\n`), stdout);
});

test('--plugin --apply with no claude on PATH explains, exits 1 and writes nothing', async (t) => {
  const project = tempProject(t);
  const bin = fakeBin(t, false);
  const { code, stdout, stderr } = await installByCli(project, ['--apply'], { PATH: `${bin.dir}:${dirname(process.execPath)}` });
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(stderr, /claude CLI.*not.*found on PATH|none was found on PATH/);
  assert.deepEqual(snapshot(project), {});
});

test('--plugin --apply runs exactly the two claude commands, argv only, from the project', async (t) => {
  const project = tempProject(t);
  const bin = fakeBin(t, true);
  const { code, stdout, stderr } = await install(project, ['--apply'], { PATH: `${bin.dir}:${dirname(process.execPath)}` });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /fake claude ok/);
  const calls = readFileSync(bin.log, 'utf8').split('---\n').filter(Boolean);
  assert.deepEqual(calls, [
    `cwd=${project}\n${['plugin', 'marketplace', 'add', join(project, PLUGIN_REL), '--scope', 'local'].map((a) => `arg=${a}\n`).join('')}`,
    `cwd=${project}\n${['plugin', 'install', `opencomms@${marketplaceOf(project)}`, '--scope', 'local'].map((a) => `arg=${a}\n`).join('')}`,
  ]);
});

test('install opencode copies the OpenCode plugin byte for byte; a second run changes nothing; uninstall removes it', async (t) => {
  const project = tempProject(t);
  const first = await runCliInProcess(['install', 'opencode', '--project', project], { cwd: tmpdir() });
  assert.equal(first.code, 0, first.stderr);
  const plugin = join(project, '.opencode', 'plugin', 'opencomms.js');
  const expected = readFileSync(join(dirname(DIST), 'opencode-plugin.js'));
  assert.ok(readFileSync(plugin).equals(expected));
  assert.ok(readFileSync(join(project, '.opencomms', 'opencode-plugin.js')).equals(expected));
  const files = snapshot(project);
  const again = await runCliInProcess(['install', 'opencode', '--project', project], { cwd: tmpdir() });
  assert.match(again.stdout, /already installed/);
  assert.deepEqual(snapshot(project), files);
  // Installing from the project's own copy (.opencomms/opencomms.js) finds the plugin kept next to it.
  const other = tempProject(t);
  execFileSync(process.execPath, [join(project, '.opencomms', 'opencomms.js'), 'install', 'opencode', '--project', other], { cwd: tmpdir(), stdio: 'pipe' });
  assert.ok(readFileSync(join(other, '.opencode', 'plugin', 'opencomms.js')).equals(expected));
  const removed = await runCliInProcess(['uninstall', 'opencode', '--project', project], { cwd: tmpdir() });
  assert.equal(removed.code, 0, removed.stderr);
  assert.ok(!existsSync(join(project, '.opencode')), '.opencode/ went with the plugin');
});

test('each host says after install what still stands between it and our server and hooks', async (t) => {
  const expect: Record<string, RegExp> = {
    'claude-code': /settings\.local\.json \(yours, not for git\) approves the \.mcp\.json server/,
    'gemini-cli': /Gemini CLI trust: .*Not trusted yet: the folder/, codex: /Codex trust: .*Not trusted yet: the project, the SessionStart hook/,
  };
  const home = mkdtempSync(join(tmpdir(), 'opencomms-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  for (const [host, pattern] of Object.entries(expect)) {
    const { stdout } = await runCliInProcess(['install', host, '--project', tempProject(t)], { cwd: tmpdir(), env: { HOME: home, CODEX_HOME: undefined } });
    assert.match(stdout, pattern, host);
  }
});
