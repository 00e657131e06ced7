// Speaker leases: a process speaking as a member through OPENCOMMS_MEMBER_ID
// keeps that member's pin claimed while it lives, and only then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimSpeaker, emptyState, isSpokenFor, parseState, serializeState, SPEAKER_LEASE_MS, type SpeakerLease } from '../../src/engine/index';
import { channelWith, fakeCtx } from './helpers';

const lease = (pid: number, token: string, until: number): SpeakerLease => ({ pid, host: 'machine-1', token, until });

test('a speaker lease holds while its holder lives; a second speaker never takes it over, and takes it once the first is dead', () => {
  const state = emptyState();
  const alive = new Set([1, 2]);
  const isAlive = (l: SpeakerLease): boolean => alive.has(l.pid);
  assert.equal(isSpokenFor(state, 'sess_pin', isAlive), false);
  assert.equal(claimSpeaker(state, 'sess_pin', lease(1, 'first', 1000 + SPEAKER_LEASE_MS), isAlive), true);
  assert.equal(isSpokenFor(state, 'sess_pin', isAlive), true);
  assert.equal(claimSpeaker(state, 'sess_pin', lease(2, 'second', 2000 + SPEAKER_LEASE_MS), isAlive), false, 'one live speaker on record is enough');
  assert.equal(state.speaker_leases!.sess_pin!.token, 'first');
  assert.equal(claimSpeaker(state, 'sess_pin', lease(1, 'first', 2000 + SPEAKER_LEASE_MS), isAlive), false, 'a fresh lease of the same holder is not rewritten');
  alive.delete(1);
  assert.equal(isSpokenFor(state, 'sess_pin', isAlive), false, 'a dead holder claims nothing');
  assert.equal(claimSpeaker(state, 'sess_pin', lease(2, 'second', 3000 + SPEAKER_LEASE_MS), isAlive), true);
  assert.equal(state.speaker_leases!.sess_pin!.token, 'second');
  alive.delete(2);
  assert.equal(claimSpeaker(state, 'sess_other', lease(3, 'third', 4000), () => false), true);
  assert.deepEqual(Object.keys(state.speaker_leases!), ['sess_other'], 'dead holders\' leases are dropped on the way');
});

test('speaker leases and a binding\'s source survive a save and a load; a source of any other value counts as an argument', () => {
  const state = emptyState();
  claimSpeaker(state, 'sess_pin', lease(1, 'first', 5000), () => true);
  const parsed = parseState(serializeState(state), 0);
  assert.equal(parsed.ok, true);
  if (!parsed.ok) return;
  assert.deepEqual(parsed.state.speaker_leases, state.speaker_leases);
  assert.deepEqual(parsed.notes, []);

  const ctx = fakeCtx();
  const withMember = channelWith(ctx, ['a', 'b']);
  const raw = JSON.parse(serializeState(withMember));
  raw.channels.dev.members[0].host_session_id = 'victim-session';
  raw.channels.dev.members[0].host_session_source = 'host';
  raw.channels.dev.members[1].host_session_id = 'victim-session';
  raw.channels.dev.members[1].host_session_source = 'trust me';
  const loaded = parseState(JSON.stringify(raw), ctx.now());
  assert.equal(loaded.ok, true);
  if (!loaded.ok) return;
  assert.deepEqual(loaded.state.channels.dev!.members.map((m) => m.host_session_source), ['host', 'argument']);
  assert.match(loaded.notes.join('\n'), /host_session_source was not "host" or "argument"/);
});
