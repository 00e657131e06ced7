// Keeps this process on the presence record of every member it speaks for
// (engine/presence): recorded at the first call for a member, renewed on a
// timer only when a renewal is due, and taken off when the process ends.
// A renewal writes the state (and so wakes every watcher): on the file store,
// where only this machine looks and judges by pid, it comes once a minute and
// only dates a crash; where other machines look (a networked store), every
// PRESENCE_RENEW_MS, inside their 30-second lease.
import * as engine from '../engine';
import type { PresenceKind } from '../engine';
import { thisRecordedProcess } from '../process/liveness';
import type { Store } from '../store';

/** How long a leaving process waits for its last write before it exits anyway. */
const LEAVE_WAIT_MS = 2_000;

export class PresenceKeeper {
  /** Members this process speaks for, with when it last renewed each (this process's clock). */
  private readonly renewedAt = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private isLeaving = false;

  constructor(
    private readonly store: () => Store,
    private readonly kind: PresenceKind,
    private readonly log: (line: string) => void,
    /** The host door this process rings, recorded with it so senders can tell how their mail will arrive. */
    private readonly door?: engine.HostDoor,
  ) {}

  /** How often a renewal is due: each minute where only this machine looks, else PRESENCE_RENEW_MS. */
  get renewMs(): number {
    // only a store other machines share needs the lease renewed often; on this machine pids are judged
    return this.store().describe().shared === undefined ? engine.LOCAL_PRESENCE_RENEW_MS : engine.PRESENCE_RENEW_MS;
  }

  /** Records this process for `memberId` when it is new here or its renewal is due; trouble is logged, never thrown. */
  async keep(memberId: string): Promise<void> {
    if (this.isLeaving) return;
    const at = this.renewedAt.get(memberId);
    const now = Date.now();
    if (at !== undefined && now - at < this.renewMs && now >= at) return;
    this.renewedAt.set(memberId, now);
    this.startTimer();
    await this.write([memberId]);
  }

  /** Takes this process off every record it is on; resolves within LEAVE_WAIT_MS whatever the store does. */
  leave(): Promise<void> {
    this.isLeaving = true;
    if (this.timer) clearInterval(this.timer);
    const ids = [...this.renewedAt.keys()];
    if (ids.length === 0) return Promise.resolve();
    const claim = { ...thisRecordedProcess(), kind: this.kind };
    const done = this.store().mutate('presence_leave', { ids, claim }).then(() => undefined, (err: unknown) => this.log(`could not record that this process ends: ${describeFault(err)}`));
    return new Promise<void>((resolve) => {
      const cap = setTimeout(resolve, LEAVE_WAIT_MS);
      cap.unref();
      void done.finally(() => {
        clearTimeout(cap);
        resolve();
      });
    });
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renewAll(), this.renewMs);
    this.timer.unref();
  }

  private async renewAll(): Promise<void> {
    const now = Date.now();
    const due = [...this.renewedAt].filter(([, at]) => now - at >= this.renewMs || now < at).map(([id]) => id);
    if (due.length === 0 || this.isLeaving) return;
    for (const id of due) this.renewedAt.set(id, now);
    await this.write(due);
  }

  private async write(ids: readonly string[]): Promise<void> {
    const claim = { ...thisRecordedProcess(), kind: this.kind, ...(this.door === undefined ? {} : { door: this.door }) };
    try {
      await this.store().mutate('presence_record', { ids: [...ids], claim, renew_ms: this.renewMs });
    } catch (err) {
      for (const id of ids) this.renewedAt.delete(id);
      this.log(`could not record this process as present: ${describeFault(err)}`);
    }
  }
}

function describeFault(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
