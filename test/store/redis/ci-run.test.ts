// .ci/run installs redis-server when it is missing, before npm ci && npm test,
// and tmux (for the watch tests) when it can.
// It runs here in a sandbox: a copy of the script, a PATH holding only fakes
// (id, apt-get, npm) and the few real tools it needs, and a log of the calls.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

interface Sandbox {
  bin: string;
  log: string;
  run(): { status: number | null; stderr: string; calls: string[] };
}

function sandbox(t: TestContext, options: { hasRedis: boolean; aptFails?: boolean; hasTmux?: boolean }): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'oc-ci-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, '.ci'), { recursive: true });
  copyFileSync(join(ROOT, '.ci', 'run'), join(repo, '.ci', 'run'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  for (const tool of ['dirname']) {
    const real = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (real) symlinkSync(real, join(bin, tool));
  }
  const fake = (name: string, body: string): void => {
    writeFileSync(join(bin, name), `#!/bin/bash\necho "${name} $*" >> '${log}'\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  fake('id', 'echo 0');
  fake('npm', 'exit 0');
  fake('redis-server', 'exit 0');
  if (!options.hasRedis) rmSync(join(bin, 'redis-server'));
  if (options.hasTmux !== false) fake('tmux', 'exit 0');
  fake('apt-get', options.aptFails
    ? 'if [ "$1" = install ]; then echo "E: no such package" >&2; exit 100; fi; exit 0'
    : `if [ "$1" = install ]; then printf '#!/bin/bash\\nexit 0\\n' > '${join(bin, 'redis-server')}'; chmod 755 '${join(bin, 'redis-server')}'; fi; exit 0`);
  return {
    bin,
    log,
    run() {
      const result = spawnSync('/bin/bash', [join(repo, '.ci', 'run')], { env: { PATH: bin, HOME: dir }, encoding: 'utf8', timeout: 20_000 });
      return { status: result.status, stderr: result.stderr, calls: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
    },
  };
}

test('.ci/run installs redis-server with apt-get when it is missing, before npm ci and npm test', (t) => {
  const { status, calls } = sandbox(t, { hasRedis: false }).run();
  assert.equal(status, 0);
  const install = calls.findIndex((c) => /^apt-get install .*-y.*redis-server/.test(c));
  assert.ok(install >= 0, `no apt-get install of redis-server in ${JSON.stringify(calls)}`);
  assert.ok(calls.indexOf('npm ci') > install);
  assert.ok(calls.indexOf('npm test') > calls.indexOf('npm ci'));
});

test('.ci/run leaves apt-get alone when redis-server is already installed', (t) => {
  const { status, calls } = sandbox(t, { hasRedis: true }).run();
  assert.equal(status, 0);
  assert.equal(calls.some((c) => c.startsWith('apt-get')), false);
  assert.deepEqual(calls.filter((c) => c.startsWith('npm')), ['npm ci', 'npm test']);
});

test('.ci/run fails loudly, without running the tests, when redis-server cannot be installed', (t) => {
  const { status, stderr, calls } = sandbox(t, { hasRedis: false, aptFails: true }).run();
  assert.notEqual(status, 0);
  assert.match(stderr, /redis-server/);
  assert.equal(calls.some((c) => c.startsWith('npm')), false);
});

test('.ci/run installs tmux for the watch tests when it is missing, and runs the tests even when it cannot', (t) => {
  const installed = sandbox(t, { hasRedis: true, hasTmux: false }).run();
  assert.equal(installed.status, 0);
  const install = installed.calls.findIndex((c) => /^apt-get install .*-y.*tmux/.test(c));
  assert.ok(install >= 0, `no apt-get install of tmux in ${JSON.stringify(installed.calls)}`);
  assert.ok(installed.calls.indexOf('npm ci') > install);
  const failed = sandbox(t, { hasRedis: true, hasTmux: false, aptFails: true }).run();
  assert.equal(failed.status, 0);
  assert.match(failed.stderr, /tmux could not be installed/);
  assert.deepEqual(failed.calls.filter((c) => c.startsWith('npm')), ['npm ci', 'npm test']);
});
