// install/uninstall through the shipped CLI, for every host that gets real
// config files. One table row per host; every behaviour is checked per host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject, type Finished, type Json } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import {
  expectedArgs, expectedHook, initializeWith, json, launchAsHost, readJson, runHookCommand, snapshot, tempHome, trustFlags, writeFiles, type Launch,
} from '../hosts/install-support';
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
  /** The files that still name the project by its absolute path (the host expands no variable there); install says so. */
  absoluteFiles: string[];
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
      assert.deepEqual(settings.hooks.PreToolUse[0], OTHER_HOOK);
    },
    hookEvents: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'],
    absoluteFiles: [],
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
    hookEvents: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
    absoluteFiles: ['.codex/config.toml', '.codex/hooks.json'],
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
    hookEvents: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent'],
    absoluteFiles: [],
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
    absoluteFiles: [],
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
    absoluteFiles: [],
  },
];

type Run = (args: string[], options: { cwd?: string }) => Promise<Finished>;

function commandsVia(run: Run) {
  return {
    install: (host: string, project: string, ...extra: string[]) => run(['install', host, '--project', project, ...extra], { cwd: tmpdir() }),
    uninstall: (host: string, project: string, ...extra: string[]) => run(['uninstall', host, '--project', project, ...extra], { cwd: tmpdir() }),
    doctor: (project: string) => run(['doctor', '--project', project], { cwd: tmpdir() }),
  };
}

const { install } = commandsVia(runCliInProcess);

for (const c of CASES) {
  // The first host's table goes through the executable, so each path (install, uninstall, --dry-run,
  // a refusal, doctor) is also checked through the shipped CLI; the other hosts run in this process.
  const { install, uninstall, doctor } = commandsVia(c === CASES[0] ? runCli : runCliInProcess);

  test(`${c.host}: a fresh install writes no member id, no pin, and no absolute path where the host expands variables`, async (t) => {
    const project = tempProject(t);
    const { code, stdout, stderr } = await install(c.host, project);
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stdout, /member id/);
    assert.match(stdout, new RegExp(`each ${c.host} session gets a member of its own`));
    for (const file of c.files) assert.ok(existsSync(join(project, file)), `${file} written`);
    const launch = c.launchOf(project);
    assert.equal(launch.command, 'node');
    assert.deepEqual(launch.args, expectedArgs(c.host, project));
    assert.deepEqual(launch.env ?? {}, {}, 'no OPENCOMMS_MEMBER_ID (nor any other variable) in the server entry');
    for (const file of c.files) {
      const text = readFileSync(join(project, file), 'utf8');
      assert.doesNotMatch(text, /OPENCOMMS_MEMBER_ID|sess_/, `${file} names no member`);
      if (c.absoluteFiles.includes(file)) {
        assert.ok(text.includes(project), `${file} keeps the absolute path`);
        assert.ok(stdout.split('\n').some((line) => line.includes(file) && line.includes('absolute path') && line.includes(c.host === 'codex' ? 'Codex' : 'OpenCode')), `install says why ${file} keeps an absolute path:\n${stdout}`);
      } else {
        assert.ok(!text.includes(project), `${file} names no absolute path:\n${text}`);
      }
    }
    if (c.absoluteFiles.length === 0) assert.doesNotMatch(stdout, /absolute path/);
    assert.ok(!existsSync(join(project, '.opencomms', 'pins')), 'install writes no pin');
    const bundle = join(project, '.opencomms', 'opencomms.js');
    if (process.platform !== 'win32') assert.ok((statSync(bundle).mode & 0o111) !== 0, 'bundle is executable');
    assert.equal(readFileSync(join(project, '.opencomms', 'package.json'), 'utf8'), '{"type":"commonjs"}\n');
    const hooks = c.hooksOf(project);
    assert.deepEqual(Object.keys(hooks), c.hookEvents);
    for (const event of c.hookEvents) assert.deepEqual(hooks[event], [expectedHook(c.host, project)]);
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

  test(`${c.host}: doctor finds the server copy the written config starts`, async (t) => {
    const project = tempProject(t);
    const env = { HOME: tempHome(t), CODEX_HOME: undefined };
    assert.equal((await runCliInProcess(['install', c.host, '--project', project, ...trustFlags(c.host)], { cwd: tmpdir(), env })).code, 0);
    const { code, stdout } = await (c === CASES[0] ? runCli : runCliInProcess)(['doctor', '--project', project], { cwd: tmpdir(), env });
    assert.equal(code, 0, stdout);
    assert.match(stdout, new RegExp(`ok {3}${c.host} \\(`));
    assert.doesNotMatch(stdout, /FAIL|WARN/);
  });

  test(`${c.host}: the server command in the written config starts and answers initialize`, async (t) => {
    const project = tempProject(t);
    assert.equal((await install(c.host, project)).code, 0);
    const { launch, cwd } = launchAsHost(c.host, c.launchOf(project), project);
    const reply = await initializeWith(t, launch, cwd);
    assert.equal(reply.result.protocolVersion, '2025-06-18');
  });
}

test('the hook command survives a project path with spaces, quotes and dollar signs when run through sh', async (t) => {
  const project = join(tempProject(t), 'my "odd" $HOME `dir`');
  mkdirSync(project);
  for (const host of ['claude-code', 'codex', 'gemini-cli']) {
    assert.equal((await install(host, project)).code, 0);
    const file = { 'claude-code': '.claude/settings.json', codex: '.codex/hooks.json', 'gemini-cli': '.gemini/settings.json' }[host]!;
    const [command] = hookCommands(readJson(join(project, file))).SessionStart;
    // Claude Code sets CLAUDE_PROJECT_DIR for its hooks, Gemini CLI sets GEMINI_PROJECT_DIR and runs them in the project.
    const env: Record<string, string> = host === 'claude-code' ? { CLAUDE_PROJECT_DIR: project } : host === 'gemini-cli' ? { GEMINI_PROJECT_DIR: project } : {};
    const event = host === 'gemini-cli' ? 'AfterAgent' : 'Stop';
    const run = await runHookCommand(command, { hook_event_name: event, session_id: 's1', cwd: project }, host === 'codex' ? tmpdir() : project, env);
    assert.equal(run.code, 0, `${host}: ${run.stderr}`);
    assert.doesNotThrow(() => JSON.parse(run.stdout));
  }
  const { launch, cwd } = launchAsHost('claude-code', readJson(join(project, '.mcp.json')).mcpServers.opencomms, project);
  const reply = await initializeWith(t, launch, cwd);
  assert.ok(reply.result);
});

test('the reservation hooks run only for the host\'s file-writing tools: Claude Code PreToolUse, Gemini CLI BeforeTool and AfterTool', async (t) => {
  const claude = tempProject(t);
  assert.equal((await install('claude-code', claude)).code, 0);
  const settings = readJson(join(claude, '.claude/settings.json'));
  assert.deepEqual(settings.hooks.PreToolUse.map((e: Json) => e.matcher), ['Edit|Write|MultiEdit|NotebookEdit|Bash']);
  assert.equal(settings.hooks.PostToolUse[0].matcher, undefined, 'mail still arrives after any tool');
  const gemini = tempProject(t);
  assert.equal((await install('gemini-cli', gemini)).code, 0);
  const gem = readJson(join(gemini, '.gemini/settings.json'));
  assert.deepEqual([gem.hooks.BeforeTool[0].matcher, gem.hooks.AfterTool[0].matcher], ['write_file|replace|run_shell_command', 'write_file|replace|run_shell_command']);
  const codex = tempProject(t);
  assert.equal((await install('codex', codex)).code, 0);
  const hooks = readJson(join(codex, '.codex/hooks.json'));
  assert.equal(hooks.hooks.PreToolUse[0].matcher, undefined, 'Codex edits through its shell tool, so every tool call is checked');
});

test('opencode: install registers no MCP server (the plugin gives each OpenCode session its tools, speaking as that session\'s member) and keeps the user\'s opencode.json as it was', async (t) => {
  const project = tempProject(t);
  const mine = json({ $schema: 'https://opencode.ai/config.json', model: 'x/y', mcp: { other: { type: 'local', command: ['other-srv'] } } });
  writeFileSync(join(project, 'opencode.json'), mine);
  const { code, stdout, stderr } = await install('opencode', project);
  assert.equal(code, 0, stderr);
  assert.equal(readFileSync(join(project, 'opencode.json'), 'utf8'), mine);
  assert.ok(existsSync(join(project, '.opencode', 'plugin', 'opencomms.js')));
  assert.doesNotMatch(stdout, /absolute path/);
  const fresh = tempProject(t);
  assert.equal((await install('opencode', fresh)).code, 0);
  assert.equal(existsSync(join(fresh, 'opencode.json')), false, 'no opencode.json is created');
});
