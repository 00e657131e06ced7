import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createChannel, emptyState, joinChannel, pauseChannel, resumeChannel, updateRole,
  DEFAULT_MAX_MEMBERS, MAX_MEMBERS_CEILING,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, PROJECT, reasonOf, WORKTREE } from './helpers';

const base = { role: 'Lead', role_prompt: 'lead it', session_id: 'a', project_id: PROJECT, worktree: WORKTREE };

test('create refuses an empty channel name with invalid_name', () => {
  assert.equal(reasonOf(createChannel(emptyState(), { ...base, channel: '  ' }, fakeCtx())), 'invalid_name');
});

test('create refuses a name longer than 64 characters with invalid_name', () => {
  assert.equal(reasonOf(createChannel(emptyState(), { ...base, channel: 'a'.repeat(65) }, fakeCtx())), 'invalid_name');
});

test('create refuses a name outside the slug pattern with invalid_name', () => {
  assert.equal(reasonOf(createChannel(emptyState(), { ...base, channel: '-dev' }, fakeCtx())), 'invalid_name');
});

test('create refuses a missing worktree with invalid_argument before looking at the role', () => {
  assert.equal(reasonOf(createChannel(emptyState(), { ...base, channel: 'dev', worktree: '', role: '1bad' }, fakeCtx())), 'invalid_argument');
});

test('create refuses a blank role prompt before an invalid role', () => {
  const r = createChannel(emptyState(), { ...base, channel: 'dev', role_prompt: ' ', role: '1bad' }, fakeCtx());
  assert.equal(reasonOf(r), 'invalid_argument');
});

test('create refuses an invalid role with invalid_role', () => {
  assert.equal(reasonOf(createChannel(emptyState(), { ...base, channel: 'dev', role: '9lives' }, fakeCtx())), 'invalid_role');
});

test('create refuses an existing channel with already_exists', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  mustOk(createChannel(state, { ...base, channel: 'dev' }, ctx));
  assert.equal(reasonOf(createChannel(state, { ...base, channel: 'DEV ', session_id: 'b' }, ctx)), 'already_exists');
});

test('create normalises the name and makes the caller the only member', () => {
  const state = emptyState();
  const r = mustOk(createChannel(state, { ...base, channel: ' Dev ', role: '  Lead   Dev ' }, fakeCtx()));
  assert.equal(state.channels.dev!.members.length, 1);
  assert.equal(state.channels.dev!.members[0]!.role, 'Lead Dev');
  assert.equal(r.data!.channel_id, state.channels.dev!.id);
});

test('create clamps max_members, rate_limit, max_hops and budgets into their ranges', () => {
  const state = emptyState();
  mustOk(createChannel(state, {
    ...base, channel: 'dev', max_members: 1000, rate_limit: 0, max_hops: 99, budgets: { max_runtime_ms: 5, max_delivered_messages: 1e9 },
  }, fakeCtx()));
  const c = state.channels.dev!;
  assert.equal(c.max_members, MAX_MEMBERS_CEILING);
  assert.equal(c.rate_limit, 1);
  assert.equal(c.max_hops, 50);
  assert.deepEqual(c.budgets, { max_runtime_ms: 60_000, max_delivered_messages: 1_000_000 });
});

test('create uses the defaults when the tunables are absent or not finite', () => {
  const state = emptyState();
  mustOk(createChannel(state, { ...base, channel: 'dev', max_members: Number.NaN }, fakeCtx()));
  const c = state.channels.dev!;
  assert.equal(c.max_members, DEFAULT_MAX_MEMBERS);
  assert.equal(c.rate_limit, 20);
  assert.equal(c.max_hops, 4);
  assert.deepEqual(c.budgets, { max_runtime_ms: null, max_delivered_messages: null });
});

test('a pull member never ages out and a pushed member uses the five minute window', () => {
  const ctx = fakeCtx();
  const state = emptyState();
  mustOk(createChannel(state, { ...base, channel: 'dev', delivery_mode: 'pull' }, ctx));
  mustOk(joinChannel(state, { ...base, channel: 'dev', session_id: 'b', role: 'Two', delivery_mode: 'spawn_push' }, ctx));
  assert.deepEqual(state.channels.dev!.members[0]!.stale_policy, { mode: 'none', window_ms: null });
  assert.deepEqual(state.channels.dev!.members[1]!.stale_policy, { mode: 'window', window_ms: 300_000 });
  assert.equal(state.channels.dev!.members[1]!.endpoint_capabilities!.resume, true);
});

const join = { role: 'Helper', role_prompt: 'help', session_id: 'b', project_id: PROJECT, worktree: WORKTREE, channel: 'dev' };

test('join checks the role before the channel exists', () => {
  assert.equal(reasonOf(joinChannel(emptyState(), { ...join, role: '' }, fakeCtx())), 'invalid_role');
});

test('join refuses an unknown channel with channel_not_found', () => {
  assert.equal(reasonOf(joinChannel(emptyState(), join, fakeCtx())), 'channel_not_found');
});

test('join refuses a channel that is not active with not_active', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  state.channels.dev!.lifecycle = 'saved';
  assert.equal(reasonOf(joinChannel(state, join, ctx)), 'not_active');
});

test('join refuses another project with project_mismatch', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  assert.equal(reasonOf(joinChannel(state, { ...join, project_id: 'other' }, ctx)), 'project_mismatch');
});

test('join accepts a sentinel project id on either side', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  mustOk(joinChannel(state, { ...join, project_id: 'local-project' }, ctx));
});

test('join refuses another worktree with worktree_mismatch', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  assert.equal(reasonOf(joinChannel(state, { ...join, worktree: '/elsewhere' }, ctx)), 'worktree_mismatch');
});

test('join refuses a current member with already_member whatever the role', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  assert.equal(reasonOf(joinChannel(state, { ...join, role: 'R1' }, ctx)), 'already_member');
  assert.equal(reasonOf(joinChannel(state, { ...join, role: 'Other' }, ctx)), 'already_member');
});

test('join checks capacity before role uniqueness', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b'], 'dev', emptyState(), { max_members: 2 });
  assert.equal(reasonOf(joinChannel(state, { ...join, session_id: 'c', role: 'R0' }, ctx)), 'channel_full');
});

test('join refuses a role held by another member, case-insensitively, with role_taken', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  assert.equal(reasonOf(joinChannel(state, { ...join, role: 'r0' }, ctx)), 'role_taken');
});

test('join refuses a blank role prompt last', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  assert.equal(reasonOf(joinChannel(state, { ...join, role_prompt: '' }, ctx)), 'invalid_argument');
});

test('join refuses a missing session id with invalid_argument', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  assert.equal(reasonOf(joinChannel(state, { ...join, session_id: '' }, ctx)), 'invalid_argument');
});

test('joining an empty resumed channel adopts the joiner location and returns parent_channel_id', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a']);
  const c = state.channels.dev!;
  c.members = [];
  c.parent_channel_id = 'chn_parent';
  c.project_id = 'old';
  c.worktree = '/old';
  const r = mustOk(joinChannel(state, { ...join, project_id: 'new-proj', worktree: '/new' }, ctx));
  assert.equal(r.data!.parent_channel_id, 'chn_parent');
  assert.equal(c.project_id, 'new-proj');
  assert.equal(c.worktree, '/new');
});

test('update_role replaces only the caller prompt and refuses a blank prompt', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(updateRole(state, { channel: 'dev', session_id: 'b', role_prompt: ' new ' }, ctx));
  assert.equal(state.channels.dev!.members[1]!.role_prompt, 'new');
  assert.equal(state.channels.dev!.members[0]!.role_prompt, 'lead');
  assert.equal(reasonOf(updateRole(state, { channel: 'dev', session_id: 'b', role_prompt: '' }, ctx)), 'invalid_argument');
  assert.equal(reasonOf(updateRole(state, { channel: 'dev', session_id: 'z', role_prompt: 'x' }, ctx)), 'not_member');
  assert.equal(reasonOf(updateRole(state, { channel: 'nope', session_id: 'a', role_prompt: 'x' }, ctx)), 'channel_not_found');
  assert.equal(reasonOf(updateRole(state, { channel: '', session_id: 'a', role_prompt: 'x' }, ctx)), 'invalid_argument');
});

test('pause and resume are idempotent and record the pause time', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(pauseChannel(state, { channel: 'dev', session_id: 'a' }, ctx));
  assert.equal(state.channels.dev!.paused_at, ctx.now());
  assert.equal(mustOk(pauseChannel(state, { channel: 'dev', session_id: 'b' }, ctx)).data!.paused, true);
  mustOk(resumeChannel(state, { channel: 'dev', session_id: 'b' }, ctx));
  assert.equal(state.channels.dev!.paused_at, null);
  mustOk(resumeChannel(state, { channel: 'dev', session_id: 'b' }, ctx));
  assert.equal(reasonOf(pauseChannel(state, { channel: 'dev', session_id: 'z' }, ctx)), 'not_member');
  assert.equal(reasonOf(resumeChannel(state, { channel: 'dev', session_id: 'z' }, ctx)), 'not_member');
});
