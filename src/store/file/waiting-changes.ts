// Changes written as data while they wait for the lock (PROTOCOL, "Waiting
// changes"). A change that must wait leaves itself beside its ticket in the
// queue, as `<ticket>.change`: the engine change's name, its arguments, the
// member it speaks for, and the seed of its ids and the time it will use.
// Whoever holds the lock, once its own change is done, applies the changes
// waiting there through the same engine table, in ticket order, and saves
// them all with its own in one rewrite.
//
// Each applied change is answered twice. Before the rewrite, its file is
// replaced by a prepared answer naming the rewrite (`commit`, which the
// rewrite writes into state.json's head); after the rewrite is durable, by
// the answer itself, and its waiter wakes and returns that answer without
// ever taking the lock. A holder that dies in between leaves prepared
// answers: the next holder (or the waiter, once it holds the lock) reads the
// commit in the head. The same commit there means the change is in the
// state, and its prepared answer stands; any other means the rewrite never
// happened (every holder finalises the prepared answers of the commit it
// loaded before it writes its own), and the change is still to apply. So a
// change is applied once, and never answered before it is saved.
import type { EngineCtx, ToolResult } from '../../engine/types';
import { sha256Hex } from '../../process/crypto';
import { tryReadFile } from '../../files/file-read';
import { FsPort, unlinkQuietly, writeAll } from '../../files/fs-port';
import { openOwnFile } from '../../files/own-files';
import { writeUnsynced } from '../../local/side-files';

/** A change as it waits in the queue: plain data any holder can apply. */
export interface WaitingChange {
  /** The engine change's name (engine/changes/table.ts). */
  op: string;
  args: unknown;
  /** The member it speaks for, as its host named it, when it speaks for one: who asked, for whoever reads the queue. */
  member?: string;
  /** 32 hex: the seed of the change's ids. */
  seed: string;
  /** When the change was asked for (ms since the epoch): the earliest time it may be applied with. */
  at: number;
}

/** What a `.change` file holds now. */
export type ChangeFile =
  | { kind: 'waiting'; change: WaitingChange }
  | { kind: 'prepared'; change: WaitingChange; commit: string; result: ToolResult }
  | { kind: 'answered'; result: ToolResult };

/** A holder applies at most this many waiting changes in one rewrite. */
export const MAX_WAITING_PER_COMMIT = 64;

const WAITING = 'opencomms-change 2\n';
const PREPARED = 'opencomms-prepared 2\n';
const ANSWERED = 'opencomms-result 1\n';
const SEED = /^[0-9a-f]{32}$/;
const COMMIT = /^[0-9a-f]{16}$/;

/** How a ticket's change file is named: the ticket's name and this. */
export const CHANGE_SUFFIX = '.change';

/** The `.change` file beside a ticket. */
export function changePathOf(ticketPath: string): string {
  return ticketPath + CHANGE_SUFFIX;
}

/** Leaves `change` beside a ticket (a fresh file, 0600). Throws on any file error: the caller then waits without it. */
export function leaveChange(port: FsPort, path: string, change: WaitingChange): void {
  const fd = openOwnFile(port, path, 'create');
  try {
    writeAll(port, fd, Buffer.from(WAITING + JSON.stringify(change), 'utf8'));
  } finally {
    port.closeSync(fd);
  }
}

function isWaitingChange(value: unknown): value is WaitingChange {
  const change = value as Partial<WaitingChange> | null;
  return typeof change === 'object' && change !== null && typeof change.op === 'string'
    && (change.member === undefined || typeof change.member === 'string')
    && typeof change.seed === 'string' && SEED.test(change.seed) && typeof change.at === 'number' && Number.isFinite(change.at);
}

function isAnswer(value: unknown): value is ToolResult {
  const result = value as Partial<ToolResult> | null;
  return typeof result === 'object' && result !== null && typeof result.ok === 'boolean' && typeof result.message === 'string';
}

/** Reads a `.change` file; undefined when it is gone, unreadable or not one this version wrote. */
export function readChangeFile(port: FsPort, path: string): ChangeFile | undefined {
  let text: string;
  try {
    const bytes = tryReadFile(port, path);
    if (bytes === undefined) return undefined;
    text = bytes.toString('utf8');
  } catch {
    return undefined;
  }
  try {
    if (text.startsWith(ANSWERED)) {
      const result: unknown = JSON.parse(text.slice(ANSWERED.length));
      return isAnswer(result) ? { kind: 'answered', result } : undefined;
    }
    if (text.startsWith(WAITING)) {
      const change: unknown = JSON.parse(text.slice(WAITING.length));
      return isWaitingChange(change) ? { kind: 'waiting', change } : undefined;
    }
    if (text.startsWith(PREPARED)) {
      const { change, commit, result } = JSON.parse(text.slice(PREPARED.length)) as { change?: unknown; commit?: unknown; result?: unknown };
      return isWaitingChange(change) && typeof commit === 'string' && COMMIT.test(commit) && isAnswer(result)
        ? { kind: 'prepared', change, commit, result } : undefined;
    }
  } catch {
    // half a file (a writer died mid-write) or not JSON: not a change of ours
  }
  return undefined;
}

/** Answers a change in advance, for the rewrite named `commit` (a temp file renamed over it: whole or not at all). */
export function prepareAnswer(port: FsPort, path: string, change: WaitingChange, commit: string, result: ToolResult): void {
  writeUnsynced(port, path, PREPARED + JSON.stringify({ change, commit, result }));
}

/** Answers a change in place, once the rewrite that holds it is durable: its waiter wakes on it. */
export function answerChange(port: FsPort, path: string, result: ToolResult): void {
  writeUnsynced(port, path, ANSWERED + JSON.stringify(result));
}

/** Deletes a `.change` file; never throws. */
export function dropChange(port: FsPort, path: string): void {
  unlinkQuietly(port, path);
}

/** A change found beside a live ticket, waiting or prepared. */
export interface FoundChange {
  path: string;
  file: Extract<ChangeFile, { kind: 'waiting' | 'prepared' }>;
}

/** The waiting and prepared changes beside the given tickets (in queue order), at most `limit`. */
export function waitingChanges(port: FsPort, ticketPaths: readonly string[], limit: number): FoundChange[] {
  const found: FoundChange[] = [];
  for (const ticketPath of ticketPaths) {
    if (found.length >= limit) break;
    const path = changePathOf(ticketPath);
    const file = readChangeFile(port, path);
    if (file?.kind === 'waiting' || file?.kind === 'prepared') found.push({ path, file });
  }
  return found;
}

/**
 * The engine context a written change runs with: ids drawn from its seed, in
 * order, one counter per kind; and the applier's clock, never earlier than
 * the change's own time (a state's clocks only move forward).
 */
export function seededCtx(ctx: EngineCtx, change: WaitingChange): EngineCtx {
  const counts = new Map<string, number>();
  return {
    ...ctx,
    now: () => Math.max(change.at, ctx.now()),
    newId: (prefix) => {
      const n = counts.get(prefix) ?? 0;
      counts.set(prefix, n + 1);
      return prefix + sha256Hex(`${change.seed}/${prefix}/${n}`).slice(0, 32);
    },
  };
}
