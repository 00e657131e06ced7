// When a reservation lapses by time alone (issue 35, item 14): a refusal, in
// the reserve tool and in the hooks' deny text alike, names since when the
// holder is away and when the reservation lapses, the earlier of its expiry
// and 10 minutes after its holder went away; the watch redraws then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeVerdict, formatIsoTime, judgeEdit, markStale, nextReservationLapse, reservePaths, HOLDER_AWAY_GRACE_MS, JUDGE_BY_LEASE, type Conflict, type State,
} from '../../src/engine/index';
import { channelWith, fakeCtx, mustOk, reasonOf, type FakeCtx } from './helpers';

const ROOT = '/work/repo';
const reserve = (state: State, ctx: FakeCtx, who: string, paths: string[], ttl_minutes = 60) =>
  reservePaths(state, { channel: 'dev', session_id: who, paths, project_dir: ROOT, ttl_minutes }, ctx);

function awayHolder(ttlMinutes: number): { ctx: FakeCtx; state: State; awaySince: number; expiresAt: number } {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  mustOk(reserve(state, ctx, 'a', ['src/a.ts'], ttlMinutes));
  const expiresAt = ctx.now() + ttlMinutes * 60_000;
  ctx.advance(60_000);
  const awaySince = ctx.now();
  markStale(state, 'a', awaySince);
  ctx.advance(2 * 60_000);
  return { ctx, state, awaySince, expiresAt };
}

test('a reserve refusal names since when the holder is away and when its reservation lapses: 10 minutes after it went away', () => {
  const { ctx, state, awaySince } = awayHolder(60);
  const refused = reserve(state, ctx, 'b', ['src/a.ts']);
  assert.equal(reasonOf(refused), 'reservation_conflict');
  const [conflict] = refused.data!.conflicts as Conflict[];
  assert.equal(conflict!.holder_away_since, awaySince);
  assert.equal(conflict!.lapses_at, awaySince + HOLDER_AWAY_GRACE_MS);
  assert.ok(refused.message.includes(`until ${formatIsoTime(awaySince + HOLDER_AWAY_GRACE_MS)}`), refused.message);
  assert.ok(refused.message.includes(`away since ${formatIsoTime(awaySince)}`), refused.message);
});

test('the hooks\' deny text names the same: away since, and the lapse', () => {
  const { ctx, state, awaySince } = awayHolder(60);
  const verdict = judgeEdit(state, 'b', 'src/a.ts', ctx.now(), JUDGE_BY_LEASE);
  assert.equal(verdict.kind, 'deny');
  assert.deepEqual([verdict.conflicts[0]!.holder_away_since, verdict.conflicts[0]!.lapses_at], [awaySince, awaySince + HOLDER_AWAY_GRACE_MS]);
  const text = describeVerdict(verdict, () => true, () => 'n0nce');
  assert.ok(text.includes(`until ${formatIsoTime(awaySince + HOLDER_AWAY_GRACE_MS)}`), text);
  assert.ok(text.includes(`away since ${formatIsoTime(awaySince)}`), text);
});

test('a reservation whose expiry comes before its away holder\'s 10 minutes lapses at its expiry', () => {
  const { ctx, state, awaySince, expiresAt } = awayHolder(5);
  const [conflict] = judgeEdit(state, 'b', 'src/a.ts', ctx.now(), JUDGE_BY_LEASE).conflicts;
  assert.deepEqual([conflict!.holder_away_since, conflict!.lapses_at], [awaySince, expiresAt]);
});

test('a present holder\'s reservation lapses at its expiry, and the next lapse of the project is the earliest', () => {
  const ctx = fakeCtx();
  const state = channelWith(ctx, ['a', 'b']);
  assert.equal(nextReservationLapse(state, ctx.now(), JUDGE_BY_LEASE), null);
  mustOk(reserve(state, ctx, 'a', ['src/a.ts'], 30));
  mustOk(reserve(state, ctx, 'b', ['src/b.ts'], 20));
  const [conflict] = judgeEdit(state, 'b', 'src/a.ts', ctx.now(), JUDGE_BY_LEASE).conflicts;
  assert.deepEqual([conflict!.holder_away_since, conflict!.lapses_at], [null, ctx.now() + 30 * 60_000]);
  assert.equal(nextReservationLapse(state, ctx.now(), JUDGE_BY_LEASE), ctx.now() + 20 * 60_000);
});
