// The locked half of a spawn delivery, applied as one change (the
// spawn_plan change, engine/changes/push-spawn.ts): recover abandoned
// deliveries, check the lease, age out old mail, check the argv size, drain,
// frame, check the real batch and take the lease, all in one commit, so no
// other process can slip a drain or a second resume between the check and
// the take. The binaries come resolved from the caller's environment.
import { compareSendOrder, pendingFor } from './envelopes';
import { cooldownRemainingMs, drainQueue, expireAgedOut, requeueFailedDelivery, sweepInFlight } from './delivery';
import { BATCH_SEPARATOR } from './framing';
import { frameForDelivery } from './pull';
import { activeSpawnLease, recordMemberError, spawnMemberships, takeSpawnLease } from './spawn-leases';
import {
  argvBudget, argvCost, fittingPrefix, hostSessionIdProblem, isSpawnHost, resumeArgs, SPAWN_HOSTS, type HostBinary, type SpawnHost,
} from './spawn-argv';
import type { DeliveryOwner, EngineCtx, Envelope, State } from './types';

/** First retry after a failed spawn; doubles per attempt (2 s, 4 s, 8 s, 16 s) until the dead letter. */
export const SPAWN_RETRY_BASE_MS = 2_000;

export interface PlanContext {
  pid: number;
  host: string;
  isOwnerAlive: (owner: DeliveryOwner) => boolean;
  /** Each host's binary as the caller's environment names it; null (or missing) where its override is unusable. */
  binaries: Partial<Record<SpawnHost, HostBinary | null>>;
  platform: string;
  leaseMs: number;
  /** Fresh per attempt: tells this attempt's lease from any other. */
  token: string;
}

export type SpawnPlan =
  | { kind: 'none' }
  | { kind: 'leased'; until: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'refused' }
  | { kind: 'spawn'; file: string; args: string[]; ids: string[]; owner: DeliveryOwner; token: string };

/** One host session to resume and the channels whose mail goes to it. */
export interface SpawnTarget {
  host: SpawnHost;
  hostSessionId: string | null;
  channelIds: string[];
}

/** The member's spawn_push memberships on hosts we can resume, grouped by host session; unpaused channels only. */
export function spawnTargets(state: State, memberId: string, machine?: string): SpawnTarget[] {
  const targets = new Map<string, SpawnTarget>();
  for (const { channelId, member } of spawnMemberships(state, memberId)) {
    if (!isSpawnHost(member.host)) continue;
    // A session on another machine cannot be resumed from here (members of older versions name none).
    if (machine !== undefined && member.machine !== undefined && member.machine !== machine) continue;
    const channel = Object.values(state.channels).find((c) => c.id === channelId);
    if (!channel || channel.paused) continue;
    const key = `${member.host}\u0000${member.host_session_id ?? ''}`;
    const target = targets.get(key) ?? { host: member.host, hostSessionId: member.host_session_id, channelIds: [] };
    target.channelIds.push(channelId);
    targets.set(key, target);
  }
  return [...targets.values()];
}

/** Pending mail for `memberId` in the target's channels, oldest first. */
export function targetPending(state: State, memberId: string, target: SpawnTarget): Envelope[] {
  return target.channelIds.flatMap((id) => pendingFor(state, memberId, id)).sort(compareSendOrder);
}

/** Plans (and, under the caller's lock, starts) one spawn delivery to `memberId`. */
export function planSpawn(state: State, memberId: string, pc: PlanContext, ctx: EngineCtx): SpawnPlan {
  const now = ctx.now();
  // Every drain sweeps first: a delivery whose owner died or overran its lease comes back, attempt counted.
  sweepInFlight(state, pc.isOwnerAlive, now);
  const held = activeSpawnLease(state, memberId, now, pc.isOwnerAlive);
  if (held) return { kind: 'leased', until: held.until };
  let refused = false;
  const refuseSpawn = (message: string): void => {
    recordMemberError(state, memberId, now, `Spawn delivery to ${memberId} skipped: ${message}`);
    refused = true;
  };
  for (const target of spawnTargets(state, memberId, pc.host)) {
    // The drain turns aged-out mail stale and skips it, which would let it take a later envelope the size
    // check never measured; settling the age-out first makes the measured prefix exactly what it can take.
    expireAgedOut(state, memberId, target.channelIds, now);
    const pending = targetPending(state, memberId, target);
    if (pending.length === 0) continue;
    const problem = hostSessionIdProblem(target.hostSessionId);
    if (problem) {
      refuseSpawn(`${problem}; its mail stays queued for opencomms_pull`);
      continue;
    }
    const binary = pc.binaries[target.host];
    if (!binary) {
      refuseSpawn(`${SPAWN_HOSTS[target.host].override} is not a usable command (unterminated quote?)`);
      continue;
    }
    const hsid = target.hostSessionId!;
    const budget = argvBudget(pc.platform);
    const fixedCost = argvCost(binary.file, [...binary.prefix, ...resumeArgs(target.host, hsid, '')], pc.platform);
    const preview = pending.map((e) => frameForDelivery(state, [e], ctx));
    const fits = fittingPrefix(preview, BATCH_SEPARATOR, fixedCost, budget, pc.platform);
    if (fits === 0) {
      refuseSpawn(`message ${pending[0]!.message_id} is too large to pass on a command line (budget ${budget}); nothing was truncated, it stays queued for opencomms_pull`);
      continue;
    }
    const owner: DeliveryOwner = { pid: pc.pid, host: pc.host, lease_until: now + pc.leaseMs };
    // Per-channel limits keep the drain to the envelopes that were measured (whole messages, oldest first).
    const perChannel = new Map<string, number>();
    for (const e of pending.slice(0, fits)) perChannel.set(e.channel_id, (perChannel.get(e.channel_id) ?? 0) + 1);
    const handed = [...perChannel].flatMap(([channel, limit]) => drainQueue(state, memberId, { channel, limit, owner, now }));
    if (handed.length === 0) {
      const wait = cooldownRemainingMs(state, memberId, now);
      if (wait > 0) return { kind: 'wait', ms: wait };
      continue;
    }
    handed.sort(compareSendOrder);
    const batch = frameForDelivery(state, handed, ctx);
    const args = [...binary.prefix, ...resumeArgs(target.host, hsid, batch)];
    // The real batch is measured too. It is at most the measured prefix (a cooldown or a budget only
    // holds mail back), so this should never trip; if it does, the mail goes back like a failed handover
    // (attempt counted, so it cannot loop for ever) and the rest of the change, stale marks included, is kept.
    if (argvCost(binary.file, args, pc.platform) > budget) {
      requeueFailedDelivery(state, memberId, handed.map((e) => e.message_id), owner);
      refuseSpawn(`the drained batch of ${handed.length} message(s) is too large to pass on a command line (budget ${budget}); it was re-queued`);
      continue;
    }
    takeSpawnLease(state, memberId, { pid: pc.pid, host: pc.host, token: pc.token, until: now + pc.leaseMs }, now, pc.isOwnerAlive);
    return { kind: 'spawn', file: binary.file, args, ids: handed.map((e) => e.message_id), owner, token: pc.token };
  }
  return refused ? { kind: 'refused' } : { kind: 'none' };
}
