// `install <host> --store URL`, through the shipped CLI: every host config
// install writes carries the store (the server entry's variables and the
// hook commands) and never a password; uninstall takes it out byte for byte;
// a re-install keeps it; the URL is checked as the store checks it, without
// any credentials.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runCli, tempProject, type Finished, type Json } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { json, readJson, runHookCommand, snapshot, writeFiles } from '../hosts/install-support';
import { readOurServer } from '../../src/hosts/toml';

const URL = 'rediss://oc-agent@redis.example.com:6380/2';
const PROJECT_ID = 'acme-web';
/** Set while installing: it must reach no file and no output. */
const PASSWORD = 'never-written-pw-71d3';
const STORE_ENV = { OPENCOMMS_STORE: URL, OPENCOMMS_PROJECT_ID: PROJECT_ID };
/** The password variables the Codex entry forwards from the user's environment (Codex passes few by default). */
const FORWARDED = ['OPENCOMMS_STORE_PASSWORD_FILE', 'OPENCOMMS_STORE_PASSWORD', 'OPENCOMMS_STORE_CA'];

const ENV = {
  OPENCOMMS_STORE: undefined, OPENCOMMS_STORE_PASSWORD_FILE: undefined, OPENCOMMS_STORE_CA: undefined,
  OPENCOMMS_STORE_PASSWORD: PASSWORD, OPENCOMMS_PROJECT_ID: PROJECT_ID,
};

type Run = (args: string[], options: { cwd?: string; env?: Record<string, string | undefined> }) => Promise<Finished>;

function commandsVia(run: Run) {
  return {
    install: (host: string, project: string, extra: string[] = [], env: Record<string, string | undefined> = ENV) =>
      run(['install', host, '--project', project, ...extra], { cwd: tmpdir(), env }),
    uninstall: (host: string, project: string) => run(['uninstall', host, '--project', project], { cwd: tmpdir(), env: ENV }),
  };
}

const { install } = commandsVia(runCliInProcess);
/** The shipped CLI, for one test of each path: the rest run in this process. */
const throughCli = commandsVia(runCli);

interface HostCase {
  host: string;
  extra?: string[];
  /** The server entry's variables as written. */
  serverEnv(project: string): Json | undefined;
  /** Every hook command written. */
  hooks(project: string): string[];
  /** Unrelated config already in the project, for the round trip. */
  existing: Record<string, string>;
}

const OTHER_HOOK = { hooks: [{ type: 'command', command: 'echo keep-me', timeout: 5 }] };

function commandsIn(path: string): string[] {
  if (!existsSync(path)) return [];
  const hooks = (readJson(path).hooks ?? {}) as Record<string, Json[]>;
  return Object.values(hooks).flatMap((list) => list.flatMap((entry) => (entry.hooks as Json[]).map((h) => h.command as string)))
    .filter((command) => command.includes('opencomms.js'));
}

const PLUGIN = join('.opencomms', 'claude-plugin');

const CASES: HostCase[] = [
  {
    host: 'claude-code',
    serverEnv: (p) => readJson(join(p, '.mcp.json')).mcpServers.opencomms.env,
    hooks: (p) => commandsIn(join(p, '.claude/settings.json')),
    existing: {
      '.mcp.json': json({ mcpServers: { other: { type: 'stdio', command: 'other-srv', args: ['x'] } } }),
      '.claude/settings.json': json({ permissions: { allow: ['Bash(ls)'] }, hooks: { Stop: [OTHER_HOOK] } }),
    },
  },
  {
    host: 'codex',
    serverEnv(p) {
      const { env } = readOurServer(readFileSync(join(p, '.codex/config.toml'), 'utf8'))!;
      return Object.keys(env).length === 0 ? undefined : env;
    },
    hooks: (p) => commandsIn(join(p, '.codex/hooks.json')),
    existing: {
      '.codex/config.toml': 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other-srv"\nargs = ["x"] # keep\n',
      '.codex/hooks.json': json({ hooks: { Stop: [OTHER_HOOK] } }),
    },
  },
  {
    host: 'gemini-cli',
    serverEnv: (p) => readJson(join(p, '.gemini/settings.json')).mcpServers.opencomms.env,
    hooks: (p) => commandsIn(join(p, '.gemini/settings.json')),
    existing: { '.gemini/settings.json': json({ theme: 'dark', mcpServers: { other: { command: 'other-srv' } } }) },
  },
  {
    host: 'cursor',
    serverEnv: (p) => readJson(join(p, '.cursor/mcp.json')).mcpServers.opencomms.env,
    hooks: () => [],
    existing: { '.cursor/mcp.json': json({ mcpServers: { other: { command: 'other-srv' } } }) },
  },
  {
    host: 'vscode',
    serverEnv: (p) => readJson(join(p, '.vscode/mcp.json')).servers.opencomms.env,
    hooks: () => [],
    existing: { '.vscode/mcp.json': json({ servers: { other: { type: 'stdio', command: 'other-srv' } }, inputs: [] }) },
  },
  {
    host: 'claude-code',
    extra: ['--plugin'],
    serverEnv: (p) => readJson(join(p, PLUGIN, '.mcp.json')).mcpServers.opencomms.env,
    hooks: (p) => commandsIn(join(p, PLUGIN, 'hooks/hooks.json')),
    existing: {},
  },
];

/** Every file under the project, and what install printed, hold no password. */
function assertNoPassword(project: string, output: string): void {
  for (const [file, text] of Object.entries(snapshot(project))) {
    if (file.endsWith('opencomms.js')) continue;
    assert.ok(!text.includes(PASSWORD), `${file} holds the password`);
  }
  assert.ok(!output.includes(PASSWORD), 'install printed the password');
}

/** A `node` on PATH that prints the store variables it was started with: what a hook process would see. */
function storeEcho(t: TestContext): string {
  const dir = tempProject(t);
  writeFileSync(join(dir, 'node'), '#!/bin/sh\ncat >/dev/null\nprintf "%s|%s|%s\\n" "$OPENCOMMS_STORE" "$OPENCOMMS_PROJECT_ID" "$OPENCOMMS_HOST"\n');
  chmodSync(join(dir, 'node'), 0o755);
  return dir;
}

for (const c of CASES) {
  const name = [c.host, ...(c.extra ?? [])].join(' ');
  // The first host's table goes through the executable; the others run in this process.
  const { install, uninstall } = c === CASES[0] ? throughCli : commandsVia(runCliInProcess);

  test(`${name}: install --store writes the store into the server entry and every hook command, and no password`, async (t) => {
    const project = tempProject(t);
    const { code, stdout, stderr } = await install(c.host, project, ['--store', URL, ...(c.extra ?? [])]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(c.serverEnv(project), STORE_ENV);
    const hooks = c.hooks(project);
    if (c.host !== 'cursor' && c.host !== 'vscode') assert.ok(hooks.length >= 5, `${hooks.length} hooks`);
    const bin = storeEcho(t);
    for (const command of hooks) {
      assert.ok(command.includes(`OPENCOMMS_STORE="${URL}" OPENCOMMS_PROJECT_ID=${PROJECT_ID} `), command);
      // Run as the host runs it (sh), with the host's project variable: the hook process gets the store.
      const ran = await runHookCommand(command, {}, project, { PATH: `${bin}:${process.env.PATH}`, CLAUDE_PROJECT_DIR: project, GEMINI_PROJECT_DIR: project });
      assert.equal(ran.stdout.trim(), `${URL}|${PROJECT_ID}|claude-code`.replace('claude-code', c.host), command);
    }
    assert.match(stdout, new RegExp(`store: redis ${URL.replace(/[.]/g, '\\.')}, project ${PROJECT_ID}`));
    assert.match(stdout, /export OPENCOMMS_STORE_PASSWORD_FILE=/, 'install says which variable the host needs');
    assertNoPassword(project, stdout + stderr);
  });

  test(`${name}: install --store then uninstall restores every file byte for byte`, async (t) => {
    const project = tempProject(t);
    writeFiles(project, c.existing);
    const before = snapshot(project);
    assert.equal((await install(c.host, project, ['--store', URL, ...(c.extra ?? [])])).code, 0);
    const removed = await uninstall(c.host, project);
    assert.equal(removed.code, 0, removed.stderr);
    assert.doesNotMatch(removed.stdout, /you had added/, 'the store variables are ours, not additions of the user\'s');
    const after = snapshot(project);
    for (const file of Object.keys(before)) assert.equal(after[file], before[file], `${file} restored`);
    assert.deepEqual(Object.keys(after).filter((f) => !f.startsWith('.opencomms') && !(f in before)), [], 'nothing else left');
  });

  test(`${name}: a re-install without --store keeps the store; --store file takes it out and writes what a plain install writes`, async (t) => {
    const project = tempProject(t);
    const plain = tempProject(t);
    assert.equal((await install(c.host, project, ['--store', URL, ...(c.extra ?? [])])).code, 0);
    const first = snapshot(project);
    const again = await install(c.host, project, c.extra ?? []);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(snapshot(project), first, 'byte-identical');
    assert.match(again.stdout, /store: redis .*kept/);
    const back = await install(c.host, project, ['--store', 'file', ...(c.extra ?? [])]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(c.serverEnv(project), undefined);
    for (const command of c.hooks(project)) assert.doesNotMatch(command, /OPENCOMMS_STORE|OPENCOMMS_PROJECT_ID/);
    assert.equal((await install(c.host, plain, c.extra ?? [])).code, 0);
    const configs = (dir: string): Record<string, string> => Object.fromEntries(Object.entries(snapshot(dir))
      .filter(([file]) => !file.endsWith('opencomms.js') && !file.endsWith('marketplace.json'))
      .map(([file, text]) => [file, text.split(dir).join('<project>')]));
    assert.deepEqual(configs(project), configs(plain));
  });
}

test('codex: the server entry forwards CODEX_HOME and the password variables from the user\'s environment (Codex passes only a few by default) and names none of their values', async (t) => {
  const project = tempProject(t);
  assert.equal((await install('codex', project, ['--store', URL])).code, 0);
  const toml = readFileSync(join(project, '.codex/config.toml'), 'utf8');
  assert.ok(toml.includes(`env_vars = ["CODEX_HOME", ${FORWARDED.map((v) => JSON.stringify(v)).join(', ')}]\n`), toml);
  const back = await install('codex', project, ['--store', 'file']);
  assert.equal(back.code, 0, back.stderr);
  // The store's variables go with the store; CODEX_HOME stays (the server's codex queue needs it).
  assert.match(readFileSync(join(project, '.codex/config.toml'), 'utf8'), /^env_vars = \["CODEX_HOME"\]$/m);
});

test('codex: env_vars the user added to our entry are kept beside ours, and stay when the store goes', async (t) => {
  const project = tempProject(t);
  writeFiles(project, { '.codex/config.toml': '[mcp_servers.opencomms]\ncommand = "node"\nargs = []\nenv_vars = ["MY_TOKEN"]\n' });
  assert.equal((await install('codex', project, ['--store', URL])).code, 0);
  const toml = readFileSync(join(project, '.codex/config.toml'), 'utf8');
  assert.ok(toml.includes(`env_vars = ["MY_TOKEN", "CODEX_HOME", ${FORWARDED.map((v) => JSON.stringify(v)).join(', ')}]\n`), toml);
  assert.equal((await install('codex', project, ['--store', 'file'])).code, 0);
  assert.ok(readFileSync(join(project, '.codex/config.toml'), 'utf8').includes('env_vars = ["MY_TOKEN", "CODEX_HOME"]\n'));
});

test('the hosts configured by hand get the store in the snippet to paste, and no password', async (t) => {
  for (const host of ['claude-desktop', 'windsurf', 'goose']) {
    const project = tempProject(t);
    const { code, stdout, stderr } = await install(host, project, ['--store', URL]);
    assert.equal(code, 0, stderr);
    if (host === 'goose') {
      assert.match(stdout, new RegExp(`\\n {6}OPENCOMMS_STORE: "${URL.replace(/[.]/g, '\\.')}"\\n {6}OPENCOMMS_PROJECT_ID: "${PROJECT_ID}"\\n`));
    } else {
      const snippet = JSON.parse(stdout.slice(stdout.indexOf('{\n'), stdout.indexOf('\n}\n') + 2));
      assert.deepEqual(snippet.mcpServers.opencomms.env, STORE_ENV, host);
    }
    assertNoPassword(project, stdout + stderr);
  }
});

test('opencode: install --store writes the plugin as without it and says which variables OpenCode\'s environment needs (the plugin reads them there)', async (t) => {
  const plain = tempProject(t);
  const withStore = tempProject(t);
  assert.equal((await install('opencode', plain, [])).code, 0);
  const { code, stdout, stderr } = await install('opencode', withStore, ['--store', URL]);
  assert.equal(code, 0, stderr);
  const same = (dir: string) => Object.fromEntries(Object.entries(snapshot(dir)).map(([file, text]) => [file, text.split(dir).join('<project>')]));
  assert.deepEqual(same(withStore), same(plain), 'the same files, byte for byte (up to the project folder)');
  assert.match(stdout, /the OpenCode plugin reads the store from OpenCode's own environment/);
  assert.match(stdout, new RegExp(`export OPENCOMMS_STORE=.*${URL.replace(/[.]/g, '\\.').replace(/\//g, '\\/')}.* OPENCOMMS_PROJECT_ID=${PROJECT_ID}`));
  assert.match(stdout, /OPENCOMMS_STORE_PASSWORD_FILE/);
  assertNoPassword(withStore, stdout + stderr);
});

test('install --store needs no password (it connects to nothing), but OPENCOMMS_PROJECT_ID, and refuses plain text off this machine, writing nothing', async (t) => {
  const project = tempProject(t);
  const noSecrets = { ...ENV, OPENCOMMS_STORE_PASSWORD: undefined };
  const { install } = throughCli;
  const ok = await install('cursor', project, ['--store', 'redis://oc-agent@127.0.0.1:6379/0'], noSecrets);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /plain text, loopback only/);
  const fresh = tempProject(t);
  const noId = await install('cursor', fresh, ['--store', URL], { ...noSecrets, OPENCOMMS_PROJECT_ID: undefined });
  assert.equal(noId.code, 2);
  assert.match(noId.stderr, /OPENCOMMS_PROJECT_ID/);
  const plain = await install('cursor', fresh, ['--store', 'redis://oc-agent@10.1.2.3:6379/0'], noSecrets);
  assert.equal(plain.code, 2);
  assert.match(plain.stderr, /store_tls_required: .*rediss:\/\//);
  const withPassword = await install('cursor', fresh, ['--store', 'rediss://oc-agent:pw@redis.example.com/0'], noSecrets);
  assert.equal(withPassword.code, 2);
  assert.match(withPassword.stderr, /password/);
  assert.deepEqual(snapshot(fresh), {}, 'nothing written');
});

test('install --store --dry-run prints the exact bytes with the store and writes nothing', async (t) => {
  const project = tempProject(t);
  const dry = await throughCli.install('claude-code', project, ['--store', URL, '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(snapshot(project), {});
  assert.match(dry.stdout, /store: redis /);
  assert.equal((await install('claude-code', project, ['--store', URL])).code, 0);
  for (const file of ['.mcp.json', '.claude/settings.json']) {
    const path = join(project, file);
    assert.ok(dry.stdout.includes(`would write ${path}:\n${readFileSync(path, 'utf8')}`), `${file} printed exactly`);
  }
});

test('doctor on the project files warns that a host config uses a store it did not check', async (t) => {
  const project = tempProject(t);
  assert.equal((await install('cursor', project, ['--store', URL])).code, 0);
  const { code, stdout } = await runCli(['doctor', '--project', project], { cwd: tmpdir(), env: { ...ENV, OPENCOMMS_STORE_PASSWORD: undefined } });
  assert.equal(code, 0, stdout);
  assert.ok(stdout.split('\n').some((line) => line.startsWith(`WARN cursor store: its server uses ${URL}, project ${PROJECT_ID}, which this doctor did not check`)), stdout);
});

test('claude-code --plugin --member --store: the mail monitor follows the member on the same store', async (t) => {
  const project = tempProject(t);
  const { code, stderr } = await install('claude-code', project, ['--plugin', '--member', 'rev-1', '--store', URL]);
  assert.equal(code, 0, stderr);
  const [monitor] = JSON.parse(readFileSync(join(project, PLUGIN, 'monitors/monitors.json'), 'utf8')) as Json[];
  assert.ok(String(monitor!.command).startsWith(`OPENCOMMS_MEMBER_ID=rev-1 OPENCOMMS_STORE="${URL}" OPENCOMMS_PROJECT_ID=${PROJECT_ID} node `), monitor!.command);
  assert.deepEqual(readJson(join(project, PLUGIN, '.mcp.json')).mcpServers.opencomms.env, { OPENCOMMS_MEMBER_ID: 'rev-1', ...STORE_ENV });
});
