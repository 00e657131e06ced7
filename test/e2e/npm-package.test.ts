// The package a user gets from `npx opencomms`: npm pack of this checkout,
// installed offline into an empty folder, run through npx. The package has
// no dependencies, so nothing here needs the network.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
