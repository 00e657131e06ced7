// A hook must never break the session it runs in: bad input, a missing
// project or an unreadable state all answer {} with exit code 0.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { channelWith, claudeEvent, hook, send, stateOf, tempProject, textOf } from './support';
import { statePathOf, lockPathOf } from '../helpers/store-paths';

async function project(t: Parameters<typeof tempProject>[0]) {
  const dir = tempProject(t);
  const store = await channelWith(dir, 'review', [{ id: 'bob-1', role: 'reviewer', host: 'mcp' }, { id: 'alice-1', role: 'author', hostSessionId: 's' }]);
  return { dir, store };
}

for (const [label, input] of [
  ['garbage', 'not json at all {'],
  ['empty stdin', ''],
  ['a JSON array', '[1,2]'],
  ['no hook_event_name', '{"session_id":"s"}'],
] as const) {
  test(`${label} on stdin: {} and exit 0, the problem warned and recorded`, async (t) => {
    const { dir, store } = await project(t);
    const run = await hook(dir, input);
    assert.equal(run.code, 0);
    assert.deepEqual(run.answer, {});
    assert.equal(run.warnings.length, 1);
    assert.ok(stateOf(store).errors.some((e) => /hook/.test(e.message)));
  });
}

test('an event we do not handle answers {} quietly', async (t) => {
  const { dir, store } = await project(t);
  await send(store, 'review', 'bob-1', 'alice-1', ['still queued']);
  const run = await hook(dir, claudeEvent('PreToolUse', 's', { tool_name: 'Bash' }));
  assert.deepEqual(run.answer, {});
  assert.deepEqual(run.warnings, []);
  assert.equal(stateOf(store).queues['alice-1']!.length, 1);
});

test('a missing --project directory: {} and a warning, nothing created', async (t) => {
  const dir = tempProject(t);
  const missing = join(dir, 'nope');
  const run = await hook(missing, claudeEvent('UserPromptSubmit', 's'));
  assert.deepEqual(run.answer, {});
  assert.equal(run.warnings.length, 1);
  assert.throws(() => readFileSync(join(missing, '.opencomms', 'state.json')));
});

test('a project without OpenComms state: {} silently, and no .opencomms is created', async (t) => {
  const dir = tempProject(t);
  const run = await hook(undefined, claudeEvent('UserPromptSubmit', 's', { cwd: dir }));
  assert.deepEqual(run.answer, {});
  assert.deepEqual(run.warnings, []);
  assert.throws(() => readFileSync(join(dir, '.opencomms', 'state.json')));
});

test('without --project the event cwd is the project, then options.cwd', async (t) => {
  const { dir, store } = await project(t);
  await send(store, 'review', 'bob-1', 'alice-1', ['via event cwd']);
  assert.match(textOf((await hook(undefined, claudeEvent('UserPromptSubmit', 's', { cwd: dir }))).answer), /via event cwd/);
  await send(store, 'review', 'bob-1', 'alice-1', ['via process cwd']);
  const event = claudeEvent('UserPromptSubmit', 's');
  delete event.cwd;
  assert.match(textOf((await hook(undefined, event, {}, { cwd: dir })).answer), /via process cwd/);
});

test('a state file that does not parse: {} and exit 0, and the file is left as it was', async (t) => {
  const { dir, store } = await project(t);
  writeFileSync(statePathOf(store), '{"schema_version": 2, "channels": ');
  const run = await hook(dir, claudeEvent('UserPromptSubmit', 's'));
  assert.deepEqual(run.answer, {});
  assert.equal(readFileSync(statePathOf(store), 'utf8'), '{"schema_version": 2, "channels": ');
});

test('a state file that cannot be read at all: {} and exit 0 with a warning', async (t) => {
  const { dir, store } = await project(t);
  rmSync(statePathOf(store));
  mkdirSync(statePathOf(store));
  const run = await hook(dir, claudeEvent('UserPromptSubmit', 's'));
  assert.equal(run.code, 0);
  assert.deepEqual(run.answer, {});
  assert.ok(run.warnings.some((w) => /hook failed/.test(w)), run.warnings.join('\n'));
});

test('a failed commit is reported, and the mail stays in flight under this pid for a later sweep, never lost', async (t) => {
  const { dir, store } = await project(t);
  const [id] = await send(store, 'review', 'bob-1', 'alice-1', ['survives']);
  let saved: Buffer | undefined;
  // Break the state file in the short window between the answer and the commit.
  const run = await hook(dir, claudeEvent('UserPromptSubmit', 's'), {}, {
    write: () => {
      saved = readFileSync(statePathOf(store));
      rmSync(statePathOf(store));
      mkdirSync(statePathOf(store));
    },
  });
  assert.equal(run.code, 0);
  assert.ok(run.warnings.some((w) => /could not commit/.test(w)), run.warnings.join('\n'));
  rmSync(statePathOf(store), { recursive: true });
  writeFileSync(statePathOf(store), saved!);
  const envelope = stateOf(store).messages[id!]!;
  assert.equal(envelope.delivery_status, 'in_flight');
  assert.equal(envelope.delivery_owner?.pid, process.pid);
});

test('the no-mail fast path takes no lock: it answers {} while another process holds the lock', async (t) => {
  const { dir, store } = await project(t);
  // A live holder (this very process) on this host: no waiter may break it.
  writeFileSync(lockPathOf(store), JSON.stringify({ pid: process.pid, host: hostname(), t: Date.now(), token: 'held-by-test' }));
  t.after(() => rmSync(lockPathOf(store), { force: true }));
  const run = await hook(dir, claudeEvent('UserPromptSubmit', 's'));
  assert.deepEqual(run.answer, {});
  assert.deepEqual(run.warnings, []);
});
