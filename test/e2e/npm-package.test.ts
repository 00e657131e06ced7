// The package a user makes from a clone: npm pack of this checkout, run from
// the tarball with `npx ./opencomms-<version>.tgz` and installed offline into
// an empty folder. Nothing is published under the name, so nothing here asks
// the registry; the package has no dependencies, so nothing needs the network.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { spawn } from 'node:child_process';
import { runToEnd, type Ran } from '../helpers/run';

const ROOT = join(__dirname, '..', '..', '..');
// npm on a loaded machine can take tens of seconds; no step may wait longer than this.
const NPM_WAIT_MS = 120_000;

/** The environment of a user's shell: no coverage collection, no npm settings inherited from `npm test`. */
function userEnv(cache: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.toLowerCase().startsWith('npm_') || key === 'NODE_V8_COVERAGE' || key === 'INIT_CWD') continue;
    env[key] = value;
  }
  return {
    ...env,
    npm_config_cache: cache,
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_loglevel: 'warn',
  };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return runToEnd(command, args, { cwd, env, waitMs: NPM_WAIT_MS });
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'opencomms-npx-'));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

/** Runs `command` with `input` on its stdin (closed after it), to its end, with a deadline. */
function runWithInput(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, input: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not exit within ${NPM_WAIT_MS} ms; stderr: ${stderr}`));
    }, NPM_WAIT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

/** `npm pack` of this checkout into `dir`; the tarball's path. */
async function pack(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  // --ignore-scripts: pack the committed dist/ as it is, without rebuilding it under the other tests' feet.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT, env);
  assert.equal(packed.code, 0, packed.stderr);
  const [report] = JSON.parse(packed.stdout) as { filename: string }[];
  return join(dir, report!.filename);
}

test('npx runs the tarball npm pack makes, from the file: --version, then a tools/list round trip', { skip: process.platform === 'win32' }, async (t) => {
  const dir = tempDir(t);
  const env = userEnv(join(dir, 'npm-cache'));
  const tarball = await pack(dir, env);
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  assert.equal(basename(tarball), `opencomms-${version}.tgz`, 'the name the README and docs/hosts.md tell people to run');
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(elsewhere);
  // Run as the docs show it: `npx ./opencomms-<version>.tgz`, from the folder that holds it.
  const spec = `./${basename(tarball)}`;
  const shown = await run('npx', ['--offline', '--yes', spec, '--version'], dir, env);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`^${version.replace(/\./g, '\\.')} \\(source commit `));

  const project = join(dir, 'project');
  mkdirSync(project);
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'npm-package-test', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ].map((m) => `${JSON.stringify(m)}\n`).join('');
  const served = await runWithInput('npx', ['--offline', '--yes', spec, '--project', project], dir, { ...env, OPENCOMMS_MEMBER_ID: 'npm-pack-test' }, lines);
  assert.equal(served.code, 0, served.stderr);
  const replies = served.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as { id?: number; result?: { tools?: { name: string }[] } });
  const listed = replies.find((reply) => reply.id === 2);
  assert.ok(listed?.result?.tools?.some((tool) => tool.name === 'opencomms_send'), served.stdout);
});

test('npm pack holds the two bundles, the map the main one links to, README, its docs, CONTRIBUTING, PROTOCOL and LICENSE, and npx runs the installed package', { skip: process.platform === 'win32' }, async (t) => {
  const dir = tempDir(t);
  const env = userEnv(join(dir, 'npm-cache'));
  const packs = join(dir, 'packs');
  mkdirSync(packs);
  // --ignore-scripts: pack the committed dist/ as it is, without rebuilding it under the other tests' feet.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], ROOT, env);
  assert.equal(packed.code, 0, packed.stderr);
  const [report] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  // The README links into docs/ and CONTRIBUTING.md, so the package carries them.
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  assert.deepEqual(report!.files.map((f) => f.path).sort(), [
    'CONTRIBUTING.md', 'LICENSE', 'PROTOCOL.md', 'README.md', 'dist/opencode-plugin.js', 'dist/opencomms.js', 'dist/opencomms.js.map', ...docs, 'package.json',
  ].sort());
  const tarball = join(packs, readdirSync(packs).find((name) => name.endsWith('.tgz'))!);

  const app = join(dir, 'empty-folder');
  mkdirSync(app);
  const installed = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], app, env);
  assert.equal(installed.code, 0, installed.stderr);
  assert.ok(existsSync(join(app, 'node_modules', 'opencomms', 'dist', 'opencomms.js')));

  const help = await run('npx', ['--offline', '--no-install', 'opencomms', '--help'], app, env);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /opencomms \[serve\]/);

  const project = join(dir, 'project');
  mkdirSync(project);
  const dryRun = await run('npx', ['--offline', '--no-install', 'opencomms', 'install', 'claude-code', '--project', project, '--dry-run'], app, env);
  assert.equal(dryRun.code, 0, dryRun.stderr);
  assert.match(dryRun.stdout, /\.mcp\.json/);
  assert.deepEqual(readdirSync(project), [], '--dry-run writes nothing');
});
