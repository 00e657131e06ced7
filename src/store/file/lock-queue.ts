// The waiters' queue, `<lock>.queue/`: a claimer that finds the lock taken
// takes a ticket there and waits its turn. Only the first live ticket (the
// head) contends for the lock; every other waiter sleeps until the ticket
// just ahead of it goes (a watch on that one file, so a release wakes one
// process, not all of them), with a slow poll behind the watch. A holder
// leaves the queue as soon as it has the lock, so its successor is already
// watching the lock when it is released. Tickets are stamped like the lock
// and judged by the same rule (but one stamped in the future is dead at
// once), and a ticket's name is never reused, so any waiter may delete a
// dead one without a breaker. The queue is advisory:
// exclusion rests on the lock file alone, and a build that knows only
// `.state.lock` is still excluded.
import { watch } from 'node:fs';
import { join } from 'node:path';
import { randomHex } from '../../process/crypto';
import { errnoOf, FsPort, unlinkQuietly } from '../../files/fs-port';
import { checkOwnDir, ensureOwnDir } from '../../files/own-files';
import { isServableTicket, isTicketAbandoned, LockHandle, LockOptions, WatchPath } from './lock-stamp';
import { createInPlace, LockFile, readLockFile, releaseLock } from './lock-file';
import { CHANGE_SUFFIX, changePathOf } from './waiting-changes';

// `<15-digit epoch ms>.<pid>.<8 hex>`: names sort in the order tickets were taken.
// The 8 hex are this process's ticket count (4) and a random part (4), so two
// tickets of one process in one millisecond still sort in the order taken.
const TICKET_NAME = /^\d{15}\.\d+\.[0-9a-f]{8}$/;
let ticketsTaken = 0;

/** A waiter's place in the queue. */
export interface Ticket {
  readonly name: string;
  readonly handle: LockHandle;
}

/** A ticket's file. */
export function ticketPathOf(options: LockOptions, ticket: Ticket): string {
  return join(queueDirOf(options.lockPath), ticket.name);
}

/** The queue folder beside a lock file. */
export function queueDirOf(lockPath: string): string {
  return `${lockPath}.queue`;
}

function namesIn(port: FsPort, queueDir: string): string[] {
  try {
    // a linked or foreign queue folder is refused before anything in it is read
    if (!checkOwnDir(port, queueDir, false)) return [];
    return port.readdirSync(queueDir);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return [];
    throw err;
  }
}

function ticketNamesIn(port: FsPort, queueDir: string): string[] {
  return namesIn(port, queueDir).filter((name) => TICKET_NAME.test(name)).sort();
}

/** Whether anyone waits in the queue: with nobody there, a claimer tries the lock at once. */
export function hasWaiters(options: LockOptions): boolean {
  return ticketNamesIn(options.port, queueDirOf(options.lockPath)).length > 0;
}

/**
 * Takes a ticket at the tail of the queue, or returns undefined when the
 * queue cannot be used (a read-only or full folder): the caller then polls
 * the lock as a build without the queue would. A linked or foreign queue
 * folder is refused with state_unwritable.
 */
export function takeTicket(options: LockOptions, at: number): Ticket | undefined {
  const { port, lockPath } = options;
  const queueDir = queueDirOf(lockPath);
  ensureOwnDir(port, queueDir);
  const sequence = (ticketsTaken++ & 0xffff).toString(16).padStart(4, '0');
  const name = `${String(Math.max(0, Math.floor(at))).padStart(15, '0')}.${process.pid}.${sequence}${randomHex(2)}`;
  const path = join(queueDir, name);
  // Created in place: a ticket briefly empty is judged live (EMPTY_LOCK_STALE_MS), and its name is never reused.
  let handle: LockHandle | undefined;
  try {
    handle = createInPlace(options, path, at);
  } catch {
    handle = undefined;
  }
  return handle && { name, handle };
}

/** Leaves the queue: deletes our ticket if it is still ours. Never throws. */
export function leaveQueue(port: FsPort, ticket: Ticket): void {
  releaseLock(port, ticket.handle);
}

/** Deletes a dead waiter's ticket and the change it left beside it (waiting-changes.ts). */
function dropDeadTicket(port: FsPort, path: string): void {
  unlinkQuietly(port, path);
  unlinkQuietly(port, changePathOf(path));
}

/**
 * The tickets whose waiting changes a holder may apply (isServableTicket), in
 * queue order. Dead tickets met are deleted with their changes, and
 * so is a change file whose ticket is gone (an answer that came after its
 * waiter gave up: a waiter deletes its change before its ticket). A live
 * ticket that is not servable keeps its place; its waiter applies its
 * change itself.
 */
export function servableTickets(options: LockOptions, at: number): string[] {
  const queueDir = queueDirOf(options.lockPath);
  const names = namesIn(options.port, queueDir);
  const tickets = names.filter((name) => TICKET_NAME.test(name)).sort();
  const ticketSet = new Set(tickets);
  for (const name of names) {
    if (name.endsWith(CHANGE_SUFFIX) && !ticketSet.has(name.slice(0, -CHANGE_SUFFIX.length))) unlinkQuietly(options.port, join(queueDir, name));
  }
  const servable: string[] = [];
  for (const name of tickets) {
    const path = join(queueDir, name);
    let file: LockFile | undefined;
    try {
      file = readLockFile(options.port, path);
    } catch {
      file = undefined;
    }
    if (file === undefined) continue;
    if (isTicketAbandoned(options, file.owner, file, at)) dropDeadTicket(options.port, path);
    else if (file.owner && isServableTicket(options, file.owner, file, at)) servable.push(path);
  }
  return servable;
}

/** The live ticket just ahead of ours, and how many tickets are listed ahead of ours (the dead not yet met included). */
export interface Ahead {
  readonly path: string;
  readonly count: number;
}

/**
 * The live ticket just ahead of ours, or undefined when ours is the first.
 * Dead tickets met on the way are deleted.
 */
export function ticketAhead(options: LockOptions, ticket: Ticket, at: number): Ahead | undefined {
  const { port } = options;
  const queueDir = queueDirOf(options.lockPath);
  const ahead = ticketNamesIn(port, queueDir).filter((name) => name < ticket.name);
  for (let i = ahead.length - 1; i >= 0; i--) {
    const path = join(queueDir, ahead[i]!);
    let file: LockFile | undefined;
    try {
      file = readLockFile(port, path);
    } catch {
      file = undefined; // gone between the listing and the read, or unreadable: judged below by its absence
    }
    if (file === undefined) continue;
    if (!isTicketAbandoned(options, file.owner, file, at)) return { path, count: i + 1 };
    dropDeadTicket(port, path);
  }
  return undefined;
}

/** Watches with node:fs; undefined when the path is gone (or cannot be watched). */
export const watchWithNodeFs: WatchPath = (path, onChange) => {
  try {
    const watcher = watch(path, { persistent: true }, () => onChange());
    watcher.on('error', () => onChange());
    return watcher;
  } catch {
    return undefined;
  }
};

/**
 * Sleeps until the file at `path` (or at `also`, when given) changes or
 * goes, or `ms` pass. Resolves true when woken by a change, false at the
 * end of the time. A path that is already gone (the watch cannot start)
 * wakes at once, and so does `isDone()` true once the watches are armed (a
 * file replaced just before its watch started is not missed); without any
 * watch the sleep is just `ms`.
 */
export function sleepUntilChanged(options: LockOptions, path: string, ms: number, also?: string, isDone?: () => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const watchers: { close(): void }[] = [];
    let isSettled = false;
    const settle = (isChanged: boolean): void => {
      if (isSettled) return;
      isSettled = true;
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      resolve(isChanged);
    };
    const timer = setTimeout(() => settle(false), ms);
    const watchFor = options.watch ?? watchWithNodeFs;
    for (const watched of also === undefined ? [path] : [path, also]) {
      const watcher = watchFor(watched, () => settle(true));
      if (watcher !== undefined) watchers.push(watcher);
      else if (!isPathPresent(options.port, watched)) settle(true);
      if (isSettled) return;
    }
    if (isDone?.()) settle(true);
  });
}

function isPathPresent(port: FsPort, path: string): boolean {
  try {
    return port.statIfExists(path) !== undefined;
  } catch {
    return true; // cannot tell: sleep the whole time rather than spin
  }
}
