// Mail is private to the user who runs OpenComms: whatever the umask, every
// folder under .opencomms/ is 0700 and every file 0600, and a tree made wider
// (by an older version, or by hand) is narrowed by the next write.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runPin } from '../../src/cli/pin';
import { buildTools } from '../../src/tools/catalog';
import { ToolRegistry } from '../../src/tools/registry';
import { ToolServices } from '../../src/tools/services';
import { tempProject } from './helpers';

const IS_POSIX = process.platform !== 'win32';

function toolsAs(projectDir: string, memberId: string): ToolRegistry {
  const services = new ToolServices({
    projectDir, host: 'test', env: { OPENCOMMS_NO_SPAWN: '1', OPENCOMMS_MEMBER_ID: memberId }, log: () => undefined,
  });
  return new ToolRegistry(buildTools(services));
}

async function call(registry: ToolRegistry, name: string, args: Record<string, unknown>): Promise<void> {
  const result = (await registry.call(name, args)) as { structuredContent: { ok: boolean; message: string } };
  assert.equal(result.structuredContent.ok, true, `${name}: ${result.structuredContent.message}`);
}

/** Runs the test body under umask 022, the common default that makes new files world-readable. */
function withUmask022(t: TestContext): void {
  const previous = process.umask(0o022);
  t.after(() => void process.umask(previous));
}

/** Every entry under `dir` (itself included) with its permission bits. */
function modesUnder(dir: string): Map<string, { mode: number; isDir: boolean }> {
  const out = new Map<string, { mode: number; isDir: boolean }>();
  const walk = (path: string): void => {
    const stat = lstatSync(path);
    out.set(relative(dir, path) || '.', { mode: stat.mode & 0o777, isDir: stat.isDirectory() });
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return out;
}

function assertPrivate(stateDir: string): void {
  const wrong: string[] = [];
  for (const [path, { mode, isDir }] of modesUnder(stateDir)) {
    const want = isDir ? 0o700 : 0o600;
    if (mode !== want) wrong.push(`${path} is ${mode.toString(8)}, want ${want.toString(8)}`);
  }
  assert.deepEqual(wrong, []);
}

/** A project where every kind of file exists: state, history, pins, archives. */
async function busyProject(projectDir: string): Promise<void> {
  assert.equal(runPin({ projectDir, host: 'test', id: 'sess_alice', write: () => undefined }), 0);
  const alice = toolsAs(projectDir, 'sess_alice');
  const bob = toolsAs(projectDir, 'sess_bob');
  await call(alice, 'opencomms_create', { channel: 'dev', role: 'writer', role_prompt: 'p' });
  await call(bob, 'opencomms_join', { channel: 'dev', role: 'reviewer', role_prompt: 'p' });
  await call(alice, 'opencomms_send', { channel: 'dev', content: 'the password is hunter2' });
  await call(bob, 'opencomms_pull', { channel: 'dev' });
  await call(alice, 'opencomms_create', { channel: 'old', role: 'writer', role_prompt: 'p' });
  await call(alice, 'opencomms_save_session', { channel: 'old', summary: 'done' });
  await call(alice, 'opencomms_send', { channel: 'dev', content: 'and one more' });
}

test('under umask 022 every folder under .opencomms is 0700 and every file 0600 after create, send, pull, pin and save_session', { skip: !IS_POSIX }, async (t) => {
  withUmask022(t);
  const projectDir = tempProject(t);
  await busyProject(projectDir);
  const stateDir = join(projectDir, '.opencomms');
  const names = [...modesUnder(stateDir).keys()];
  for (const expected of ['state.json', 'history', 'pins', 'archives']) assert.ok(names.includes(expected), `${expected} exists`);
  assert.ok(names.some((n) => n.startsWith('history/') && n.endsWith('.jsonl')), 'a history log exists');
  assertPrivate(stateDir);
});

test('a tree left 0755/0644 is narrowed to 0700/0600 by the next write', { skip: !IS_POSIX }, async (t) => {
  withUmask022(t);
  const projectDir = tempProject(t);
  await busyProject(projectDir);
  const stateDir = join(projectDir, '.opencomms');
  for (const [path, { isDir }] of modesUnder(stateDir)) chmodSync(join(stateDir, path), isDir ? 0o755 : 0o644);
  await call(toolsAs(projectDir, 'sess_alice'), 'opencomms_send', { channel: 'dev', content: 'after the widening' });
  assertPrivate(stateDir);
});
