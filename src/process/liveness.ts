// Whether a process that holds something (a lock, a lease, a delivery, a
// claim) is still there. One judgement for every holder: on this machine, its
// pid is asked; from another machine (or another pid namespace) a pid means
// nothing here, so only the holder's own expiry can end it.
import { processHostTag, processStartTicks, thisProcessPlace } from './place';

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

/** A process as a presence record names it (engine PresenceProcess): pid, machine tag and start time. */
export interface RecordedProcess {
  pid: number;
  machine: string;
  start: number | null;
}

/**
 * Presence's process check: on this machine, whether the pid runs and (where
 * /proc tells) started when the record says, so a reused pid is not taken for
 * it; for another machine's process, undefined (its lease decides).
 */
export function isRecordedProcessAlive(proc: RecordedProcess, machine = processHostTag()): boolean | undefined {
  if (proc.machine !== machine) return undefined;
  if (!isPidAlive(proc.pid)) return false;
  if (proc.start === null || !thisProcessPlace().isProcOurs) return true;
  const start = processStartTicks(proc.pid);
  return start === undefined || start === proc.start;
}

/** This process as a presence record names it. */
export function thisRecordedProcess(): RecordedProcess {
  return { pid: process.pid, machine: processHostTag(), start: thisProcessPlace().start ?? null };
}
