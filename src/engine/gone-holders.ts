// Liveness judged before a change, so a change applies the same wherever it
// is applied. A delivery's caller may bring its own judgement of holders (a
// pid check on its machine, or a test's stand-in); it judges the holders a
// snapshot shows (of in-flight mail and of spawn leases) and passes those it
// found gone as arguments. The change then treats every other holder as
// alive: their leases still end them, as isAbandonedDelivery says.
import { ownValue } from './validate';
import type { DeliveryOwner, State } from './types';

/** A process that held mail or a lease, as the record names it: its pid and machine tag. */
export interface HolderRef {
  pid: number;
  host: string;
}

/** The distinct holders of in-flight mail and of spawn leases in `state` that `isAlive` judges gone. */
export function findGoneHolders(state: State, isAlive: (owner: DeliveryOwner) => boolean): HolderRef[] {
  const owners: DeliveryOwner[] = [];
  for (const envelope of Object.values(state.messages)) {
    if (envelope.delivery_status === 'in_flight' && envelope.delivery_owner) owners.push(envelope.delivery_owner);
  }
  for (const memberId of Object.keys(state.spawn_leases ?? {})) {
    const lease = ownValue(state.spawn_leases ?? {}, memberId);
    if (lease) owners.push({ pid: lease.pid, host: lease.host, lease_until: lease.until });
  }
  const judged = new Map<string, boolean>();
  const gone: HolderRef[] = [];
  for (const owner of owners) {
    const key = `${owner.pid}@${owner.host}`;
    if (judged.has(key)) continue;
    const isGone = !isAlive(owner);
    judged.set(key, isGone);
    if (isGone) gone.push({ pid: owner.pid, host: owner.host });
  }
  return gone;
}

/** The judgement a change applies: a holder is alive unless it is among `gone`. */
export function judgeByGone(gone: readonly HolderRef[]): (owner: DeliveryOwner) => boolean {
  return (owner) => !gone.some((g) => g.pid === owner.pid && g.host === owner.host);
}

/** Whether `value` is a list of holders (arguments may come from a file another process wrote). */
export function isHolderList(value: unknown): value is HolderRef[] {
  return Array.isArray(value) && value.every((h: unknown) => {
    const r = h as Partial<HolderRef> | null;
    return typeof r === 'object' && r !== null && typeof r.pid === 'number' && typeof r.host === 'string';
  });
}
