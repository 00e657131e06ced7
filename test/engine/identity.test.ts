import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  authorizeMember, bindHostSession, clearStale, markStale, memberInfosFor, resolveMemberByHostSession,
} from '../../src/engine/index';
import { channelWith, fakeCtx, reasonOf } from './helpers';

test('authorize refuses a missing pin with unpinned', () => {
  const state = channelWith(fakeCtx(), ['a']);
  assert.equal(reasonOf(authorizeMember(state, null)), 'unpinned');
  assert.equal(reasonOf(authorizeMember(state, ' ')), 'unpinned');
});

test('authorize denies a pin that is not a member, or not of the named channel, and names a missing channel', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  channelWith(ctx, ['b'], 'ops', state);
  assert.equal(reasonOf(authorizeMember(state, 'z')), 'not_member');
  assert.equal(reasonOf(authorizeMember(state, 'a', 'ops')), 'not_member');
  assert.equal(reasonOf(authorizeMember(state, 'a', 'missing')), 'channel_not_found');
  assert.equal(authorizeMember(state, 'a', 'DEV').ok, true);
  assert.equal(authorizeMember(state, 'a').ok, true);
});

test('authorize lets an away member through: its mark says its session ended, not that it left', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  assert.equal(markStale(state, 'a', ctx.now()), 1);
  assert.equal(authorizeMember(state, 'a').ok, true);
  assert.equal(clearStale(state, 'a'), 1);
  assert.equal(clearStale(state, 'a'), 0);
  assert.equal(authorizeMember(state, 'a').ok, true);
});

test('a host session resolves to exactly one member, and ambiguity resolves to none', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  channelWith(ctx, ['a'], 'ops', state);
  assert.equal(bindHostSession(state, 'a', 'generic', 'hs1'), 2);
  assert.equal(bindHostSession(state, 'a', 'generic', 'hs1'), 0);
  assert.equal(resolveMemberByHostSession(state, 'generic', 'hs1'), 'a');
  assert.equal(resolveMemberByHostSession(state, 'other', 'hs1'), null);
  bindHostSession(state, 'b', 'generic', 'hs1');
  assert.equal(resolveMemberByHostSession(state, 'generic', 'hs1'), null);
});

test('memberInfosFor lists the role and prompt per channel', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  channelWith(ctx, ['b'], 'ops', state);
  assert.deepEqual(memberInfosFor(state, 'b'), [
    { role: 'R1', prompt: 'helper', channel_name: 'dev' },
    { role: 'R0', prompt: 'lead', channel_name: 'ops' },
  ]);
});
