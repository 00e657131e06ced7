// The file store's self-check (doctor): state.json loads, its lock and the
// leftovers of dead processes, and the .opencomms folder every store keeps.
import { readdirSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parseState } from '../../engine/state-codec';
import type { State } from '../../engine/types';
import { isPidAlive } from '../../process/liveness';
import { guardCheck, printableLabel, type Check, type StoreCheckOptions, type StoreCheckReport } from '../check';
import { checkEntries, checkModes, lstatOrNone } from '../folder-check';
import { tryReadFile } from '../../files/file-read';
import { NODE_FS } from '../../files/fs-port';
import { kindOf } from '../../files/own-files';
import { findLeftovers, removeLeftovers } from '../../local/leftovers';
import { breakAbandonedLock, inspectLock, LOCK_STALE_MS } from './lock';

/** A lock older than this whose holder cannot be checked (another machine) is worth a warning. */
const OLD_LOCK_MS = 15_000;

/** Runs the file store's checks on `stateDir` (the project's .opencomms), in doctor's order. */
export async function checkFileStore(projectDir: string, stateDir: string, options: StoreCheckOptions): Promise<StoreCheckReport> {
  const checks = [
    ...guardCheck('state', () => checkState(projectDir, stateDir)),
    ...guardCheck('entries', () => checkEntries(projectDir)),
    ...guardCheck('modes', () => checkModes(projectDir, options.fix)),
    ...guardCheck('lock', () => checkLock(stateDir, options.fix)),
    ...guardCheck('leftovers', () => checkLeftovers(stateDir, options.fix)),
  ];
  return { checks, state: loadStateQuietly(stateDir), store: { kind: 'file' } };
}

function loadStateQuietly(stateDir: string): State | undefined {
  try {
    const bytes = tryReadFile(NODE_FS, join(stateDir, 'state.json'));
    const parsed = bytes === undefined ? undefined : parseState(bytes.toString('utf8'), Date.now());
    return parsed?.ok ? parsed.state : undefined;
  } catch {
    return undefined;
  }
}

function checkState(projectDir: string, dir: string): Check[] {
  const path = join(dir, 'state.json');
  const checks: Check[] = [];
  const dirStat = lstatOrNone(dir);
  if (dirStat !== undefined && !dirStat.isDirectory()) {
    const what = dirStat.isSymbolicLink() ? `a link to ${readlinkSync(dir)}` : kindOf(dirStat);
    return [{ name: 'state', status: 'fail', message: `${dir} is ${what}, not a folder: OpenComms refuses every call until it is removed or moved.` }];
  }
  const stat = lstatOrNone(path);
  if (stat === undefined) {
    checks.push({ name: 'state', status: 'ok', message: 'no state.json yet (the first opencomms_create writes it)' });
  } else if (!stat.isFile()) {
    // Refused on every call (fs-port), never preserved, replaced or deleted: say so, and how to get going again.
    const what = stat.isSymbolicLink() ? `a link to ${readlinkSync(path)}` : kindOf(stat);
    const how = stat.isSymbolicLink()
      ? `remove the link (rm "${path}"), after finding out how it got there`
      : `move it out of .opencomms/ (mv "${path}" "${join(projectDir, 'opencomms-state-moved-aside')}")`;
    checks.push({
      name: 'state',
      status: 'fail',
      message: `${path} is ${what}, not a file. OpenComms neither reads nor replaces it, so every call is refused until you ${how}; the next change then starts an empty state.`,
    });
  } else {
    let problem: string | undefined;
    let isUnreadable = false;
    try {
      const parsed = parseState((tryReadFile(NODE_FS, path) ?? Buffer.alloc(0)).toString('utf8'), Date.now());
      if (!parsed.ok) problem = parsed.reason.replace(/\s+/g, ' ');
    } catch (err) {
      problem = (err as Error).message.replace(/\s+/g, ' ');
      isUnreadable = true;
    }
    if (problem === undefined) checks.push({ name: 'state', status: 'ok', message: `${path} loads` });
    else if (isUnreadable) {
      checks.push({ name: 'state', status: 'fail', message: `${path} cannot be read (${problem}); every call that needs the state fails until that is fixed.` });
    } else {
      checks.push({
        name: 'state',
        status: 'fail',
        message: `${path} cannot be loaded (${problem}). The next change will preserve it as state.corrupt-<time>.json and start empty; restore a good copy first if you have one.`,
      });
    }
  }
  const corrupt = lstatOrNone(dir)?.isDirectory() ? readdirSync(dir).filter((f) => /^state\.corrupt-\d+.*\.json$/.test(f)) : [];
  if (corrupt.length > 0) {
    checks.push({
      name: 'preserved state',
      status: 'warn',
      message: `${corrupt.length} state file(s) that failed to load were preserved: ${corrupt.join(', ')}. Inspect them, then delete them when done.`,
    });
  }
  return checks;
}

function checkLock(stateDir: string, fix: boolean): Check {
  const options = { port: NODE_FS, lockPath: join(stateDir, '.state.lock'), host: hostname() };
  let seen: ReturnType<typeof inspectLock>;
  try {
    seen = inspectLock(options);
  } catch {
    // a link or a foreign file: the entries check names it
    return { name: 'lock', status: 'warn', message: 'the lock file cannot be read safely; see the entries check' };
  }
  if (!seen) return { name: 'lock', status: 'ok', message: 'not held' };
  const { owner } = seen;
  const who = owner ? `process ${owner.pid} on ${printableLabel(owner.host)}` : 'an unreadable stamp';
  if (seen.isAbandoned) {
    const what = `left behind by ${who}, which is gone`;
    if (!fix) return { name: 'lock', status: 'warn', message: `${what}; the next writer breaks it at once (or run doctor --fix)` };
    if (breakAbandonedLock(options)) return { name: 'lock', status: 'ok', message: `${what}; removed`, fixed: true };
    return { name: 'lock', status: 'ok', message: 'released or taken over by another process while checking' };
  }
  if (seen.isLocal) return { name: 'lock', status: 'ok', message: `held right now by live ${who}` };
  const ageS = Math.round(seen.ageMs / 1000);
  if (seen.ageMs < OLD_LOCK_MS) return { name: 'lock', status: 'ok', message: `held right now by ${who}` };
  return {
    name: 'lock',
    status: 'warn',
    message: `held by ${who} for ${ageS} s; writers break it after ${LOCK_STALE_MS / 1000} s without a refresh. If that machine is gone, delete ${options.lockPath}.`,
  };
}

function checkLeftovers(stateDir: string, fix: boolean): Check {
  const options = { port: NODE_FS, stateDir, isPidAlive, now: Date.now() };
  const found = findLeftovers(options);
  if (found.length === 0) return { name: 'leftovers', status: 'ok', message: 'no temp or lock files left by dead processes' };
  const what = `${found.length} temp or lock file(s) left by processes that died mid-save (${found.slice(0, 3).map((p) => p.slice(options.stateDir.length + 1)).join(', ')}${found.length > 3 ? ', …' : ''})`;
  if (!fix) return { name: 'leftovers', status: 'warn', message: `${what}; harmless, but run doctor --fix to delete them` };
  removeLeftovers(options);
  return { name: 'leftovers', status: 'ok', message: `deleted ${what}`, fixed: true };
}
