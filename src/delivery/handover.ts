// Mail handed to a reader stays in flight under the process that handed it
// over until the reply carrying it is known to be written or not: a tool's
// reply to a pull (tools/pull-settler.ts), a hook's answer (hooks/mail-step.ts)
// or a person's `opencomms read` (cli/read.ts). All three settle it here, by
// one engine change (`mail_settle`, engine/changes/message.ts): written, the
// mail is committed as delivered (and the open requests the reply reminded
// of are marked as reminded); not written, it goes back to pending unsent. If
// the process dies first, the mail stays in flight under a dead pid and the
// next drainer's sweep brings it back (PROTOCOL 7.1: at least once, never lost).
import type { DeliveryOwner } from '../engine';
import type { MailSettleArgs } from '../engine/changes/message';
import { processHostTag } from '../process/place';
import type { Store } from '../store';

/** Mail one reply carries, in flight under `owner` until settleHandover. */
export interface MailHandover {
  memberId: string;
  owner: DeliveryOwner;
  ids: readonly string[];
  /** How a written reply counts the mail (MailSettleArgs.via): `hook`, or `pull` for a tool's pull or a read. */
  via: MailSettleArgs['via'];
  /** Of `ids`, those this process's doorbell announced (`pull` only). */
  rungIds?: readonly string[];
  /** Open requests the reply reminded its reader of (a Stop hook). */
  reminderIds?: readonly string[];
}

/** This process as the owner of mail it hands over, held against other processes' sweeps for `leaseMs`. */
export function handoverOwner(now: number, leaseMs: number, machine = processHostTag()): DeliveryOwner {
  return { pid: process.pid, host: machine, lease_until: now + leaseMs };
}

/**
 * Commits the handed-over mail once the reply carrying it was written
 * (`wasSent`), or gives it back unsent when it was not. Only mail still in
 * flight under the handover's owner is touched. Throws what the store throws;
 * retrying is the caller's choice.
 */
export async function settleHandover(store: Store, handover: MailHandover, wasSent: boolean): Promise<void> {
  const { memberId: member, owner, via } = handover;
  const args: MailSettleArgs = { member, owner, ids: [...handover.ids], via, sent: wasSent };
  if (handover.rungIds !== undefined) args.rung_ids = [...handover.rungIds];
  if (handover.reminderIds !== undefined) args.reminder_ids = [...handover.reminderIds];
  await store.mutate('mail_settle', args, { member });
}
