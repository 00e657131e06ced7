// Presence from live processes, and the one reservation lifetime rule that
// follows from it. Time comes from the fake clock; which process runs comes
// from the check each call is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  judgeEdit, leavePresence, listHeldReservations, presenceOf, recordPresence, releaseForPerson, reservePaths, tidyState,
  HOLDER_AWAY_GRACE_MS, LOCAL_PRESENCE_RENEW_MS, PRESENCE_LEASE_MS, PRESENCE_RENEW_MS, UNCHANNELLED_AWAY_MS,
  type PresenceClaim, type ProcessCheck, type State,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf } from './helpers';

const HERE = 'box/boot/ns';
const server = (pid: number, machine = HERE): PresenceClaim => ({ pid, machine, start: 7, kind: 'server' });
/** This machine's processes: those in `alive` run; another machine's are judged by their lease. */
const runs = (...alive: number[]): ProcessCheck => (p) => (p.machine === HERE ? alive.includes(p.pid) : undefined);

test('a member whose server pid no longer runs on this machine is away at once, since its last renewal', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['codex-a', 'b']);
  recordPresence(state, 'codex-a', server(41), ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  const renewedAt = ctx.now();
  ctx.advance(5_000);
  assert.deepEqual(presenceOf(state, 'codex-a', ctx.now(), runs(41)), { present: true, away_since: null });
  assert.deepEqual(presenceOf(state, 'codex-a', ctx.now(), runs()), { present: false, away_since: renewedAt }, 'dead pid: away at the next look');
});

test('a clean exit makes its member away from that moment; another process of the same session keeps it present', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  recordPresence(state, 'a', server(41), ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  recordPresence(state, 'a', { ...server(42), kind: 'waiter' }, ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  ctx.advance(1_000);
  leavePresence(state, 'a', server(41), ctx.now());
  assert.equal(presenceOf(state, 'a', ctx.now(), runs(42)).present, true, 'the waiter still speaks for it');
  leavePresence(state, 'a', { ...server(42), kind: 'waiter' }, ctx.now());
  assert.deepEqual(presenceOf(state, 'a', ctx.now(), runs()), { present: false, away_since: ctx.now() });
});

test('a process on another machine is present until PRESENCE_LEASE_MS after its last renewal, then away', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['far', 'b']);
  recordPresence(state, 'far', server(9, 'other-host'), ctx.now(), PRESENCE_RENEW_MS);
  const renewedAt = ctx.now();
  assert.equal(recordPresence(state, 'far', server(9, 'other-host'), ctx.now() + PRESENCE_RENEW_MS - 1, PRESENCE_RENEW_MS), false, 'no write before a renewal is due');
  ctx.advance(PRESENCE_LEASE_MS);
  assert.equal(presenceOf(state, 'far', ctx.now(), runs()).present, true);
  ctx.advance(1);
  assert.deepEqual(presenceOf(state, 'far', ctx.now(), runs()), { present: false, away_since: renewedAt });
});

test('tidy sets the away marks from the judgement and clears them when a process is back', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  recordPresence(state, 'a', server(41), ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  const seen = ctx.now();
  ctx.advance(1_000);
  tidyState(state, ctx.now(), runs());
  const a = (s: State) => s.channels.dev!.members.find((m) => m.session_id === 'a')!;
  assert.equal(a(state).stale, true);
  assert.equal(a(state).stale_at, seen);
  assert.deepEqual(state.presence!.a!.processes, [], 'the dead process left its record');
  recordPresence(state, 'a', server(43), ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  tidyState(state, ctx.now(), runs(43));
  assert.equal(a(state).stale, false);
});

test('members in no channel that have been away more than 24 hours are removed with their session links', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  state.session_links = {
    'sid@codex:t1': { member_id: 'stray', host: 'codex', created_at: ctx.now(), last_seen: ctx.now() },
    'sid@codex:t2': { member_id: 'live-stray', host: 'codex', created_at: ctx.now(), last_seen: ctx.now() },
    'sid@claude-code:s1': { member_id: 'a', host: 'claude-code', created_at: ctx.now(), last_seen: ctx.now() },
  };
  recordPresence(state, 'stray', server(41), ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  recordPresence(state, 'live-stray', server(42), ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  recordPresence(state, 'a', server(43), ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  ctx.advance(UNCHANNELLED_AWAY_MS);
  tidyState(state, ctx.now(), runs(42));
  assert.ok(state.presence!.stray, 'away exactly 24 hours: kept');
  ctx.advance(1);
  tidyState(state, ctx.now(), runs(42));
  assert.equal(state.presence!.stray, undefined);
  assert.deepEqual(Object.keys(state.session_links!).sort(), ['sid@claude-code:s1', 'sid@codex:t2'], 'the present stray and the channel member stay');
  assert.ok(state.presence!['live-stray']);
  assert.ok(state.presence!.a, 'a channel member is never forgotten this way');
});

test('a holder without a session-end hook: its reservation holds 10 minutes after its server ended, not a millisecond more', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['codex-a', 'b']);
  recordPresence(state, 'codex-a', server(41), ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  mustOk(reservePaths(state, { channel: 'dev', session_id: 'codex-a', paths: ['src/**'], project_dir: '/p' }, ctx));
  ctx.advance(30_000);
  const exitAt = ctx.now();
  leavePresence(state, 'codex-a', server(41), exitAt);
  ctx.set(exitAt + HOLDER_AWAY_GRACE_MS - 1);
  assert.equal(judgeEdit(state, undefined, 'src/a.ts', ctx.now(), runs()).kind, 'deny');
  assert.equal(listHeldReservations(state, ctx.now(), runs())[0]!.holder_away_since, exitAt);
  ctx.set(exitAt + HOLDER_AWAY_GRACE_MS);
  assert.equal(judgeEdit(state, undefined, 'src/a.ts', ctx.now(), runs()).kind, 'pass');
  assert.deepEqual(listHeldReservations(state, ctx.now(), runs()), []);
});

test('a present holder\'s reservation lasts to its TTL, however long that is', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['claude-a', 'b']);
  recordPresence(state, 'claude-a', server(41), ctx.now(), LOCAL_PRESENCE_RENEW_MS);
  const reply = mustOk(reservePaths(state, { channel: 'dev', session_id: 'claude-a', paths: ['src/a.ts'], ttl_minutes: 90, project_dir: '/p' }, ctx));
  assert.match(reply.message, /until .*away 10 minutes/, 'the reply states the expiry and the rule');
  ctx.advance(90 * 60_000 - 1);
  assert.equal(judgeEdit(state, 'b', 'src/a.ts', ctx.now(), runs(41)).kind, 'deny');
  ctx.advance(1);
  assert.equal(judgeEdit(state, 'b', 'src/a.ts', ctx.now(), runs(41)).kind, 'pass');
});

test('a person releases by id or by member; the holder gets a system notice; an unknown id is not_found', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(reservePaths(state, { channel: 'dev', session_id: 'a', paths: ['x.ts', 'y.ts'], project_dir: '/p' }, ctx));
  const [first] = listHeldReservations(state, ctx.now(), runs());
  assert.equal(reasonOf(releaseForPerson(state, { id: 'rsv_nope' }, ctx, runs())), 'not_found');
  mustOk(releaseForPerson(state, { id: first!.id }, ctx, runs()));
  assert.deepEqual(listHeldReservations(state, ctx.now(), runs()).map((r) => r.paths), [['y.ts']]);
  const notice = Object.values(state.messages).find((e) => e.recipient_session_id === 'a');
  assert.equal(notice?.message_type, 'system');
  assert.match(notice!.content, /released your reservation of x\.ts/);
  mustOk(releaseForPerson(state, { member_id: 'a' }, ctx, runs()));
  assert.deepEqual(listHeldReservations(state, ctx.now(), runs()), []);
});
