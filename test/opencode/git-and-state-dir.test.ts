// OpenCode's bash gets the same command judgement as every host's hook
// (PROTOCOL 8.4; docs/internals.md, "The pre-tool check"): a git command that would throw away a held file's changes
// is stopped, and nothing is written under .opencomms/ by any session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as engine from '../../src/engine';
import { channelWith, startHarness, type Harness } from './helpers';
import { edit } from '../helpers/edit';

const WRITER = 'ses_writer';
const REFUSED_COMMAND = /OpenComms refused this shell command on purpose, before it ran/;

function before(h: Harness, tool: string, args: Record<string, unknown>): Promise<void> {
  return h.plugin.hooks['tool.execute.before']({ tool, sessionID: WRITER, callID: 'call_1' }, { args });
}

async function heldRepo(h: Harness): Promise<void> {
  mkdirSync(join(h.dir, 'src'), { recursive: true });
  writeFileSync(join(h.dir, 'src', 'a.ts'), 'export const a = 1;\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd: h.dir });
  git('init', '-q');
  git('add', 'src');
  git('commit', '-qm', 'start');
  await channelWith(h.store, h.dir, [WRITER]);
  await edit(h.store, (state, ctx) => engine.reservePaths(state, {
    channel: 'review', session_id: 'alice', paths: ['src/a.ts'], exclusive: true, reason: null, project_dir: h.dir,
  }, ctx));
}

test('bash `git checkout .` is stopped while a held file has changes, and runs while it has none; naming the held file stops it either way', async (t) => {
  const h = await startHarness(t);
  await heldRepo(h);
  await before(h, 'bash', { command: 'git checkout .' });
  await assert.rejects(before(h, 'bash', { command: 'git restore src/a.ts' }), REFUSED_COMMAND);
  writeFileSync(join(h.dir, 'src', 'a.ts'), 'export const a = 2;\n');
  await assert.rejects(before(h, 'bash', { command: 'git checkout .' }), (err: Error) => {
    assert.match(err.message, REFUSED_COMMAND);
    assert.match(err.message, /src\/a\.ts is reserved exclusively by lead \(alice\)/);
    return true;
  });
  await assert.rejects(before(h, 'bash', { command: 'git reset --hard' }), REFUSED_COMMAND);
});

test('bash, write and edit under .opencomms/ are stopped with nothing held by anyone', async (t) => {
  const h = await startHarness(t);
  await channelWith(h.store, h.dir, [WRITER]);
  await assert.rejects(before(h, 'bash', { command: 'echo {} > .opencomms/state.json' }), (err: Error) => {
    assert.match(err.message, REFUSED_COMMAND);
    assert.match(err.message, /".opencomms\/state.json" under \.opencomms\//);
    return true;
  });
  await assert.rejects(before(h, 'write', { filePath: join(h.dir, '.opencomms', 'pins', 'x.json'), content: '{}' }), /OpenComms refused this edit on purpose/);
  await before(h, 'bash', { command: 'cat .opencomms/state.json' });
});
