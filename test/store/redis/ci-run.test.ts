// .ci/run installs redis-server when it is missing, before npm ci && npm test,
// and tmux (for the watch tests) when it can; it runs the two commands on the
// machine's Node, then on Node 26 from .ci/node26.
// It runs here in a sandbox: a copy of the script, a PATH holding only fakes
// (id, apt-get, npm, node) and the few real tools it needs, and a log of the
// calls, each npm call with the version of the node first on its PATH.
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

interface SandboxOptions {
  hasRedis: boolean;
  aptFails?: boolean;
  hasTmux?: boolean;
  /** The Node (as `node --version` prints it) whose npm test fails. */
  testFailsOn?: string;
  /** What npm ci in .ci/node26 installs: Node 26 (the default), nothing (it fails), or another Node. */
  node26?: 'ok' | 'fails' | 'v25.0.0';
}

const MACHINE_NODE = 'v20.20.2';
const NODE26 = 'v26.12.1';
/** The npm calls of one run of the two commands on `node`, as the log holds them. */
const twoCommandsOn = (node: string): string[] => [`npm ci [${node}]`, `npm test [${node}]`];
const installNode26 = 'npm ci --prefix <repo>/.ci/node26 --no-audit --no-fund [v20.20.2]';

function sandbox(t: TestContext, options: SandboxOptions): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'oc-ci-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, '.ci'), { recursive: true });
  copyFileSync(join(ROOT, '.ci', 'run'), join(repo, '.ci', 'run'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  for (const tool of ['dirname', 'mkdir', 'chmod']) {
    const real = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (real) symlinkSync(real, join(bin, tool));
  }
  const fake = (name: string, body: string): void => {
    writeFileSync(join(bin, name), `#!/bin/bash\necho "${name} $*" >> '${log}'\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  fake('id', 'echo 0');
  fake('node', `echo ${MACHINE_NODE}`);
  // npm ci --prefix DIR puts a node in DIR/node_modules/.bin, as the real package does.
  const node26 = options.node26 ?? 'ok';
  const installs = node26 === 'fails'
    ? 'echo "npm error 404 Not Found" >&2; exit 1'
    : `mkdir -p "$3/node_modules/.bin"; printf '#!/bin/bash\\necho ${node26 === 'ok' ? NODE26 : node26}\\n' > "$3/node_modules/.bin/node"; chmod 755 "$3/node_modules/.bin/node"; exit 0`;
  writeFileSync(join(bin, 'npm'), [
    '#!/bin/bash',
    `echo "npm $* [$(node --version)]" >> '${log}'`,
    `if [ "$1 $2" = "ci --prefix" ]; then ${installs}; fi`,
    options.testFailsOn === undefined ? '' : `if [ "$1" = test ] && [ "$(node --version)" = ${options.testFailsOn} ]; then exit 3; fi`,
    'exit 0',
  ].join('\n'));
  chmodSync(join(bin, 'npm'), 0o755);
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
      return { status: result.status, stderr: result.stderr, calls: readFileSync(log, 'utf8').split('\n').filter(Boolean).map((c) => c.replaceAll(repo, '<repo>')) };
    },
  };
}

test('.ci/run installs redis-server with apt-get when it is missing, before npm ci and npm test', (t) => {
  const { status, calls } = sandbox(t, { hasRedis: false }).run();
  assert.equal(status, 0);
  const install = calls.findIndex((c) => /^apt-get install .*-y.*redis-server/.test(c));
  assert.ok(install >= 0, `no apt-get install of redis-server in ${JSON.stringify(calls)}`);
  assert.ok(calls.indexOf(installNode26) > install);
  assert.ok(calls.indexOf(`npm test [${MACHINE_NODE}]`) > calls.indexOf(`npm ci [${MACHINE_NODE}]`));
});

test('.ci/run leaves apt-get alone when redis-server is already installed', (t) => {
  const { status, calls } = sandbox(t, { hasRedis: true }).run();
  assert.equal(status, 0);
  assert.equal(calls.some((c) => c.startsWith('apt-get')), false);
  assert.deepEqual(calls.filter((c) => c.startsWith('npm')), [installNode26, ...twoCommandsOn(MACHINE_NODE), ...twoCommandsOn(NODE26)]);
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
  assert.ok(installed.calls.indexOf(installNode26) > install);
  const failed = sandbox(t, { hasRedis: true, hasTmux: false, aptFails: true }).run();
  assert.equal(failed.status, 0);
  assert.match(failed.stderr, /tmux could not be installed/);
  assert.deepEqual(failed.calls.filter((c) => c.startsWith('npm')), [installNode26, ...twoCommandsOn(MACHINE_NODE), ...twoCommandsOn(NODE26)]);
});

test('.ci/run runs npm ci && npm test on the machine\'s Node, then on Node 26 from .ci/node26, and says both passed', (t) => {
  const { status, stderr, calls } = sandbox(t, { hasRedis: true }).run();
  assert.equal(status, 0, stderr);
  assert.deepEqual(calls.filter((c) => c.startsWith('npm')), [installNode26, ...twoCommandsOn(MACHINE_NODE), ...twoCommandsOn(NODE26)]);
  assert.match(stderr, new RegExp(`passed: Node ${MACHINE_NODE} .*\\n.*passed: Node ${NODE26}`));
});

for (const node of [MACHINE_NODE, NODE26]) {
  test(`.ci/run fails when the tests fail on ${node}, still runs the other Node, and names the one that failed`, (t) => {
    const { status, stderr, calls } = sandbox(t, { hasRedis: true, testFailsOn: node }).run();
    assert.notEqual(status, 0);
    assert.deepEqual(calls.filter((c) => c.startsWith('npm')), [installNode26, ...twoCommandsOn(MACHINE_NODE), ...twoCommandsOn(NODE26)]);
    const other = node === NODE26 ? MACHINE_NODE : NODE26;
    assert.match(stderr, new RegExp(`FAILED: Node ${node} .*exit 3`));
    assert.match(stderr, new RegExp(`passed: Node ${other} `));
  });
}

test('.ci/run fails before any test runs when Node 26 cannot be installed, and says so', (t) => {
  const { status, stderr, calls } = sandbox(t, { hasRedis: true, node26: 'fails' }).run();
  assert.notEqual(status, 0);
  assert.deepEqual(calls.filter((c) => c.startsWith('npm')), [installNode26]);
  assert.match(stderr, /could not install Node 26/);
});

test('.ci/run fails before any test runs when .ci/node26 holds a Node other than 26', (t) => {
  const { status, stderr, calls } = sandbox(t, { hasRedis: true, node26: 'v25.0.0' }).run();
  assert.notEqual(status, 0);
  assert.deepEqual(calls.filter((c) => c.startsWith('npm')), [installNode26]);
  assert.match(stderr, /is not Node 26 \(it printed 'v25\.0\.0'\)/);
});
