// A re-install changes only what is ours: keys a user added to our server
// entry survive, and config files with comments (JSONC) keep their comments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { json, readJson, writeFiles } from './install-support';

function install(host: string, project: string) {
  return runCliInProcess(['install', host, '--project', project], { cwd: tmpdir() });
}

/** The shipped CLI, for one test of each path (install, uninstall, a refusal): the rest run in this process. */
function installByCli(host: string, project: string) {
  return runCli(['install', host, '--project', project], { cwd: tmpdir() });
}

// README: "Running it again changes nothing". A second install rewrites our
// whole table, so what the user added to it (a start-up timeout, an extra env
// var such as OPENCOMMS_NO_SPAWN=1) silently disappears.
test('codex: a second install keeps the keys and env vars the user added to [mcp_servers.opencomms]', async (t) => {
  const project = tempProject(t);
  assert.equal((await installByCli('codex', project)).code, 0);
  const path = join(project, '.codex/config.toml');
  const edited = readFileSync(path, 'utf8')
    .replace(/^(args = .*)$/m, '$1\nstartup_timeout_sec = 30\n\n[mcp_servers.opencomms.env]\nOPENCOMMS_NO_SPAWN = "1"');
  writeFileSync(path, edited);
  const again = await install('codex', project);
  assert.equal(again.code, 0, again.stderr);
  const after = readFileSync(path, 'utf8');
  assert.match(after, /^startup_timeout_sec = 30$/m, `startup_timeout_sec dropped:\n${after}`);
  assert.match(after, /^OPENCOMMS_NO_SPAWN = "1"$/m, `OPENCOMMS_NO_SPAWN dropped:\n${after}`);
});

test('gemini-cli: a second install keeps the keys the user added to mcpServers.opencomms (trust, env)', async (t) => {
  const project = tempProject(t);
  assert.equal((await install('gemini-cli', project)).code, 0);
  const path = join(project, '.gemini/settings.json');
  const settings = readJson(path);
  settings.mcpServers.opencomms.trust = true;
  settings.mcpServers.opencomms.env = { OPENCOMMS_NO_SPAWN: '1' };
  writeFileSync(path, json(settings));
  const again = await install('gemini-cli', project);
  assert.equal(again.code, 0, again.stderr);
  const entry = readJson(path).mcpServers.opencomms;
  assert.equal(entry.trust, true, 'trust dropped');
  assert.equal(entry.env.OPENCOMMS_NO_SPAWN, '1', 'OPENCOMMS_NO_SPAWN dropped');
});

// VS Code reads .vscode/mcp.json as JSONC (its own docs show comments in it),
// and so does Gemini CLI for settings.json. The installer calls such a file
// "not valid JSON" and refuses to install.
test('vscode: a .vscode/mcp.json with comments is installed into with its comments kept, and uninstall gives it back byte for byte', async (t) => {
  const project = tempProject(t);
  const original = '{\n  // my servers\n  "servers": { "other": { "type": "stdio", "command": "other-srv" } } // keep\n}\n';
  writeFiles(project, { '.vscode/mcp.json': original });
  const { code, stderr } = await install('vscode', project);
  assert.equal(code, 0, stderr);
  const path = join(project, '.vscode/mcp.json');
  const text = readFileSync(path, 'utf8');
  assert.match(text, /\/\/ my servers/);
  assert.match(text, /\/\/ keep/);
  assert.match(text, /"other"/);
  assert.match(text, /"opencomms"/);
  assert.equal((await install('vscode', project)).code, 0);
  assert.equal(readFileSync(path, 'utf8'), text, 'a second install changes nothing');
  assert.equal((await runCli(['uninstall', 'vscode', '--project', project], { cwd: tmpdir() })).code, 0);
  assert.equal(readFileSync(path, 'utf8'), original);
});

// Gemini CLI takes comments there but stops at a trailing comma, which install refuses (doctor-strict-json.test.ts).
test('gemini-cli: a .gemini/settings.json with comments gets our server and hooks, comments kept', async (t) => {
  const project = tempProject(t);
  const original = '{\n  // theme\n  "ui": { "theme": "Default" } /* mine */\n}\n';
  writeFiles(project, { '.gemini/settings.json': original });
  const { code, stderr } = await install('gemini-cli', project);
  assert.equal(code, 0, stderr);
  const path = join(project, '.gemini/settings.json');
  const text = readFileSync(path, 'utf8');
  assert.match(text, /\/\/ theme/);
  assert.match(text, /"mcpServers"/);
  assert.match(text, /"hooks"/);
  assert.equal((await runCliInProcess(['uninstall', 'gemini-cli', '--project', project], { cwd: tmpdir() })).code, 0);
  assert.equal(readFileSync(path, 'utf8'), original, 'uninstall takes out exactly what install put in');
});

test('a config that is neither JSON nor JSON with comments is still refused and left untouched', async (t) => {
  const project = tempProject(t);
  const broken = '{\n  // half a file\n  "servers": {\n';
  writeFiles(project, { '.vscode/mcp.json': broken });
  const { code, stderr } = await installByCli('vscode', project);
  assert.equal(code, 1);
  assert.match(stderr, /not valid JSON, with or without comments/);
  assert.equal(readFileSync(join(project, '.vscode/mcp.json'), 'utf8'), broken);
});
