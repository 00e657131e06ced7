// install/uninstall through the shipped CLI, for every host that gets real
// config files. One table row per host; every behaviour is checked per host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject, type Json } from '../helpers/server';
import { initializeWith, json, readJson, runHookCommand, snapshot, writeFiles, type Launch } from '../hosts/install-support';
import { readOurServer } from '../../src/hosts/toml';

const HOOK_MARK = 'opencomms.js" hook';

interface HostCase {
  host: string;
  /** The config files install writes, relative to the project. */
  files: string[];
  /** Unrelated config already in the project: other servers, other hooks. */
  existing: Record<string, string>;
  /** The file to break for the malformed-file test. */
  breakable: string;
  /** The server launch the written config describes. */
  launchOf(project: string): Launch;
  /** Hook commands the config holds (ours included), by event. */
  hooksOf(project: string): Record<string, string[]>;
  /** Checks that the unrelated content survived install. */
  assertKept(project: string): void;
  hookEvents: string[];
}

const OTHER_HOOK = { hooks: [{ type: 'command', command: 'echo keep-me', timeout: 5 }] };

function hookCommands(settings: Json | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [event, list] of Object.entries((settings?.hooks ?? {}) as Record<string, Json[]>)) {
    out[event] = list.flatMap((entry) => (entry.hooks as Json[]).map((h) => h.command as string));
  }
  return out;
}

const jsonIfExists = (path: string): Json | undefined => (existsSync(path) ? readJson(path) : undefined);

const CASES: HostCase[] = [
  {
    host: 'claude-code',
    files: ['.mcp.json', '.claude/settings.json'],
    existing: {
      '.mcp.json': json({ mcpServers: { other: { type: 'stdio', command: 'other-srv', args: ['x'] } }, zeta: 1 }),
      '.claude/settings.json': json({ permissions: { allow: ['Bash(ls)'] }, hooks: { Stop: [OTHER_HOOK], PreToolUse: [OTHER_HOOK] } }),
    },
    breakable: '.claude/settings.json',
    launchOf: (p) => readJson(join(p, '.mcp.json')).mcpServers.opencomms,
    hooksOf: (p) => hookCommands(jsonIfExists(join(p, '.claude/settings.json'))),
    assertKept(p) {
      const mcp = readJson(join(p, '.mcp.json'));
      assert.deepEqual(Object.keys(mcp), ['mcpServers', 'zeta']);
      assert.deepEqual(mcp.mcpServers.other, { type: 'stdio', command: 'other-srv', args: ['x'] });
      const settings = readJson(join(p, '.claude/settings.json'));
      assert.deepEqual(settings.permissions, { allow: ['Bash(ls)'] });
      assert.deepEqual(settings.hooks.Stop[0], OTHER_HOOK);
      assert.deepEqual(settings.hooks.PreToolUse, [OTHER_HOOK]);
    },
    hookEvents: ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop', 'SessionEnd'],
  },
  {
    host: 'codex',
    files: ['.codex/config.toml', '.codex/hooks.json'],
    existing: {
      '.codex/config.toml': 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other-srv"\nargs = ["x"] # keep\n',
      '.codex/hooks.json': json({ hooks: { Stop: [OTHER_HOOK] } }),
    },
    breakable: '.codex/config.toml',
    launchOf: (p) => readOurServer(readFileSync(join(p, '.codex/config.toml'), 'utf8'))!,
    hooksOf: (p) => hookCommands(jsonIfExists(join(p, '.codex/hooks.json'))),
    assertKept(p) {
      const toml = readFileSync(join(p, '.codex/config.toml'), 'utf8');
      assert.ok(toml.startsWith('model = "o3"\n\n[mcp_servers.other]\ncommand = "other-srv"\nargs = ["x"] # keep\n'));
      assert.deepEqual(readJson(join(p, '.codex/hooks.json')).hooks.Stop[0], OTHER_HOOK);
    },
    hookEvents: ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop'],
  },
  {
    host: 'gemini-cli',
    files: ['.gemini/settings.json'],
    existing: {
      '.gemini/settings.json': json({ theme: 'dark', mcpServers: { other: { command: 'other-srv' } }, hooks: { AfterAgent: [OTHER_HOOK] } }),
    },
    breakable: '.gemini/settings.json',
    launchOf: (p) => readJson(join(p, '.gemini/settings.json')).mcpServers.opencomms,
    hooksOf: (p) => hookCommands(jsonIfExists(join(p, '.gemini/settings.json'))),
    assertKept(p) {
      const settings = readJson(join(p, '.gemini/settings.json'));
      assert.equal(settings.theme, 'dark');
      assert.deepEqual(settings.mcpServers.other, { command: 'other-srv' });
      assert.deepEqual(settings.hooks.AfterAgent[0], OTHER_HOOK);
    },
    hookEvents: ['SessionStart', 'BeforeAgent', 'AfterAgent'],
  },
  {
    host: 'opencode',
    files: ['opencode.json'],
    existing: {
      'opencode.json': json({ $schema: 'https://opencode.ai/config.json', model: 'x/y', mcp: { other: { type: 'local', command: ['other-srv'] } } }),
    },
    breakable: 'opencode.json',
    launchOf(p) {
      const entry = readJson(join(p, 'opencode.json')).mcp.opencomms;
      assert.equal(entry.type, 'local');
      assert.equal(entry.enabled, true);
      return { command: entry.command[0], args: entry.command.slice(1), env: entry.environment };
    },
    hooksOf: () => ({}),
    assertKept(p) {
      const config = readJson(join(p, 'opencode.json'));
      assert.deepEqual(Object.keys(config), ['$schema', 'model', 'mcp']);
      assert.deepEqual(config.mcp.other, { type: 'local', command: ['other-srv'] });
    },
    hookEvents: [],
  },
  {
    host: 'cursor',
    files: ['.cursor/mcp.json'],
    existing: { '.cursor/mcp.json': json({ mcpServers: { other: { command: 'other-srv' } } }) },
    breakable: '.cursor/mcp.json',
    launchOf: (p) => readJson(join(p, '.cursor/mcp.json')).mcpServers.opencomms,
    hooksOf: () => ({}),
    assertKept: (p) => assert.deepEqual(readJson(join(p, '.cursor/mcp.json')).mcpServers.other, { command: 'other-srv' }),
    hookEvents: [],
  },
  {
    host: 'vscode',
    files: ['.vscode/mcp.json'],
    existing: { '.vscode/mcp.json': json({ servers: { other: { type: 'stdio', command: 'other-srv' } }, inputs: [] }) },
    breakable: '.vscode/mcp.json',
    launchOf(p) {
      const entry = readJson(join(p, '.vscode/mcp.json')).servers.opencomms;
      assert.equal(entry.type, 'stdio');
      return entry;
    },
    hooksOf: () => ({}),
    assertKept(p) {
      const config = readJson(join(p, '.vscode/mcp.json'));
      assert.deepEqual(config.servers.other, { type: 'stdio', command: 'other-srv' });
      assert.deepEqual(config.inputs, []);
    },
    hookEvents: [],
  },
];

function install(host: string, project: string, ...extra: string[]) {
  return runCli(['install', host, '--project', project, ...extra], { cwd: tmpdir() });
}

function uninstall(host: string, project: string, ...extra: string[]) {
  return runCli(['uninstall', host, '--project', project, ...extra], { cwd: tmpdir() });
}

function memberIdIn(stdout: string): string {
  const match = /member id (\S+)/.exec(stdout);
  assert.ok(match, `no member id in: ${stdout}`);
  return match[1];
}

for (const c of CASES) {
  test(`${c.host}: a fresh project gets absolute config, a real pinned member id and the bundle copy`, async (t) => {
    const project = tempProject(t);
    const { code, stdout, stderr } = await install(c.host, project);
    assert.equal(code, 0, stderr);
    const memberId = memberIdIn(stdout);
    assert.match(memberId, /^sess_[0-9a-f]{24}$/);
    for (const file of c.files) assert.ok(existsSync(join(project, file)), `${file} written`);
    const launch = c.launchOf(project);
    const bundle = join(project, '.opencomms', 'opencomms.js');
    assert.deepEqual(launch.args, [bundle, '--project', project, '--host', c.host]);
    assert.deepEqual(launch.env, { OPENCOMMS_MEMBER_ID: memberId });
    assert.deepEqual(readJson(join(project, '.opencomms', 'pins', `${memberId}.json`)).host, c.host);
    if (process.platform !== 'win32') assert.ok((statSync(bundle).mode & 0o111) !== 0, 'bundle is executable');
    assert.equal(readFileSync(join(project, '.opencomms', 'package.json'), 'utf8'), '{"type":"commonjs"}\n');
    const hooks = c.hooksOf(project);
    assert.deepEqual(Object.keys(hooks), c.hookEvents);
    for (const event of c.hookEvents) {
      assert.deepEqual(hooks[event], [
        `OPENCOMMS_MEMBER_ID=${memberId} OPENCOMMS_HOST=${c.host} node "${bundle}" hook --project "${project}"`,
      ]);
    }
  });

  test(`${c.host}: other servers, hooks and keys are kept, and uninstall restores the files byte for byte`, async (t) => {
    const project = tempProject(t);
    writeFiles(project, c.existing);
    const before = snapshot(project);
    const { code, stderr } = await install(c.host, project);
    assert.equal(code, 0, stderr);
    c.assertKept(project);
    for (const [event, commands] of Object.entries(c.hooksOf(project))) {
      if (c.hookEvents.includes(event)) assert.equal(commands.filter((cmd) => cmd.includes(HOOK_MARK)).length, 1, event);
    }
    const removed = await uninstall(c.host, project);
    assert.equal(removed.code, 0, removed.stderr);
    const after = snapshot(project);
    for (const file of Object.keys(c.existing)) assert.equal(after[file], before[file], `${file} restored`);
  });

  test(`${c.host}: a second install leaves every file byte-identical and says so`, async (t) => {
    const project = tempProject(t);
    writeFiles(project, c.existing);
    assert.equal((await install(c.host, project)).code, 0);
    const first = snapshot(project);
    const again = await install(c.host, project);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already installed/);
    assert.deepEqual(snapshot(project), first);
  });

  test(`${c.host}: a malformed config stops the install with exit 1, names the file and touches nothing`, async (t) => {
    const project = tempProject(t);
    writeFiles(project, c.existing);
    const broken = c.breakable.endsWith('.toml') ? '[mcp_servers.opencomms]\ncommand = "node\n' : '{"mcpServers": {,}\n';
    writeFiles(project, { [c.breakable]: broken });
    const before = snapshot(project);
    const { code, stderr, stdout } = await install(c.host, project);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.ok(stderr.includes(join(project, c.breakable)), stderr);
    assert.equal(stderr.trim().split('\n').length, 1);
    assert.deepEqual(snapshot(project), before);
    const removed = await uninstall(c.host, project);
    assert.equal(removed.code, 1);
    assert.deepEqual(snapshot(project), before);
  });

  test(`${c.host}: uninstall after a fresh install removes the files it created and keeps .opencomms`, async (t) => {
    const project = tempProject(t);
    assert.equal((await install(c.host, project)).code, 0);
    const { code, stderr } = await uninstall(c.host, project);
    assert.equal(code, 0, stderr);
    const left = Object.keys(snapshot(project)).filter((f) => !f.startsWith('.opencomms'));
    assert.deepEqual(left, []);
    assert.ok(existsSync(join(project, '.opencomms', 'opencomms.js')));
    const twice = await uninstall(c.host, project);
    assert.equal(twice.code, 0);
    assert.match(twice.stdout, /not installed/);
  });

  test(`${c.host}: --dry-run writes nothing and prints the exact bytes a real install writes`, async (t) => {
    const project = tempProject(t);
    writeFiles(project, c.existing);
    const before = snapshot(project);
    const dry = await install(c.host, project, '--member', 'dry_member', '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(snapshot(project), before);
    assert.match(dry.stdout, /would pin it/);
    await install(c.host, project, '--member', 'dry_member');
    for (const file of c.files) {
      const path = join(project, file);
      assert.ok(dry.stdout.includes(`would write ${path}:\n${readFileSync(path, 'utf8')}`), `${file} printed exactly`);
    }
    const installed = snapshot(project);
    const dryUninstall = await uninstall(c.host, project, '--dry-run');
    assert.equal(dryUninstall.code, 0);
    assert.deepEqual(snapshot(project), installed);
    for (const file of Object.keys(c.existing)) {
      assert.ok(dryUninstall.stdout.includes(`would write ${join(project, file)}:\n${before[file]}`), `${file} uninstall printed`);
    }
  });

  test(`${c.host}: the server command in the written config starts and answers initialize`, async (t) => {
    const project = tempProject(t);
    assert.equal((await install(c.host, project)).code, 0);
    const reply = await initializeWith(t, c.launchOf(project), tmpdir());
    assert.equal(reply.result.protocolVersion, '2025-06-18');
  });
}

test('the hook command survives a project path with spaces, quotes and dollar signs when run through sh', async (t) => {
  const project = join(tempProject(t), 'my "odd" $HOME `dir`');
  mkdirSync(project);
  assert.equal((await install('claude-code', project)).code, 0);
  const [command] = hookCommands(readJson(join(project, '.claude/settings.json'))).Stop;
  const run = await runHookCommand(command, { hook_event_name: 'Stop', session_id: 's1', cwd: project }, tmpdir());
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotThrow(() => JSON.parse(run.stdout));
  const reply = await initializeWith(t, readJson(join(project, '.mcp.json')).mcpServers.opencomms, tmpdir());
  assert.ok(reply.result);
});
