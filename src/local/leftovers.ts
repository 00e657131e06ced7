// Files a killed process can leave in .opencomms: the temp file of a save it
// never renamed (`.<stem>.<pid>.<8 hex>.tmp`) and the lock it moved aside
// while breaking a dead holder's lock but never deleted
// (`.state.lock.<pid>.<8 hex>.stale`). Each name carries the pid that made it.
// Such a file is a leftover once that pid is dead here and the file is old
// enough that no writer on another machine sharing the folder can still be
// busy with it.
import { join } from 'node:path';
import { FsPort, unlinkQuietly } from '../files/fs-port';
import { checkOwnDir } from '../files/own-files';

/** A temp or aside file younger than this is never taken for a leftover. */
export const LEFTOVER_MIN_AGE_MS = 60_000;

const LEFTOVER_NAME = /^\.(?:.+\.(\d+)\.[0-9a-f]{8}\.tmp|state\.lock(?:\.break)?\.(\d+)\.[0-9a-f]{8}\.stale)$/;
// `.state.lock.queue`: the temps of a waiting change's answers (waiting-changes.ts).
const SUBDIRS = ['', 'history', 'archives', 'pins', 'edits', 'shell', 'turns', '.state.lock.queue'];

/** The pid a temp or lock-aside name carries, or undefined for any other name. */
export function leftoverPidOf(name: string): number | undefined {
  const match = LEFTOVER_NAME.exec(name);
  if (!match) return undefined;
  return Number(match[1] ?? match[2]);
}

export interface LeftoverOptions {
  port: FsPort;
  stateDir: string;
  isPidAlive: (pid: number) => boolean;
  now: number;
  /** A pid just found dead on this host (a broken lock's holder): its files go whatever their age. */
  deadHolderPid?: number;
}

/** Paths of leftovers in the state folder and its history, archives and pins folders. */
export function findLeftovers(options: LeftoverOptions): string[] {
  const { port, stateDir, isPidAlive: isPidRunning, now, deadHolderPid } = options;
  const found: string[] = [];
  const liveness = new Map<number, boolean>();
  for (const sub of SUBDIRS) {
    const dir = sub === '' ? stateDir : join(stateDir, sub);
    let names: string[];
    try {
      // A folder that is a link out of the project is not swept (nor used: see fs-port).
      if (!checkOwnDir(port, dir, false)) continue;
      names = port.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = leftoverPidOf(name);
      if (pid === undefined) continue;
      const path = join(dir, name);
      if (pid === deadHolderPid) {
        found.push(path);
        continue;
      }
      if (pid === process.pid) continue;
      let isAlive = liveness.get(pid);
      if (isAlive === undefined) {
        isAlive = isPidRunning(pid);
        liveness.set(pid, isAlive);
      }
      if (isAlive) continue;
      try {
        const stat = port.lstatIfExists(path);
        if (stat === undefined || now - stat.mtimeMs < LEFTOVER_MIN_AGE_MS) continue; // gone already, or too young
      } catch {
        continue;
      }
      found.push(path);
    }
  }
  return found;
}

/** Deletes the leftovers findLeftovers reports; returns how many it found. */
export function removeLeftovers(options: LeftoverOptions): number {
  const found = findLeftovers(options);
  for (const path of found) unlinkQuietly(options.port, path);
  return found.length;
}
