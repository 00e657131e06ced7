// The settle-after-reply path of a pull: mail handed to a reply stays in
// flight under this process until the reply's fate is known, then is
// committed as delivered or given back (delivery/handover.ts, as the hooks
// and `opencomms read` do); abandoned in-flight mail is swept.
import * as engine from '../engine';
import type { DeliveryOwner } from '../engine';
import type { ToolCall } from './registry';
import type { Store } from '../store';
import { isHolderRunning } from '../process/liveness';
import { settleHandover, type MailHandover } from '../delivery/handover';

/**
 * How long a pull's in-flight mail is held against other processes' sweeps
 * while its reply is written and committed. Long enough for a slow host to
 * read a large reply and for the commit to wait out the lock; a dead owner on
 * this machine is swept at once whatever its lease.
 */
export const PULL_LEASE_MS = 60_000;
/** Tries at the commit or give-back after a pull's reply (a lock timeout is worth another go). */
const SETTLE_TRIES = 3;

/** The pulls of one process whose reply is on its way, and how their mail is settled. */
export class PullSettler {
  /** Pulls whose reply is on its way and whose mail is not yet committed or given back. */
  private readonly unsettledPulls = new Set<Promise<void>>();

  constructor(
    private readonly store: () => Store,
    /** This process's machine: where the pids of delivery owners are judged. */
    private readonly machine: string,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Finishes a pull once its reply's fate is known: the mail is committed as
   * delivered when the reply was written, and given back to pending (the
   * handover undone) when it was cancelled or could not be written. If this
   * process dies first, the mail stays in flight under a dead pid and the next
   * drainer sweeps it back (PROTOCOL 7.1).
   */
  settleAfterReply(call: ToolCall, handover: MailHandover): void {
    let markSettled: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => {
      markSettled = resolve;
    });
    this.unsettledPulls.add(settled);
    call.afterReply(async (fate) => {
      try {
        await this.settlePull(handover, fate === 'sent');
      } finally {
        this.unsettledPulls.delete(settled);
        markSettled();
      }
    });
  }

  /**
   * Resolves once every pull already settling has finished, so a call made
   * after a pull's reply sees its mail delivered (or back in the queue).
   * Only pulls registered before this call are awaited: those came earlier in
   * the reply order, so waiting on them can never wait on this call's own reply.
   */
  whenPullsSettled(): Promise<void> {
    if (this.unsettledPulls.size === 0) return Promise.resolve();
    return Promise.all([...this.unsettledPulls]).then(() => undefined);
  }

  private async settlePull(handover: MailHandover, wasSent: boolean): Promise<void> {
    const { ids } = handover;
    for (let tryNo = 1; ; tryNo += 1) {
      try {
        await settleHandover(this.store(), handover, wasSent);
        return;
      } catch (err) {
        // Residual risk: a commit that never lands leaves the mail in flight
        // until the lease ends; the sweep then delivers it again (at least once).
        this.log(`pull of ${ids.length} message(s): could not ${wasSent ? 'commit' : 'give back'} (try ${tryNo}): ${err instanceof Error ? err.message : String(err)}`);
        if (tryNo >= SETTLE_TRIES) return;
      }
    }
  }

  /** Returns abandoned in-flight mail (dead owner, lease over) to pending, under the lock. */
  async sweepAbandoned(): Promise<void> {
    const store = this.store();
    // Judged on this machine from the state as it is; the sweep re-checks what is still in flight.
    const gone = await store.readLatest((state) => engine.findGoneHolders(state, this.isOwnerAlive));
    await store.mutate('push_sweep', { gone });
  }

  /** Another process's delivery is alive when its pid runs on this machine; elsewhere only its lease counts. */
  isOwnerAlive = (owner: DeliveryOwner): boolean => isHolderRunning(owner, this.machine);
}
