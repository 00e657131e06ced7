// Whether a process that holds something (a lock, a lease, a delivery, a
// claim) is still there. One judgement for every holder: on this machine, its
// pid is asked; from another machine (or another pid namespace) a pid means
// nothing here, so only the holder's own expiry can end it.
import { processHostTag } from './place';

/** Whether `pid` names a live process in our pid namespace. EPERM means alive but not ours. */
export function isPidAlive(pid: number): boolean {
  if (!(pid > 0)) return false; // 0 and negatives address process groups, never one process
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException | undefined)?.code !== 'ESRCH';
  }
}

/** A holder as leases, delivery owners and claims record it: its pid and the machine tag it ran on. */
export interface ProcessHolder {
  pid: number;
  host: string;
}

/**
 * Whether `holder` may still be alive: on this machine (`machine`, this
 * process's tag by default) while its pid runs; elsewhere always, since only
 * its expiry can tell.
 */
export function isHolderRunning(holder: ProcessHolder, machine = processHostTag(), isAlive: (pid: number) => boolean = isPidAlive): boolean {
  return holder.host === machine ? isAlive(holder.pid) : true;
}

/** A holder with an expiry of its own (`until`, epoch ms): alive while its pid runs here; from elsewhere, until then. */
export function isLeaseAlive(holder: ProcessHolder & { until: number }, now: number, machine = processHostTag()): boolean {
  return holder.host === machine ? isPidAlive(holder.pid) : now <= holder.until;
}
