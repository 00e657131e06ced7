// Node's compile cache, through the shipped CLI: where the Node running
// install has one (Node ≥ 22.1; OPENCOMMS_COMPILE_CACHE=1 stands in for it
// here), every server entry and hook command install writes names a per-user
// cache folder, never one inside the project; uninstall takes it out byte for
// byte; a re-install where it does no work takes it out again.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject, type Finished, type Json } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { json, readJson, runHookCommand, snapshot, writeFiles } from '../hosts/install-support';
import { readOurServer } from '../../src/hosts/toml';

const UNDER_HOME = '.cache/opencomms/node-compile-cache';
const HOOK_PREFIX = `NODE_COMPILE_CACHE="$HOME/${UNDER_HOME}" `;

function tempHome(t: TestContext): string {
  const home = mkdtempSync(join(tmpdir(), 'opencomms-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

type Run = (args: string[], options: { cwd?: string; env?: Record<string, string | undefined> }) => Promise<Finished>;

function commandsVia(run: Run) {
  return {
    install: (host: string, project: string, home: string, cache: '0' | '1' | undefined) =>
      run(['install', host, '--project', project], { cwd: tmpdir(), env: { HOME: home, OPENCOMMS_COMPILE_CACHE: cache } }),
    uninstall: (host: string, project: string, home: string) => run(['uninstall', host, '--project', project], { cwd: tmpdir(), env: { HOME: home } }),
  };
}

const { install } = commandsVia(runCliInProcess);

function commandsIn(path: string): string[] {
  const hooks = (readJson(path).hooks ?? {}) as Record<string, Json[]>;
  return Object.values(hooks).flatMap((list) => list.flatMap((entry) => (entry.hooks as Json[]).map((h) => h.command as string)))
    .filter((command) => command.includes('opencomms.js'));
}

interface HostCase {
  host: string;
  /** NODE_COMPILE_CACHE in the server entry as written, `home` the user's home folder. */
  serverValue(home: string): string;
  serverEnv(project: string): Json | undefined;
  hooks(project: string): string[];
  existing: Record<string, string>;
}

const CASES: HostCase[] = [
  {
    host: 'claude-code',
    serverValue: () => `\${HOME}/${UNDER_HOME}`,
    serverEnv: (p) => readJson(join(p, '.mcp.json')).mcpServers.opencomms.env,
    hooks: (p) => commandsIn(join(p, '.claude/settings.json')),
    existing: { '.mcp.json': json({ mcpServers: { other: { type: 'stdio', command: 'other-srv', args: ['x'] } } }) },
  },
  {
    host: 'codex',
    serverValue: (home) => `${home}/${UNDER_HOME}`,
    serverEnv(p) {
      const { env } = readOurServer(readFileSync(join(p, '.codex/config.toml'), 'utf8'))!;
      return Object.keys(env).length === 0 ? undefined : env;
    },
    hooks: (p) => commandsIn(join(p, '.codex/hooks.json')),
    existing: { '.codex/config.toml': 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other-srv"\nargs = ["x"] # keep\n' },
  },
  {
    host: 'gemini-cli',
    serverValue: () => `\${HOME}/${UNDER_HOME}`,
    serverEnv: (p) => readJson(join(p, '.gemini/settings.json')).mcpServers.opencomms.env,
    hooks: (p) => commandsIn(join(p, '.gemini/settings.json')),
    existing: { '.gemini/settings.json': json({ theme: 'dark', mcpServers: { other: { command: 'other-srv' } } }) },
  },
  {
    host: 'vscode',
    serverValue: () => `\${userHome}/${UNDER_HOME}`,
    serverEnv: (p) => readJson(join(p, '.vscode/mcp.json')).servers.opencomms.env,
    hooks: () => [],
    existing: { '.vscode/mcp.json': json({ servers: { other: { command: 'other-srv' } } }) },
  },
];

for (const c of CASES) {
  // The first host's tests go through the shipped CLI; the other hosts run in this process.
  const { install, uninstall } = commandsVia(c === CASES[0] ? runCli : runCliInProcess);

  test(`install ${c.host} on a Node with a compile cache names a per-user cache folder in the server entry and every hook`, async (t) => {
    const project = tempProject(t);
    const home = tempHome(t);
    const done = await install(c.host, project, home, '1');
    assert.equal(done.code, 0, done.stderr);
    assert.deepEqual(c.serverEnv(project), { NODE_COMPILE_CACHE: c.serverValue(home) });
    for (const command of c.hooks(project)) assert.ok(command.startsWith(HOOK_PREFIX), command);
    assert.equal(statSync(join(home, UNDER_HOME)).mode & 0o777, 0o700);
  });

  test(`uninstall ${c.host} takes the compile cache out with the rest, byte for byte`, async (t) => {
    const project = tempProject(t);
    const home = tempHome(t);
    writeFiles(project, c.existing);
    const before = snapshot(project);
    assert.equal((await install(c.host, project, home, '1')).code, 0);
    const done = await uninstall(c.host, project, home);
    assert.equal(done.code, 0, done.stderr);
    const after = snapshot(project);
    for (const rel of Object.keys(c.existing)) assert.equal(after[rel], before[rel], rel);
  });

  test(`a re-install of ${c.host} where the cache does no work takes the variable out`, async (t) => {
    const project = tempProject(t);
    const home = tempHome(t);
    assert.equal((await install(c.host, project, home, '1')).code, 0);
    assert.equal((await install(c.host, project, home, '0')).code, 0);
    assert.equal(c.serverEnv(project), undefined);
    for (const command of c.hooks(project)) assert.ok(!command.includes('NODE_COMPILE_CACHE'), command);
  });
}

// Node 22.1 and later have module.enableCompileCache; Node 20 has not.
const NODE_HAS_COMPILE_CACHE = typeof createRequire(__filename)('node:module').enableCompileCache === 'function';

test('install left to decide names the compile cache exactly where the Node running it has one', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  const done = await commandsVia(runCli).install('claude-code', project, home, undefined);
  assert.equal(done.code, 0, done.stderr);
  const claude = CASES[0]!;
  if (NODE_HAS_COMPILE_CACHE) {
    assert.deepEqual(claude.serverEnv(project), { NODE_COMPILE_CACHE: claude.serverValue(home) });
    for (const command of claude.hooks(project)) assert.ok(command.startsWith(HOOK_PREFIX), command);
    assert.equal(statSync(join(home, UNDER_HOME)).mode & 0o777, 0o700);
  } else {
    assert.ok(!readFileSync(join(project, '.mcp.json'), 'utf8').includes('NODE_COMPILE_CACHE'));
    assert.ok(!readFileSync(join(project, '.claude/settings.json'), 'utf8').includes('NODE_COMPILE_CACHE'));
    assert.ok(!existsSync(join(home, '.cache')));
  }
});

test('the hook command as written, with the compile cache, still answers {}', async (t) => {
  const project = tempProject(t);
  const home = tempHome(t);
  assert.equal((await install('claude-code', project, home, '1')).code, 0);
  const [command] = commandsIn(join(project, '.claude/settings.json'));
  const event = { hook_event_name: 'UserPromptSubmit', session_id: 's1', cwd: project, prompt: 'hi' };
  const done = await runHookCommand(command!, event, project, { HOME: home, CLAUDE_PROJECT_DIR: project });
  assert.equal(done.code, 0, done.stderr);
  assert.equal(done.stdout, '{}\n');
});
