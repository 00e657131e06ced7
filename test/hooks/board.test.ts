// The board at the hooks: claims restated at every session start (also after
// compaction, a resume, a clear; Codex and Gemini CLI too), and a member rung
// for work told once at its next hook, the wake cleared only once told.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addTask, claimTask, nextTask, recordPresence, type State, type ToolResult } from '../../src/engine/index';
import { parseFrames } from '../../src/engine/framing';
import { channelWith, claudeEvent, codexEvent, geminiEvent, hook, stateOf, tempProject } from './support';
import { edit } from '../helpers/edit';

const ALICE = 'alice-1';
const BOB = 'bob-1';
const SID = 'sess-alice';

function mustOk(result: ToolResult): ToolResult {
  assert.equal(result.ok, true, result.message);
  return result;
}

async function boardProject(t: Parameters<typeof tempProject>[0], host = 'claude-code') {
  const project = tempProject(t);
  const store = await channelWith(project, 'dev', [
    { id: BOB, role: 'lead', host: 'mcp' },
    { id: ALICE, role: 'writer', host, hostSessionId: SID },
  ]);
  await edit(store, (state: State, ctx) => {
    for (const [i, id] of [ALICE, BOB].entries()) recordPresence(state, id, { pid: process.pid, machine: 'here', start: i, kind: 'server' }, ctx.now(), 10_000);
    mustOk(addTask(state, BOB, { title: 'Rewrite the lexer', paths: ['src/lex/**'], project_dir: project }, ctx));
    mustOk(addTask(state, BOB, { title: 'Second job', project_dir: project }, ctx));
    mustOk(claimTask(state, ALICE, 't1', ctx));
    return { ok: true, message: 'board' };
  });
  return { project, store };
}

for (const source of ['startup', 'compact', 'resume', 'clear']) {
  test(`a Claude Code SessionStart (source ${source}) restates the tasks the member holds in at most 600 characters, titles framed`, async (t) => {
    const { project } = await boardProject(t);
    const run = await hook(project, claudeEvent('SessionStart', SID, { source }));
    const text = run.answer.hookSpecificOutput?.additionalContext as string;
    assert.ok(text, JSON.stringify(run.answer));
    const digest = text.split('\n\n')[0]!;
    assert.ok(digest.length <= 600, String(digest.length));
    assert.match(digest, /You hold 1 task\(s\) on the board: t1 \(claimed \d+ min ago; paths src\/lex\/\*\*\)/);
    assert.match(digest, /1 more ready/);
    const frames = parseFrames(digest.slice(digest.indexOf('\n') + 1));
    assert.ok(frames.ok, digest);
    assert.match(frames.frames[0]!.content, /t1: Rewrite the lexer/);
  });
}

test('Codex and Gemini CLI session starts restate the claims too', async (t) => {
  for (const [host, event] of [['codex', codexEvent('SessionStart', SID)], ['gemini-cli', geminiEvent('SessionStart', SID)]] as const) {
    const { project } = await boardProject(t, host);
    const run = await hook(project, event);
    assert.match(String(run.answer.hookSpecificOutput?.additionalContext), /You hold 1 task\(s\)/, host);
  }
});

test('a prompt hook says nothing of claims; a member that holds none is not reminded', async (t) => {
  const { project, store } = await boardProject(t);
  assert.deepEqual((await hook(project, claudeEvent('UserPromptSubmit', SID))).answer, {});
  await edit(store, (state, ctx) => {
    state.board!.tasks.t1!.claimed_by = BOB;
    void ctx;
    return { ok: true, message: 'moved' };
  });
  assert.deepEqual((await hook(project, claudeEvent('SessionStart', SID, { source: 'compact' }))).answer, {});
});

test('a member rung for work is told at its next hook, with no task text, once; the wake is cleared only once told', async (t) => {
  const { project, store } = await boardProject(t);
  await edit(store, (state, ctx) => {
    state.board!.tasks.t1!.status = 'done';
    state.board!.tasks.t1!.claimed_by = null;
    mustOk(claimTask(state, BOB, 't2', ctx));
    mustOk(nextTask(state, ALICE, ctx));
    mustOk(addTask(state, BOB, { title: 'Secret plan: do X', project_dir: project }, ctx));
    return { ok: true, message: 'waiting' };
  });
  assert.deepEqual(Object.keys(stateOf(store).board!.wakes), [ALICE]);
  const failed = await hook(project, claudeEvent('UserPromptSubmit', SID), {}, { write: () => { throw new Error('pipe closed'); } });
  assert.equal(failed.code, 0);
  await store.refresh();
  assert.deepEqual(Object.keys(stateOf(store).board!.wakes), [ALICE], 'an answer never written leaves the wake');
  const run = await hook(project, claudeEvent('Stop', SID));
  const said = JSON.stringify(run.answer);
  assert.match(said, /a task is ready: call opencomms_task with action next/);
  assert.doesNotMatch(said, /Secret plan/);
  await store.refresh();
  assert.deepEqual(stateOf(store).board!.wakes, {});
  assert.deepEqual((await hook(project, claudeEvent('Stop', SID))).answer, {});
});

test('a turn started by the door\'s notice is not told of the wake again at its prompt hook, and the wake is cleared', async (t) => {
  const { project, store } = await boardProject(t);
  await edit(store, (state, ctx) => {
    state.board!.tasks.t1!.status = 'done';
    state.board!.tasks.t1!.claimed_by = null;
    mustOk(claimTask(state, BOB, 't2', ctx));
    mustOk(nextTask(state, ALICE, ctx));
    mustOk(addTask(state, BOB, { title: 'Third job', project_dir: project }, ctx));
    return { ok: true, message: 'waiting' };
  });
  assert.deepEqual(Object.keys(stateOf(store).board!.wakes), [ALICE]);
  const notice = 'OpenComms: a task is ready: call opencomms_task with action next (rung 2026-12-07T05:13:47.952Z).';
  // Claude Code's inbox and `codex queue` both start the turn with the notice as its prompt.
  const run = await hook(project, claudeEvent('UserPromptSubmit', SID, { prompt: `Another Claude session sent a message: ${notice}` }));
  assert.doesNotMatch(JSON.stringify(run.answer), /a task is ready/);
  await store.refresh();
  assert.deepEqual(stateOf(store).board!.wakes, {});
});
