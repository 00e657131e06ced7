// The cli room's changes (engine/changes/cli.ts), applied through the change
// table with their arguments round-tripped through JSON as a waiting change's
// are: a person's say, pause, release and task actions record themselves with
// the terminal, malformed arguments (another process's file) are refused
// untouched, and the host door's records mark only mail that still waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changeNamed, type ChangeArgs, type ChangeName } from '../../../src/engine/changes/table';
import type { ChangeTx } from '../../../src/engine/archive-types';
import { reservePaths, sendMessage, serializeState, type EngineCtx, type State, type ToolResult } from '../../../src/engine/index';
import { channelWith, fakeCtx, mustOk, PROJECT, reasonOf, WORKTREE } from '../helpers';

const TERMINAL = { tty: '/dev/pts/7', session_leader: 'zsh (pid 777)' };
const ACTOR = { person_id: 'person-ada', terminal: TERMINAL };
const NO_TX: ChangeTx = { putArchive: () => undefined, deleteArchive: () => undefined };

function apply<K extends ChangeName>(name: K, args: ChangeArgs<K>, state: State, ctx: EngineCtx): ToolResult {
  const change = changeNamed(name);
  assert.ok(change, `the table has a change called ${name}`);
  return change(state, JSON.parse(JSON.stringify(args)) as unknown, ctx, NO_TX);
}

test('say, pause, release and every task action run by name, each recorded with the terminal it came from', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const said = mustOk(apply('person_say', { ...ACTOR, channel: 'dev', content: 'hi all', project_id: PROJECT, worktree: WORKTREE }, state, ctx));
  assert.equal((said.data!.message_ids as string[]).length, 2);
  assert.equal(said.data!.joined_as, 'person');
  mustOk(apply('person_set_pause', { ...ACTOR, channel: 'dev', paused: true }, state, ctx));
  assert.equal(state.channels[Object.keys(state.channels)[0]!]!.paused, true);
  mustOk(apply('person_set_pause', { ...ACTOR, channel: 'dev', paused: false }, state, ctx));
  mustOk(reservePaths(state, { channel: 'dev', session_id: 'a', paths: ['src/a.ts'], project_dir: '/repo' }, ctx));
  const released = mustOk(apply('person_release', { ...ACTOR, target: { member_id: 'a' } }, state, ctx));
  assert.deepEqual((released.data!.released as Array<{ paths: string[] }>).map((row) => row.paths), [['src/a.ts']]);
  const added = mustOk(apply('person_task', { ...ACTOR, action: 'add', task: { title: 'write docs', priority: 2, project_dir: '/repo' } }, state, ctx));
  assert.equal((added.data!.task as { id: string }).id, 't1');
  mustOk(apply('person_task', { ...ACTOR, action: 'add', task: { title: 'second', project_dir: '/repo' } }, state, ctx));
  mustOk(apply('person_task', { ...ACTOR, action: 'cancel', id: 't2' }, state, ctx));
  mustOk(apply('person_task', { ...ACTOR, action: 'done', id: 't1', result: 'by hand' }, state, ctx));
  assert.deepEqual(state.person_actions!.map((a) => [a.action, a.terminal.tty]), [
    ['say', '/dev/pts/7'], ['pause', '/dev/pts/7'], ['resume', '/dev/pts/7'], ['release', '/dev/pts/7'],
    ['task_add', '/dev/pts/7'], ['task_add', '/dev/pts/7'], ['task_cancel', '/dev/pts/7'], ['task_done', '/dev/pts/7'],
  ]);
  assert.deepEqual(state.person_actions!.slice(4).map((a) => a.detail), ['t1', 't2', 't2', 't1']);
});

test('a refused task action records nothing, and its refusal is the engine\'s', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  assert.equal(reasonOf(apply('person_task', { ...ACTOR, action: 'release', id: 't9' }, state, ctx)), 'unknown_task');
  assert.equal(state.person_actions, undefined);
});

test('malformed arguments are refused as invalid_argument and leave the state as it was', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  mustOk(reservePaths(state, { channel: 'dev', session_id: 'a', paths: ['src/a.ts'], project_dir: '/repo' }, ctx));
  const before = serializeState(state);
  const bad: Array<[ChangeName, unknown]> = [
    ['person_say', { ...ACTOR, person_id: 'sess_agent', channel: 'dev', content: 'x', project_id: PROJECT, worktree: WORKTREE }],
    ['person_say', { ...ACTOR, terminal: { tty: '', session_leader: null }, channel: 'dev', content: 'x', project_id: PROJECT, worktree: WORKTREE }],
    ['person_say', { ...ACTOR, channel: 'dev', content: 7, project_id: PROJECT, worktree: WORKTREE }],
    ['person_say', { ...ACTOR, channel: 'dev', content: 'x', to: 3, project_id: PROJECT, worktree: WORKTREE }],
    ['person_set_pause', { ...ACTOR, channel: 'dev', paused: 'yes' }],
    ['person_set_pause', { channel: 'dev', paused: true }],
    ['person_release', { ...ACTOR, target: { member_id: 5 } }],
    ['person_release', { ...ACTOR }],
    ['person_task', { ...ACTOR, action: 'claim', id: 't1' }],
    ['person_task', { ...ACTOR, action: 'add', task: { title: 'no project dir' } }],
    ['person_task', { ...ACTOR, action: 'answer', id: 't1' }],
    ['host_door_rung', { member_id: 'a', ids: 'ocm_1', door: 'inbox', at: 1 }],
    ['host_door_rung', { member_id: 'a', ids: [], door: 'telegram', at: 1 }],
    ['host_door_unrung', { ids: [], at: 'now' }],
    ['host_door_unwoken', { member_id: 'a', ids: [], door: 'inbox', at: 1 }],
    ['host_door_problem', { member_id: 'a' }],
    ['person_say', null],
  ];
  for (const [name, args] of bad) {
    const result = changeNamed(name)!(state, args, ctx, NO_TX);
    assert.equal(reasonOf(result), 'invalid_argument', `${name} ${JSON.stringify(args)}`);
  }
  assert.equal(serializeState(state), before);
});

test('a terminal recorded by a person change keeps only the terminal\'s own fields', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  const terminal = { ...TERMINAL, extra: 'x'.repeat(50) };
  mustOk(apply('person_set_pause', { person_id: 'person-ada', terminal, channel: 'dev', paused: true }, state, ctx));
  assert.deepEqual(state.person_actions![0]!.terminal, TERMINAL);
});

test('the host door marks a ring and its not waking only on mail that still waits, takes a ring back, and records a problem once', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const sent = mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'for b', to: 'b' }, ctx));
  const id = (sent.data!.message_ids as string[])[0]!;
  assert.equal(apply('host_door_rung', { member_id: 'a', ids: [id], door: 'inbox', at: 5 }, state, ctx).ok, false, 'not a\'s mail: nothing rung');
  mustOk(apply('host_door_rung', { member_id: 'b', ids: [id], door: 'inbox', at: 5 }, state, ctx));
  assert.deepEqual([state.messages[id]!.rung_via, state.messages[id]!.rung_at], ['inbox', 5]);
  mustOk(apply('host_door_unrung', { ids: [id], at: 4 }, state, ctx));
  assert.equal(state.messages[id]!.rung_at, 5, 'another ring is not taken back');
  mustOk(apply('host_door_unrung', { ids: [id], at: 5 }, state, ctx));
  assert.equal(state.messages[id]!.rung_at, undefined);
  mustOk(apply('host_door_unwoken', { member_id: 'b', ids: [id], door: 'codex_queue', rings: 3, at: 9 }, state, ctx));
  assert.deepEqual(state.messages[id]!.unwoken, { via: 'codex_queue', rings: 3, at: 9 });
  assert.equal(apply('host_door_unwoken', { member_id: 'b', ids: ['ocm_gone'], door: 'inbox', rings: 1, at: 9 }, state, ctx).ok, false);
  const errors = state.errors.length;
  mustOk(apply('host_door_problem', { member_id: 'b', message: 'the door refused' }, state, ctx));
  mustOk(apply('host_door_problem', { member_id: 'b', message: 'the door refused' }, state, ctx));
  assert.deepEqual(state.errors.slice(errors).map((e) => [e.member_id, e.message]), [['b', 'the door refused']]);
});
