// Host config files are the user's. A config that is a link is written
// through (its target replaced in place, the link kept) when the target is a
// file inside the project; a dangling link, or one that leads out of the
// project, is refused with nothing changed. Either way the output says which.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, tempProject } from '../helpers/server';
import { runCliInProcess } from '../helpers/cli-in-process';
import { json, readJson } from '../hosts/install-support';

const OTHER = { mcpServers: { other: { type: 'stdio', command: 'other-srv', args: ['x'] } } };
const IS_POSIX = process.platform !== 'win32';
// One test of each path (install, --dry-run, uninstall, a refusal) goes through the shipped CLI (runCli); the rest run in this process.
const run = runCliInProcess;

test('install writes through a config link whose target is a file in the project, keeping the link and saying so', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, 'shared'));
  const target = join(project, 'shared', 'mcp.json');
  writeFileSync(target, json(OTHER));
  symlinkSync(join('shared', 'mcp.json'), join(project, '.mcp.json'));

  const { code, stdout, stderr } = await runCli(['install', 'claude-code', '--project', project]);
  assert.equal(code, 0, stderr);
  assert.equal(lstatSync(join(project, '.mcp.json')).isSymbolicLink(), true, 'the link is kept');
  assert.equal(readlinkSync(join(project, '.mcp.json')), join('shared', 'mcp.json'));
  const written = readJson(target);
  assert.deepEqual(written.mcpServers.other, OTHER.mcpServers.other);
  assert.equal(written.mcpServers.opencomms.command, 'node');
  assert.match(stdout, /\.mcp\.json .*through the link to shared\/mcp\.json/);
});

test('install --dry-run says a config link would be written through', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, 'shared'));
  writeFileSync(join(project, 'shared', 'mcp.json'), json(OTHER));
  symlinkSync(join('shared', 'mcp.json'), join(project, '.mcp.json'));
  const { code, stdout } = await runCli(['install', 'claude-code', '--project', project, '--dry-run']);
  assert.equal(code, 0);
  assert.match(stdout, /would write .*\.mcp\.json .*through the link to shared\/mcp\.json/);
});

test('uninstall writes through a config link too, and keeps the link even when nothing of the file is left', async (t) => {
  const project = tempProject(t);
  mkdirSync(join(project, 'shared'));
  const target = join(project, 'shared', 'mcp.json');
  symlinkSync(join('shared', 'mcp.json'), join(project, '.mcp.json'));
  writeFileSync(target, '{}\n');
  assert.equal((await run(['install', 'claude-code', '--project', project])).code, 0);
  assert.ok(readJson(target).mcpServers.opencomms);
  const { code, stdout } = await runCli(['uninstall', 'claude-code', '--project', project]);
  assert.equal(code, 0);
  assert.equal(lstatSync(join(project, '.mcp.json')).isSymbolicLink(), true);
  assert.equal(readJson(target).mcpServers, undefined);
  assert.match(stdout, /through the link/);
});

test('install refuses a dangling config link, naming it, and changes nothing', async (t) => {
  const project = tempProject(t);
  symlinkSync(join('shared', 'missing.json'), join(project, '.mcp.json'));
  const listing = (): string[] => (readdirSync(project, { recursive: true }) as string[]).sort();
  const before = listing();
  const { code, stderr } = await runCli(['install', 'claude-code', '--project', project]);
  assert.equal(code, 1);
  assert.match(stderr, /\.mcp\.json is a link to .*missing\.json, which does not exist/);
  assert.match(stderr, /Nothing was changed/);
  assert.equal(lstatSync(join(project, '.mcp.json')).isSymbolicLink(), true);
  assert.deepEqual(listing(), before);
});

test('install refuses a config link that leads out of the project, and the file there stays as it was', async (t) => {
  const project = tempProject(t);
  const home = mkdtempSync(join(tmpdir(), 'oc-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const outside = join(home, 'settings.json');
  writeFileSync(outside, json({ permissions: { allow: [] } }));
  mkdirSync(join(project, '.claude'));
  symlinkSync(outside, join(project, '.claude', 'settings.json'));
  const { code, stderr } = await run(['install', 'claude-code', '--project', project]);
  assert.equal(code, 1);
  assert.match(stderr, /settings\.json is a link to .* outside the project/);
  assert.equal(readFileSync(outside, 'utf8'), json({ permissions: { allow: [] } }));
});

test('install refuses a config folder that is a link out of the project', async (t) => {
  const project = tempProject(t);
  const home = mkdtempSync(join(tmpdir(), 'oc-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  symlinkSync(home, join(project, '.claude'));
  const { code, stderr } = await run(['install', 'claude-code', '--project', project]);
  assert.equal(code, 1);
  assert.match(stderr, /\.claude[/\\]settings\.json .*outside the project/);
  assert.deepEqual(readdirSync(home), []);
  assert.equal(existsSync(join(project, '.mcp.json')), false, 'nothing was written, not even the other files');
});

test('install keeps the mode of an existing host config file', { skip: !IS_POSIX }, async (t) => {
  const project = tempProject(t);
  const path = join(project, '.mcp.json');
  writeFileSync(path, json(OTHER));
  chmodSync(path, 0o640);
  assert.equal((await run(['install', 'claude-code', '--project', project])).code, 0);
  assert.ok(readJson(path).mcpServers.opencomms);
  assert.equal(statSync(path).mode & 0o777, 0o640);
});

test('under umask 022 install leaves .opencomms private: folders 0700, the server copy 0700, every other file 0600', { skip: !IS_POSIX }, async (t) => {
  const previous = process.umask(0o022);
  t.after(() => void process.umask(previous));
  const project = tempProject(t);
  for (const args of [['claude-code'], ['claude-code', '--plugin'], ['opencode']]) {
    const { code, stderr } = await run(['install', ...args, '--project', project]);
    assert.equal(code, 0, stderr);
  }
  const stateDir = join(project, '.opencomms');
  const wrong: string[] = [];
  const walk = (path: string): void => {
    const stat = lstatSync(path);
    const want = stat.isDirectory() || path === join(stateDir, 'opencomms.js') ? 0o700 : 0o600;
    if ((stat.mode & 0o777) !== want) wrong.push(`${path} is ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(stateDir);
  assert.ok(existsSync(join(stateDir, 'claude-plugin', 'hooks', 'hooks.json')));
  assert.ok(existsSync(join(stateDir, 'opencode-plugin.js')));
  assert.deepEqual(wrong, []);
});
