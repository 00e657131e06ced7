// Where a process lives, for judging lock and lease holders: the machine
// (hostname, and on Linux the boot id), the pid namespace it counts pids in,
// and when a given pid started. Two containers that share a volume and a
// hostname but not a pid namespace see different processes behind one pid,
// so `kill(pid, 0)` is only meaningful for a holder in our own namespace.
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** This process's place, as written into lock stamps. */
export interface ProcessPlace {
  /** `<boot id>/<pid namespace>` where /proc tells them, else undefined (judge by hostname alone). */
  ns: string | undefined;
  /** This process's start time in clock ticks since boot, where /proc tells it. */
  start: number | undefined;
  /**
   * Whether /proc shows our own pid namespace, so `/proc/<pid>` describes the
   * process our `kill(pid, 0)` would reach. False inside `unshare --pid` without
   * a remount of /proc, and wherever /proc is missing.
   */
  isProcOurs: boolean;
}

let cached: ProcessPlace | undefined;

/** The place of this process, read once. Never throws. */
export function thisProcessPlace(): ProcessPlace {
  cached ??= readPlace();
  return cached;
}

function readPlace(): ProcessPlace {
  let ns: string | undefined;
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNs = /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'));
    if (boot !== '' && pidNs) ns = `${boot}/${pidNs[1]}`;
  } catch {
    ns = undefined; // no /proc (macOS, Windows): the hostname has to do
  }
  let isProcOurs = false;
  try {
    isProcOurs = readlinkSync('/proc/self') === String(process.pid);
  } catch {
    isProcOurs = false;
  }
  return { ns, start: isProcOurs ? processStartTicks(process.pid) : undefined, isProcOurs };
}

/**
 * The start time of `pid` in clock ticks since boot (field 22 of
 * /proc/<pid>/stat), or undefined when /proc cannot tell. Only meaningful
 * when `thisProcessPlace().isProcOurs`.
 */
export function processStartTicks(pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces
  // or parentheses: the fields that follow start after the LAST ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]);
  return Number.isSafeInteger(ticks) && ticks >= 0 ? ticks : undefined;
}

// Linux reports process times in USER_HZ ticks, 100 a second on every
// architecture Node runs on (the kernel fixes USER_HZ; CONFIG_HZ differs).
const TICKS_PER_SECOND = 100;

/** Epoch ms at which `pid` started, or undefined when /proc cannot tell. Accurate to about a second. */
export function processStartEpochMs(pid: number): number | undefined {
  const ticks = processStartTicks(pid);
  if (ticks === undefined) return undefined;
  let bootSeconds: number;
  try {
    const match = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (!match) return undefined;
    bootSeconds = Number(match[1]);
  } catch {
    return undefined;
  }
  return bootSeconds * 1000 + (ticks * 1000) / TICKS_PER_SECOND;
}

let hostTag: string | undefined;

/**
 * This process's place as written into delivery owners and leases: the
 * hostname, and the boot id and pid namespace where /proc tells them. A
 * holder whose tag equals ours is in our pid namespace, so `kill(pid, 0)`
 * judges it; any other tag (another machine, another container sharing the
 * hostname) is judged by its lease alone.
 */
export function processHostTag(): string {
  hostTag ??= hostTagOf(hostname(), thisProcessPlace().ns);
  return hostTag;
}

/** The machine tag of a process on `host` in pid namespace `ns` (processHostTag's form), as a lock stamp names it. */
export function hostTagOf(host: string, ns: string | undefined): string {
  return ns === undefined ? host : `${host}/${ns}`;
}
