// Start-up cost is measured by `npm run bench`; these tests only pin the
// behaviour that keeps it low: the paths that run on every host start and on
// every hook load no module they do not need before they answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, tempProject, WAIT_MS } from '../helpers/server';

/** Modules that cost milliseconds to load and that neither path needs. */
const COSTLY = ['NativeModule crypto', 'NativeModule child_process', 'NativeModule tty', 'NativeModule dgram', 'NativeModule readline', 'NativeModule dns'];

function modulesLoadedBy(project: string, args: string[], input: string): Promise<string[]> {
  const preload = join(project, 'record-modules.js');
  const out = join(project, 'modules.json');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.moduleLoadList)));\n`,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', preload, DIST, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the process did not exit'));
    }, WAIT_MS);
    child.stdout.resume();
    child.stderr.resume();
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(JSON.parse(readFileSync(out, 'utf8')) as string[]);
    });
    child.stdin.end(input);
  });
}

const INITIALIZE = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}\n';

test('answering initialize loads no costly module', async (t) => {
  const project = tempProject(t);
  const loaded = await modulesLoadedBy(project, ['--project', project], INITIALIZE);
  assert.deepEqual(loaded.filter((m) => COSTLY.includes(m)), []);
});

// The bundle is plain code: no path compiles code or inflates it at run time.
// (Earlier bundles carried their cold half as deflated text for node:vm.)
test('answering initialize and tools/list loads neither node:vm nor zlib', async (t) => {
  const project = tempProject(t);
  const listed = await modulesLoadedBy(project, ['--project', project], `${INITIALIZE}{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n`);
  assert.ok(listed.includes('NativeModule fs'), 'the probe sees the modules the process loaded');
  assert.deepEqual(listed.filter((m) => m === 'NativeModule vm' || m === 'NativeModule zlib'), []);
});

test('a hook with no mail to deliver loads no costly module', async (t) => {
  const project = tempProject(t);
  const event = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's1', cwd: project, prompt: 'hi' });
  const loaded = await modulesLoadedBy(project, ['hook', '--project', project], event);
  assert.deepEqual(loaded.filter((m) => COSTLY.includes(m)), []);
  // stdin and stdout go through plain read(2)/write(2): no stream machinery is even loaded
  assert.deepEqual(loaded.filter((m) => m === 'NativeModule net' || m === 'NativeModule stream'), []);
  assert.deepEqual(loaded.filter((m) => m === 'NativeModule vm' || m === 'NativeModule zlib'), []);
});

// Modules only a rarely used command needs (install/uninstall, doctor, migrate,
// watch) are required where that command runs, so their initialisers never
// run on the server or hook path. V8's own coverage of the process counts the
// calls of each esbuild module initialiser, which is named by its source path.
const COLD_MODULES = /^src\/(hosts\/|cli\/doctor|cli\/migrate\.ts$|cli\/watch\.ts$|watch\/)/;

function initialisersRunBy(project: string, args: string[], input: string): Promise<string[]> {
  const coverage = join(project, 'coverage');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DIST, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NODE_V8_COVERAGE: coverage } });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the process did not exit'));
    }, WAIT_MS);
    child.stdout.resume();
    child.stderr.resume();
    child.on('exit', () => {
      clearTimeout(timer);
      const ran: string[] = [];
      for (const name of readdirSync(coverage)) {
        const { result } = JSON.parse(readFileSync(join(coverage, name), 'utf8')) as { result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[] };
        for (const script of result.filter((s) => s.url.endsWith('opencomms.js'))) {
          for (const fn of script.functions) if (/^src\//.test(fn.functionName) && fn.ranges[0]!.count > 0) ran.push(fn.functionName);
        }
      }
      resolve(ran);
    });
    child.stdin.end(input);
  });
}

test('a hook runs no initialiser of the installer, doctor, migrate or watch', async (t) => {
  const project = tempProject(t);
  const event = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's1', cwd: project, prompt: 'hi' });
  const ran = await initialisersRunBy(project, ['hook', '--project', project], event);
  assert.ok(ran.includes('src/hooks/index.ts'), 'the probe sees the initialisers that ran');
  assert.deepEqual(ran.filter((name) => COLD_MODULES.test(name)), []);
});

test('initialize and tools/list run no initialiser of the installer, doctor, migrate or watch', async (t) => {
  const project = tempProject(t);
  const ran = await initialisersRunBy(project, ['--project', project], `${INITIALIZE}{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n`);
  assert.ok(ran.includes('src/tools/catalog.ts'), 'the probe sees the initialisers that ran');
  assert.deepEqual(ran.filter((name) => COLD_MODULES.test(name)), []);
});

// On the file store (no --store, no OPENCOMMS_STORE) the Redis store is never
// opened, so none of its modules is evaluated: only the two that read a
// --store value (redis/config, redis/url) run, to refuse a wrong one early.
const REDIS_STORE_MODULES = /^src\/store\/redis\/(?!config\.ts$|url\.ts$)/;

test('on the file store, a hook and initialize + tools/list run no initialiser of the Redis store', async (t) => {
  const project = tempProject(t);
  const other = tempProject(t);
  const event = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's1', cwd: project, prompt: 'hi' });
  const hook = await initialisersRunBy(project, ['hook', '--project', project], event);
  const list = await initialisersRunBy(other, ['--project', other], `${INITIALIZE}{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n`);
  assert.ok(hook.includes('src/store/redis/config.ts') && list.includes('src/store/redis/config.ts'), 'the probe sees the store selection being read');
  assert.deepEqual(hook.filter((name) => REDIS_STORE_MODULES.test(name)), []);
  assert.deepEqual(list.filter((name) => REDIS_STORE_MODULES.test(name)), []);
});

test('install runs the installer initialisers the probe looks for', async (t) => {
  const project = tempProject(t);
  const ran = await initialisersRunBy(project, ['install', 'cursor', '--project', project, '--dry-run'], '');
  assert.ok(ran.some((name) => COLD_MODULES.test(name)));
});

test('a hook that records its session\'s turn (a project with state, no mail) loads no costly module', async (t) => {
  const project = tempProject(t);
  const { channelWith } = await import('../hooks/support');
  await channelWith(project, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author', host: 'claude-code', hostSessionId: 's1' }]);
  const event = JSON.stringify({ hook_event_name: 'PostToolUse', session_id: 's1', cwd: project, tool_name: 'Read', tool_input: {} });
  const loaded = await modulesLoadedBy(project, ['hook', '--project', project], event);
  assert.ok(readdirSync(join(project, '.opencomms', 'turns')).includes('s1.json'), 'the turn was recorded');
  assert.deepEqual(loaded.filter((m) => COSTLY.includes(m)), []);
  assert.deepEqual(loaded.filter((m) => m === 'NativeModule net' || m === 'NativeModule stream'), []);
});
