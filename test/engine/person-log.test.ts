// The record of person actions: each action records itself, with its
// terminal, in the same change; state keeps the newest; a record read back
// from disk is checked; ids that imitate the person's are told apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  emptyState, imitatesPersonId, isPersonMemberId, JUDGE_BY_LEASE, parseState, PERSON_ACTIONS_KEPT, personRead, personRelease, personSay,
  personSetPause, recordPersonAction, reservePaths, sendMessage, serializeState,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, OWNER, PROJECT, reasonOf, WORKTREE } from './helpers';

const TERMINAL = { tty: '/dev/pts/7', session_leader: 'zsh (pid 777)' };
const ACTOR = { person_id: 'person-ada', terminal: TERMINAL };

test('say, read, pause, resume and release each record themselves with the terminal; say stamps it on every envelope', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  const said = mustOk(personSay(state, { channel: 'dev', ...ACTOR, content: 'hi all', project_id: PROJECT, worktree: WORKTREE }, ctx));
  const ids = said.data!.message_ids as string[];
  assert.equal(ids.length, 2);
  for (const id of ids) assert.deepEqual(state.messages[id]!.person_terminal, TERMINAL);
  mustOk(sendMessage(state, { channel: 'dev', session_id: 'a', content: 'for you', to: 'person-ada' }, ctx));
  mustOk(personRead(state, 'person-ada', { terminal: TERMINAL, owner: OWNER, isOwnerAlive: () => true }, ctx));
  mustOk(personSetPause(state, { ...ACTOR, channel: 'dev', paused: true }, ctx));
  mustOk(personSetPause(state, { ...ACTOR, channel: 'dev', paused: false }, ctx));
  mustOk(reservePaths(state, { channel: 'dev', session_id: 'a', paths: ['src/a.ts'], project_dir: '/repo' }, ctx));
  mustOk(personRelease(state, { member_id: 'a' }, ACTOR, ctx, JUDGE_BY_LEASE));
  assert.deepEqual(state.person_actions!.map((a) => [a.action, a.channel, a.terminal.tty]), [
    ['say', 'dev', '/dev/pts/7'], ['read', null, '/dev/pts/7'], ['pause', 'dev', '/dev/pts/7'], ['resume', 'dev', '/dev/pts/7'], ['release', null, '/dev/pts/7'],
  ]);
  assert.match(state.person_actions![4]!.detail, /^rsv_\w+ \(src\/a\.ts, held by a\)$/);
});

test('an action that changes nothing or is refused records nothing', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  mustOk(personSetPause(state, { ...ACTOR, channel: 'dev', paused: false }, ctx));
  assert.equal(reasonOf(personSetPause(state, { ...ACTOR, channel: 'nope', paused: true }, ctx)), 'channel_not_found');
  assert.equal(reasonOf(personRelease(state, { id: 'rsv_none' }, ACTOR, ctx, JUDGE_BY_LEASE)), 'not_found');
  mustOk(personRead(state, 'person-ada', { terminal: TERMINAL, owner: OWNER, isOwnerAlive: () => true }, ctx));
  assert.equal(state.person_actions, undefined);
});

test('state keeps the newest person actions only', () => {
  const state = emptyState();
  for (let i = 0; i < PERSON_ACTIONS_KEPT + 5; i += 1) {
    recordPersonAction(state, { at: i, person_id: 'person-ada', action: 'say', channel: 'dev', detail: `ocm_${i}`, terminal: TERMINAL });
  }
  assert.equal(state.person_actions!.length, PERSON_ACTIONS_KEPT);
  assert.equal(state.person_actions![0]!.at, 5);
});

test('person actions read back from disk unchanged, a long detail cut so it still loads, and malformed ones are dropped with a note', () => {
  const state = emptyState();
  recordPersonAction(state, { at: 5, person_id: 'person-ada', action: 'resume', channel: 'dev', detail: 'resumed', terminal: TERMINAL });
  recordPersonAction(state, { at: 6, person_id: 'person-ada', action: 'read', channel: null, detail: 'ocm_x, '.repeat(1000), terminal: TERMINAL });
  const text = serializeState(state);
  const back = parseState(text, 10);
  assert.ok(back.ok);
  assert.deepEqual(back.notes, []);
  assert.equal(serializeState(back.state), text);
  const raw = JSON.parse(text);
  raw.person_actions.push({ at: 6, person_id: 'person-ada', action: 'say', channel: 'dev', detail: 'x', terminal: { tty: 42 } }, 'junk');
  const dropped = parseState(JSON.stringify(raw), 10);
  assert.ok(dropped.ok);
  assert.equal(dropped.state.person_actions!.length, 2);
  assert.match(dropped.notes.join('\n'), /person_actions/);
});

test('ids that imitate the person\'s: person alone or person and a separator, in any case; the person\'s own prefix is the narrower test', () => {
  for (const id of ['person', 'person-ada', 'person_root', 'Person_root', 'PERSON-x', 'person__root', 'Person.x']) assert.equal(imitatesPersonId(id), true, id);
  for (const id of ['personable', 'persona', 'sess_person-x', 'user', '', 42]) assert.equal(imitatesPersonId(id), false, String(id));
  assert.equal(isPersonMemberId('person_root'), false, 'only person- names the person inside the engine');
});
