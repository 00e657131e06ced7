// The spawn driver's changes (delivery/spawn-driver.ts): plan a resume and
// take its lease, then record how the resume ended.
import type { ChangeFn } from './change-fn';
import { commitDelivery, requeueFailedDelivery } from '../delivery';
import { MAX_DELIVERY_ATTEMPTS } from '../constants';
import { judgeByGone, isHolderList, type HolderRef } from '../gone-holders';
import { extendSpawnLease, recordMemberError, releaseSpawnLease } from '../spawn-leases';
import { isSpawnHost, type HostBinary, type SpawnHost } from '../spawn-argv';
import { planSpawn, SPAWN_RETRY_BASE_MS, type SpawnPlan } from '../spawn-plan';
import { isOwner, isText, isTextList, malformed, type Answer } from './args';

/** Plan one spawn delivery to `member` by this process (pid, host) and, when it spawns, take its lease. */
export interface SpawnPlanArgs {
  member: string;
  pid: number;
  host: string;
  gone: HolderRef[];
  /** Each host's binary as the caller's environment names it; null where the override is unusable. */
  binaries: Partial<Record<SpawnHost, HostBinary | null>>;
  platform: string;
  lease_ms: number;
  token: string;
}

function isBinaries(value: unknown): value is Partial<Record<SpawnHost, HostBinary | null>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(([host, binary]) => isSpawnHost(host)
    && (binary === null || (typeof binary === 'object' && isText((binary as HostBinary).file) && isTextList((binary as HostBinary).prefix))));
}

const spawn_plan: ChangeFn<SpawnPlanArgs, Answer<{ plan: SpawnPlan }>> = (state, a, ctx) => {
  if (!isText(a.member) || typeof a.pid !== 'number' || !isText(a.host) || !isHolderList(a.gone) || !isBinaries(a.binaries)
    || !isText(a.platform) || typeof a.lease_ms !== 'number' || !isText(a.token)) return malformed('spawn plan');
  const plan = planSpawn(state, a.member, {
    pid: a.pid, host: a.host, isOwnerAlive: judgeByGone(a.gone), binaries: a.binaries, platform: a.platform, leaseMs: a.lease_ms, token: a.token,
  }, ctx);
  return { ok: true, message: plan.kind, data: { plan } };
};

/** How a spawn ended: accepted (the mail is delivered) or not (it goes back, with a back-off held in the lease). */
export interface SpawnFinishArgs {
  member: string;
  ids: string[];
  owner: { pid: number; host: string; lease_until: number };
  token: string;
  accepted: boolean;
  /** What went wrong, for the error log (unused when accepted). */
  failure: string;
}

const spawn_finish: ChangeFn<SpawnFinishArgs, Answer<{ retry_ms: number | null }>> = (state, a, ctx) => {
  if (!isText(a.member) || !isTextList(a.ids) || !isOwner(a.owner) || !isText(a.token) || typeof a.accepted !== 'boolean' || !isText(a.failure)) {
    return malformed('spawn finish');
  }
  const at = ctx.now();
  let retryMs: number | null = null;
  if (a.accepted) {
    commitDelivery(state, a.member, a.ids, 'spawn_push', at, a.owner);
  } else {
    // Only envelopes still held by this attempt: after a takeover they belong to someone else.
    const result = requeueFailedDelivery(state, a.member, a.ids, a.owner);
    const attempts = Math.max(0, ...result.requeued.map((id) => state.messages[id]?.attempts ?? 0));
    retryMs = result.requeued.length > 0 ? SPAWN_RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1) : null;
    const parts = [`${result.requeued.length} message(s) re-queued${retryMs === null ? '' : `, retry in ${retryMs / 1000} s`}`];
    if (result.failed.length > 0) parts.push(`${result.failed.length} failed after ${MAX_DELIVERY_ATTEMPTS} attempts`);
    recordMemberError(state, a.member, at, `Spawn delivery to ${a.member} failed (${a.failure}); ${parts.join('; ')}`);
  }
  // After a failure the lease stays as the back-off, so no process retries before it is due.
  if (retryMs === null) releaseSpawnLease(state, a.member, a.token);
  else extendSpawnLease(state, a.member, a.token, at + retryMs);
  return { ok: true, message: a.accepted ? 'committed' : 'requeued', data: { retry_ms: retryMs } };
};

export const spawnChanges = { spawn_plan, spawn_finish };
