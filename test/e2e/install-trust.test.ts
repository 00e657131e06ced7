// Install makes each host able to use what it installs: Claude Code's grants
// in the project's local settings, Codex's and Gemini CLI's trust in the
// user's own files (shown by install, written by --apply); uninstall takes
// out exactly that. doctor names each missing approval, permission or trust,
// with its fix, and says "No problems" only when every host would run ours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { TestContext } from 'node:test';
import { runCli, tempProject } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { writeFiles } from '../hosts/install-support';
import { codexHookHash } from '../../src/hosts/codex-trust';

function tempHome(t: TestContext): string {
  const home = mkdtempSync(join(tmpdir(), 'opencomms-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

function cli(home: string, ...args: string[]) {
  return runCliInProcess(args, { cwd: tmpdir(), env: { HOME: home, CODEX_HOME: undefined } });
}

const read = (path: string): string => readFileSync(path, 'utf8');

test('claude-code: install allows the OpenComms tools and approves the server in .claude/settings.local.json; uninstall gives back the user\'s bytes', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  // No comment in it: Claude Code reads this file as strict JSON (doctor-strict-json.test.ts).
  const local = '{\r\n\t"permissions": {\r\n\t\t"allow": ["Bash(ls)"]\r\n\t},\r\n\t"model": "x"\r\n}\r\n';
  writeFiles(project, { '.claude/settings.local.json': local });
  const installed = await runCli(['install', 'claude-code', '--project', project], { cwd: tmpdir(), env: { HOME: home } });
  assert.equal(installed.code, 0, installed.stderr);
  const written = read(join(project, '.claude/settings.local.json'));
  assert.match(written, /"allow": \["Bash\(ls\)", "mcp__opencomms"\]/);
  assert.match(written, /\t"model": "x",\r\n\t"enabledMcpjsonServers": \["opencomms"\]\r\n\}\r\n$/);
  assert.equal(written.replace(/\r\n/g, '').includes('\n'), false, 'a bare LF in a CRLF file');
  assert.match(installed.stdout, /wrote \.claude\/settings\.local\.json \(permissions\.allow mcp__opencomms/);
  const again = await cli(home, 'install', 'claude-code', '--project', project);
  assert.equal(read(join(project, '.claude/settings.local.json')), written, 'a second install adds nothing');
  assert.match(again.stdout, /already installed/);
  const removed = await runCli(['uninstall', 'claude-code', '--project', project], { cwd: tmpdir(), env: { HOME: home } });
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(read(join(project, '.claude/settings.local.json')), local);
});

test('claude-code: a fresh install creates the local settings file and uninstall deletes it; an existing grant is not doubled', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  assert.equal((await cli(home, 'install', 'claude-code', '--project', project)).code, 0);
  assert.deepEqual(JSON.parse(read(join(project, '.claude/settings.local.json'))), { permissions: { allow: ['mcp__opencomms'] }, enabledMcpjsonServers: ['opencomms'] });
  assert.equal((await cli(home, 'uninstall', 'claude-code', '--project', project)).code, 0);
  assert.equal(existsSync(join(project, '.claude/settings.local.json')), false);
  const other = tempProject(t);
  writeFiles(other, { '.claude/settings.local.json': '{"permissions":{"allow":["mcp__opencomms__*"]},"enableAllProjectMcpServers":true}\n' });
  assert.equal((await cli(home, 'install', 'claude-code', '--project', other)).code, 0);
  assert.equal(read(join(other, '.claude/settings.local.json')), '{"permissions":{"allow":["mcp__opencomms__*"]},"enableAllProjectMcpServers":true}\n');
});

test('codex: install prints the trust lines with the hashes of the hooks it wrote, and writes nothing outside the project without --apply', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  const { code, stdout } = await cli(home, 'install', 'codex', '--project', project);
  assert.equal(code, 0);
  const hooks = JSON.parse(read(join(project, '.codex/hooks.json'))).hooks;
  const command = hooks.SessionStart[0].hooks[0].command as string;
  assert.ok(stdout.includes(`[projects."${project}"]\ntrust_level = "trusted"\n`), stdout);
  assert.ok(stdout.includes(`[hooks.state."${project}/.codex/hooks.json:session_start:0:0"]\ntrusted_hash = "${codexHookHash('SessionStart', { command, timeout: 15 })}"\n`), stdout);
  assert.equal((stdout.match(/trusted_hash = "sha256:[0-9a-f]{64}"/g) ?? []).length, 5);
  assert.match(stdout, /opencomms install codex --apply/);
  assert.equal(existsSync(join(home, '.codex')), false);
});

test('codex: --apply writes the lines into the user\'s config.toml (CODEX_HOME when set), once; uninstall gives back its bytes', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  const config = join(home, '.codex', 'config.toml');
  const original = '# my codex\r\nmodel = "o3"\r\n\r\n[projects."/elsewhere"]\r\ntrust_level = "trusted" # keep\r\n';
  writeFiles(home, { '.codex/config.toml': original });
  const dry = await cli(home, 'install', 'codex', '--project', project, '--apply', '--dry-run');
  assert.equal(read(config), original, 'a dry run writes nothing');
  assert.match(dry.stdout, /would write .*config\.toml:/);
  const applied = await cli(home, 'install', 'codex', '--project', project, '--apply');
  assert.equal(applied.code, 0, applied.stderr);
  assert.match(applied.stdout, /trust_level = "trusted"\n[\s\S]*wrote .*\.codex\/config\.toml \(Codex trust for the project/);
  const written = read(config);
  assert.ok(written.startsWith(`${original}\r\n# Trust for OpenComms in "${project}"`));
  const again = await cli(home, 'install', 'codex', '--project', project, '--apply');
  assert.match(again.stdout, /already trusts this project and the hooks install wrote/);
  assert.equal(read(config), written);
  assert.equal((await cli(home, 'uninstall', 'codex', '--project', project)).code, 0);
  assert.equal(read(config), original);

  const codexHome = join(home, 'elsewhere');
  const other = await runCliInProcess(['install', 'codex', '--project', project, '--apply'], { cwd: tmpdir(), env: { HOME: home, CODEX_HOME: codexHome } });
  assert.equal(other.code, 0, other.stderr);
  assert.match(read(join(codexHome, 'config.toml')), /trusted_hash/);
});

test('codex: --apply on a config.toml it cannot follow stops before writing anything', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  writeFiles(home, { '.codex/config.toml': `projects = { "${project}" = { trust_level = "trusted" } }\n` });
  const { code, stderr } = await cli(home, 'install', 'codex', '--project', project, '--apply');
  assert.equal(code, 1);
  assert.match(stderr, /--apply cannot add the codex trust/);
  assert.equal(existsSync(join(project, '.codex')), false);
});

test('gemini-cli: --apply trusts the folder in ~/.gemini/trustedFolders.json, keeping the user\'s bytes; uninstall takes out only that', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  const original = '{\n\t"/some/where": "TRUST_FOLDER"\n}\n';
  writeFiles(home, { '.gemini/trustedFolders.json': original });
  const shown = await cli(home, 'install', 'gemini-cli', '--project', project);
  assert.ok(shown.stdout.includes(`${JSON.stringify(project)}: "TRUST_FOLDER"`), shown.stdout);
  assert.equal(read(join(home, '.gemini/trustedFolders.json')), original);
  assert.equal((await cli(home, 'install', 'gemini-cli', '--project', project, '--apply')).code, 0);
  assert.deepEqual(JSON.parse(read(join(home, '.gemini/trustedFolders.json'))), { '/some/where': 'TRUST_FOLDER', [project]: 'TRUST_FOLDER' });
  assert.equal((await cli(home, 'uninstall', 'gemini-cli', '--project', project)).code, 0);
  assert.equal(read(join(home, '.gemini/trustedFolders.json')), original);

  const fresh = tempHome(t);
  assert.equal((await cli(fresh, 'install', 'gemini-cli', '--project', project, '--apply')).code, 0);
  assert.equal((await cli(fresh, 'uninstall', 'gemini-cli', '--project', project)).code, 0);
  assert.equal(existsSync(join(fresh, '.gemini/trustedFolders.json')), false, 'the file --apply created goes with it');
});

test('gemini-cli: a folder the user trusted already, or under a trusted parent, gets no entry and keeps it on uninstall', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  const original = `{"${tmpdir()}": "TRUST_FOLDER"}\n`;
  writeFiles(home, { '.gemini/trustedFolders.json': original });
  const { stdout } = await cli(home, 'install', 'gemini-cli', '--project', project, '--apply');
  assert.match(stdout, /already trusts this folder/);
  await cli(home, 'uninstall', 'gemini-cli', '--project', project);
  assert.equal(read(join(home, '.gemini/trustedFolders.json')), original);
});

interface DoctorJson {
  ok: boolean;
  checks: { name: string; status: string; reason?: string; fix?: string }[];
}

async function doctor(home: string, project: string): Promise<DoctorJson & { code: number | null }> {
  const { code, stdout } = await cli(home, 'doctor', '--project', project, '--json');
  return { code, ...(JSON.parse(stdout) as DoctorJson) };
}

test('doctor reports each missing trust, approval and permission with its fix on a HOME that lacks them, and no problem once they are there', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  for (const host of ['claude-code', 'codex', 'gemini-cli', 'opencode']) assert.equal((await cli(home, 'install', host, '--project', project)).code, 0);
  unlinkSync(join(project, '.claude/settings.local.json'));
  const before = await doctor(home, project);
  assert.equal(before.code, 1);
  const failing = Object.fromEntries(before.checks.filter((c) => c.status === 'fail').map((c) => [c.reason, c.fix]));
  assert.deepEqual(failing, {
    claude_tools_not_allowed: 'opencomms install claude-code',
    claude_server_not_approved: 'opencomms install claude-code',
    codex_not_trusted: 'opencomms install codex --apply',
    gemini_folder_not_trusted: 'opencomms install gemini-cli --apply',
  });
  const text = await cli(home, 'doctor', '--project', project);
  assert.match(text.stdout, /FAIL claude-code tools: .*Fix: `opencomms install claude-code`/);
  assert.doesNotMatch(text.stdout, /No problems/);

  for (const [host, ...extra] of [['claude-code'], ['codex', '--apply'], ['gemini-cli', '--apply']]) {
    assert.equal((await cli(home, 'install', host!, '--project', project, ...extra)).code, 0);
  }
  const after = await doctor(home, project);
  assert.equal(after.code, 0, JSON.stringify(after.checks.filter((c) => c.status !== 'ok')));
  assert.deepEqual(after.checks.filter((c) => /trust|tools|approval|plugin/.test(c.name)).map((c) => [c.name, c.status]), [
    ['claude-code tools', 'ok'], ['claude-code server approval', 'ok'], ['codex trust', 'ok'], ['gemini-cli folder trust', 'ok'], ['opencode plugin', 'ok'],
  ]);
  assert.match((await cli(home, 'doctor', '--project', project)).stdout, /No problems/);
});

test('doctor names the hook whose trust went out of date, an allow rule Claude Code ignores, a missing OpenCode plugin and held cross-session messages', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  for (const host of ['codex', 'opencode']) assert.equal((await cli(home, 'install', host, '--project', project, '--apply')).code, 0);
  // A re-install with a fixed member changes every hook command, so the trusted hashes no longer match.
  assert.equal((await cli(home, 'install', 'codex', '--project', project, '--member', 'bob')).code, 0);
  const claude = tempProject(t);
  assert.equal((await cli(home, 'install', 'claude-code', '--project', claude)).code, 0);
  writeFiles(claude, { '.claude/settings.local.json': '{"enabledMcpjsonServers":["opencomms"]}\n', '.claude/settings.json': read(join(claude, '.claude/settings.json')).replace('{', '{"permissions":{"allow":["mcp__opencomms"]},') });
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(join(home, '.claude/settings.json'), '{"crossSessionInbound":"hold"}\n');
  unlinkSync(join(project, '.opencode/plugin/opencomms.js'));

  const codex = (await doctor(home, project)).checks;
  assert.match(JSON.stringify(codex.find((c) => c.name === 'codex trust')), /the SessionStart hook changed since it was trusted/);
  assert.equal(codex.find((c) => c.name === 'opencode plugin')?.reason, 'opencode_plugin_missing');
  const checks = (await doctor(home, claude)).checks;
  const tools = checks.find((c) => c.name === 'claude-code tools')!;
  assert.equal(tools.reason, 'claude_tools_not_allowed');
  assert.match(JSON.stringify(tools), /\.claude\/settings\.json has one, but Claude Code does not take it from that file/);
  assert.deepEqual(checks.find((c) => c.name === 'claude-code messaging')?.status, 'warn');
});
