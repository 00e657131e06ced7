// The Stop waiter's lease (hooks/wait.ts, engine/wait-leases.ts): taken when
// a waiter starts, renewed while it waits, released when it stops. The
// waiter names itself (its presence claim, which also names its lease's pid
// and machine) and its session in the arguments; the lease's lengths are the
// waiter's own.
import type { PresenceClaim } from '../presence';
import type { ChangeFn } from './change-fn';
import type { EngineCtx, WaitLease } from '../types';
import { hasHookSessionEnded, isHookSession, type HookSession } from '../hook-session';
import { JUDGE_BY_LEASE, leavePresence, recordPresence } from '../presence';
import { activeWaitLease, releaseWaitLease, renewWaitLease, replaceWaitLease } from '../wait-leases';
import { waitingMail } from '../wait-notice';
import { isText, malformed, type Answer, isArgsObject } from './args';

/** The waiter and its lease, as every lease change names them. */
interface WaiterArgs {
  member: string;
  /** The waiter as its presence record names it (kind 'waiter'): its pid and machine are its lease's. */
  claim: PresenceClaim;
  /** The lease's token, 32 hex the waiter chose. */
  token: string;
}

/** What the waiter's session is: found by `session` (found_by_session), or named by OPENCOMMS_MEMBER_ID. */
interface SessionArgs {
  session: HookSession;
  found_by_session: boolean;
}

const isLeaseCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

function isWaiterClaim(value: unknown): value is PresenceClaim {
  const c = value as Partial<PresenceClaim> | null;
  return typeof c === 'object' && c !== null && c.kind === 'waiter' && c.door === undefined && typeof c.pid === 'number' && isText(c.machine)
    && (c.start === null || typeof c.start === 'number');
}

const isWaiter = (a: WaiterArgs): boolean => isArgsObject(a) && isText(a.member) && isWaiterClaim(a.claim) && isText(a.token);
const isSession = (a: SessionArgs): boolean => isHookSession(a.session) && typeof a.found_by_session === 'boolean';
const sessionOf = (a: SessionArgs): HookSession | null => (a.found_by_session ? a.session : null);
/** The claim with only its own fields (arguments may carry more). */
const claimOf = (c: PresenceClaim): PresenceClaim => ({ pid: c.pid, machine: c.machine, start: c.start, kind: 'waiter' });

/** A lease's holder runs: on this machine while its pid does; another machine's only its expiry can end. */
function judgeLeaseHolder(ctx: EngineCtx): (lease: WaitLease) => boolean {
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  return (lease) => isAlive({ pid: lease.pid, machine: lease.host, start: null, kind: 'waiter', renewed_at: 0, until: lease.until }) !== false;
}

/** A waiter starting: `lease_ms` is how long its lease holds unrenewed, `renew_ms` how often it renews. */
export type WaitStartArgs = WaiterArgs & SessionArgs & { lease_ms: number; renew_ms: number };

/** How a wait starts: quiet (nothing to wait for, or a rival waits), wake (mail waits already: `notice`), or waiting (the lease taken). */
export type WaitStart = { start: 'quiet' } | { start: 'wake'; notice: string } | { start: 'waiting' };

/**
 * Takes the member's waiter lease from whoever holds it, unless the session
 * is over, mail already waits (the waiter wakes at once: no lease needed),
 * or a live rival holds it and either has mail to wake for or is on another
 * machine, where it cannot be told to stand down.
 */
const hook_wait_start: ChangeFn<WaitStartArgs, Answer<WaitStart>> = (state, a, ctx) => {
  if (!isWaiter(a) || !isSession(a) || !isLeaseCount(a.lease_ms) || !isLeaseCount(a.renew_ms)) return malformed('waiter start');
  const now = ctx.now();
  const claim = claimOf(a.claim);
  if (hasHookSessionEnded(state, a.member, sessionOf(a))) return { ok: true, message: 'not waiting', data: { start: 'quiet' } };
  const holder = activeWaitLease(state, a.member, now, judgeLeaseHolder(ctx));
  const mail = waitingMail(state, a.member, now);
  if (holder && (mail || holder.host !== claim.machine)) return { ok: true, message: 'not waiting', data: { start: 'quiet' } };
  if (mail) return { ok: true, message: 'not waiting', data: { start: 'wake', notice: mail.notice } };
  // This turn's waiter covers the member from now on: an earlier one here
  // sees its lease gone and ends quietly, instead of timing out first.
  replaceWaitLease(state, a.member, { pid: claim.pid, host: claim.machine, token: a.token, until: now + a.lease_ms });
  // A waiting session is a present one (engine/presence), whatever its host.
  recordPresence(state, a.member, claim, now, a.renew_ms);
  return { ok: true, message: 'lease taken', data: { start: 'waiting' } };
};

export type WaitRenewArgs = WaiterArgs & { lease_ms: number; renew_ms: number };

/** Renews the lease while it is still this waiter's; refused (nothing saved) when it was lost. */
const hook_wait_renew: ChangeFn<WaitRenewArgs> = (state, a, ctx) => {
  if (!isWaiter(a) || !isLeaseCount(a.lease_ms) || !isLeaseCount(a.renew_ms)) return malformed('waiter renewal');
  const kept = renewWaitLease(state, a.member, a.token, ctx.now() + a.lease_ms);
  if (kept) recordPresence(state, a.member, claimOf(a.claim), ctx.now(), a.renew_ms);
  return { ok: kept, message: kept ? 'lease renewed' : 'lease lost' };
};

/** A waiter stopping; with `look`, it looks for mail under the same lock (mail or its deadline stopped it). */
export type WaitReleaseArgs = WaiterArgs & SessionArgs & { look: boolean };

/**
 * Releases the lease (if still this waiter's) and the waiter's presence; with
 * `look`, answers the notice of mail waiting now, so a rival that stood down
 * because this waiter held the lease cannot miss mail that came meanwhile.
 */
const hook_wait_release: ChangeFn<WaitReleaseArgs, Answer<{ notice?: string }>> = (state, a, ctx) => {
  if (!isWaiter(a) || !isSession(a) || typeof a.look !== 'boolean') return malformed('waiter release');
  releaseWaitLease(state, a.member, a.token);
  leavePresence(state, a.member, claimOf(a.claim), ctx.now());
  const mail = a.look && !hasHookSessionEnded(state, a.member, sessionOf(a)) ? waitingMail(state, a.member, ctx.now()) : undefined;
  return { ok: true, message: 'lease released', data: mail ? { notice: mail.notice } : {} };
};

export const waitChanges = { hook_wait_start, hook_wait_renew, hook_wait_release };
