// Re-running install on a project set up by the pinned-id installer: the old
// entries (a member id in the server env and in every hook command, absolute
// paths) are rewritten to the new form, install says what it changed, and the
// old pin stays for the first session to adopt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject, type Json } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { expectedArgs, expectedHook, json, readJson, writeFiles } from '../hosts/install-support';

const OLD_ID = 'sess_0123456789abcdef01234567';

/** The hook command the pinned-id installer wrote. */
function oldHook(host: string, root: string): string {
  return `OPENCOMMS_MEMBER_ID=${OLD_ID} OPENCOMMS_HOST=${host} node "${root}/.opencomms/opencomms.js" hook --project "${root}"`;
}

function oldHooks(host: string, root: string, events: string[], timeout: number): Json {
  return Object.fromEntries(events.map((e) => [e, [{ hooks: [{ type: 'command', command: oldHook(host, root), timeout }] }]]));
}

function oldArgs(host: string, root: string): string[] {
  return [`${root}/.opencomms/opencomms.js`, '--project', root, '--host', host];
}

/** The files the pinned-id installer wrote for `host`, as it wrote them, for a project that lived at `root`. */
function oldStyleFiles(host: string, root: string): Record<string, string> {
  switch (host) {
    case 'claude-code':
      return {
        '.mcp.json': json({ mcpServers: { opencomms: { type: 'stdio', command: 'node', args: oldArgs(host, root), env: { OPENCOMMS_MEMBER_ID: OLD_ID, MY_VAR: 'kept' } } } }),
        '.claude/settings.json': json({ hooks: oldHooks(host, root, ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop', 'SessionEnd'], 15) }),
      };
    case 'codex':
      return {
        '.codex/config.toml': `[mcp_servers.opencomms]\ncommand = "node"\nargs = [${oldArgs(host, root).map((a) => JSON.stringify(a)).join(', ')}]\n\n[mcp_servers.opencomms.env]\nOPENCOMMS_MEMBER_ID = "${OLD_ID}"\n`,
        '.codex/hooks.json': json({ hooks: oldHooks(host, root, ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop'], 15) }),
      };
    case 'gemini-cli':
      return {
        '.gemini/settings.json': json({
          mcpServers: { opencomms: { command: 'node', args: oldArgs(host, root), env: { OPENCOMMS_MEMBER_ID: OLD_ID } } },
          hooks: oldHooks(host, root, ['SessionStart', 'BeforeAgent', 'AfterAgent'], 15000),
        }),
      };
    default:
      return {
        'opencode.json': json({
          $schema: 'https://opencode.ai/config.json',
          mcp: { opencomms: { type: 'local', command: ['node', ...oldArgs(host, root)], environment: { OPENCOMMS_MEMBER_ID: OLD_ID }, enabled: true } },
        }),
      };
  }
}

const PIN = json({ member_id: OLD_ID, host: 'x', saved_at: '2026-01-01T00:00:00.000Z' });

function install(host: string, project: string) {
  return runCliInProcess(['install', host, '--project', project], { cwd: tmpdir() });
}

/** The shipped CLI, for the first host's migration: the rest run in this process. */
function installByCli(host: string, project: string) {
  return runCli(['install', host, '--project', project], { cwd: tmpdir() });
}

/** Every server argv and hook command the project's config for `host` holds. */
function writtenLaunch(host: string, project: string): { args: string[]; env: Json | undefined; hooks: string[] } {
  const hooksIn = (doc: Json): string[] => Object.values((doc.hooks ?? {}) as Record<string, Json[]>).flat().flatMap((e) => (e.hooks as Json[]).map((h) => h.command as string));
  switch (host) {
    case 'claude-code': {
      const entry = readJson(join(project, '.mcp.json')).mcpServers.opencomms;
      return { args: entry.args, env: entry.env, hooks: hooksIn(readJson(join(project, '.claude/settings.json'))) };
    }
    case 'codex': {
      const toml = readFileSync(join(project, '.codex/config.toml'), 'utf8');
      const args = JSON.parse(/^args = (.*)$/m.exec(toml)![1]) as string[];
      return { args, env: /OPENCOMMS_MEMBER_ID|\[mcp_servers\.opencomms\.env\]/.test(toml) ? { toml } : undefined, hooks: hooksIn(readJson(join(project, '.codex/hooks.json'))) };
    }
    case 'gemini-cli': {
      const settings = readJson(join(project, '.gemini/settings.json'));
      return { args: settings.mcpServers.opencomms.args, env: settings.mcpServers.opencomms.env, hooks: hooksIn(settings) };
    }
    default: {
      const entry = readJson(join(project, 'opencode.json')).mcp.opencomms;
      return { args: entry.command.slice(1), env: entry.environment, hooks: [] };
    }
  }
}

for (const host of ['claude-code', 'codex', 'gemini-cli']) {
  test(`${host}: install over a pinned-id install rewrites it to the new form, says what it changed and keeps the pin`, async (t) => {
    const run = host === 'claude-code' ? installByCli : install;
    const project = tempProject(t);
    writeFiles(project, { ...oldStyleFiles(host, project), [`.opencomms/pins/${OLD_ID}.json`]: PIN });
    const { code, stdout, stderr } = await run(host, project);
    assert.equal(code, 0, stderr);
    const written = writtenLaunch(host, project);
    assert.deepEqual(written.args, expectedArgs(host, project));
    assert.deepEqual(written.hooks, written.hooks.map(() => expectedHook(host, project)));
    assert.deepEqual(written.env, host === 'claude-code' ? { MY_VAR: 'kept' } : undefined, 'the id is gone, a variable of the user stays');
    for (const file of Object.keys(oldStyleFiles(host, project))) {
      assert.doesNotMatch(readFileSync(join(project, file), 'utf8'), /OPENCOMMS_MEMBER_ID/, file);
    }
    for (const file of Object.keys(oldStyleFiles(host, project))) {
      const line = stdout.split('\n').find((l) => l.includes(file) && l.includes(`OPENCOMMS_MEMBER_ID=${OLD_ID}`));
      assert.ok(line, `install names what it took out of ${file}:\n${stdout}`);
    }
    assert.ok(stdout.includes(`.opencomms/pins/${OLD_ID}.json`), `install says the pin stays:\n${stdout}`);
    assert.equal(readFileSync(join(project, '.opencomms', 'pins', `${OLD_ID}.json`), 'utf8'), PIN, 'the pin is left as it was');
    const again = await run(host, project);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already installed/);
  });
}

test('opencode: install over a pinned-id install takes its MCP server entry out (the plugin gives the tools), says so and keeps the pin', async (t) => {
  const project = tempProject(t);
  writeFiles(project, { ...oldStyleFiles('opencode', project), [`.opencomms/pins/${OLD_ID}.json`]: PIN });
  const { code, stdout, stderr } = await install('opencode', project);
  assert.equal(code, 0, stderr);
  const config = readJson(join(project, 'opencode.json'));
  assert.deepEqual(config, { $schema: 'https://opencode.ai/config.json' }, 'our entry is gone, the file stays');
  assert.match(stdout, /opencode\.json.*taken out/);
  assert.equal(readFileSync(join(project, '.opencomms', 'pins', `${OLD_ID}.json`), 'utf8'), PIN, 'the pin is left as it was');
  assert.ok(existsSync(join(project, '.opencode', 'plugin', 'opencomms.js')));
});

test('claude-code: a project moved since the pinned-id install gets its old absolute paths replaced, and install names them', async (t) => {
  const project = tempProject(t);
  const oldRoot = join(tmpdir(), 'where-it-used-to-be');
  writeFiles(project, oldStyleFiles('claude-code', oldRoot));
  const { code, stdout, stderr } = await install('claude-code', project);
  assert.equal(code, 0, stderr);
  assert.deepEqual(writtenLaunch('claude-code', project).args, expectedArgs('claude-code', project));
  const mcpLine = stdout.split('\n').find((l) => l.includes('.mcp.json') && l.includes(`${oldRoot}/.opencomms/opencomms.js`));
  assert.ok(mcpLine?.includes('${CLAUDE_PROJECT_DIR:-.}/.opencomms/opencomms.js'), `install names the old and new server path:\n${stdout}`);
  const hookLine = stdout.split('\n').find((l) => l.includes('.claude/settings.json'));
  assert.ok(hookLine?.includes(oldRoot) && hookLine.includes('$CLAUDE_PROJECT_DIR'), `install names the old and new hook path:\n${stdout}`);
});

test('codex: a second install keeps the variables the user put in the env table, and takes only the old id out', async (t) => {
  const project = tempProject(t);
  const files = oldStyleFiles('codex', project);
  files['.codex/config.toml'] = files['.codex/config.toml'].replace(`OPENCOMMS_MEMBER_ID = "${OLD_ID}"\n`, `OPENCOMMS_MEMBER_ID = "${OLD_ID}"\nOPENCOMMS_NO_SPAWN = "1" # mine\n`);
  writeFiles(project, files);
  assert.equal((await install('codex', project)).code, 0);
  const toml = readFileSync(join(project, '.codex/config.toml'), 'utf8');
  assert.equal(toml, `[mcp_servers.opencomms]\ncommand = "node"\nargs = [${expectedArgs('codex', project).map((a) => JSON.stringify(a)).join(', ')}]\nenv_vars = ["CODEX_HOME"]\n\n[mcp_servers.opencomms.env]\nOPENCOMMS_NO_SPAWN = "1" # mine\n`);
});

test('re-installing without --member over a --member install takes the fixed id out and says so', async (t) => {
  const project = tempProject(t);
  assert.equal((await runCliInProcess(['install', 'claude-code', '--project', project, '--member', 'alice-1'], { cwd: tmpdir() })).code, 0);
  assert.equal(readJson(join(project, '.mcp.json')).mcpServers.opencomms.env.OPENCOMMS_MEMBER_ID, 'alice-1');
  const { code, stdout } = await install('claude-code', project);
  assert.equal(code, 0);
  assert.equal(readJson(join(project, '.mcp.json')).mcpServers.opencomms.env, undefined);
  assert.match(stdout, /OPENCOMMS_MEMBER_ID=alice-1/);
  assert.ok(readFileSync(join(project, '.opencomms', 'pins', 'alice-1.json'), 'utf8'));
});
