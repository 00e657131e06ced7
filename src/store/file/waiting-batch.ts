// The holder's side of waiting changes (waiting-changes.ts): what it finds in
// the queue at its load, applying those changes through the engine's table
// in the state its own change is in, answering them in advance for its
// rewrite, and answering them once the rewrite is durable.
import type { ChangeTx } from '../../engine/archive-types';
import { knownChange } from '../change-call';
import type { EngineCtx, State, ToolResult } from '../../engine/types';
import { randomHex } from '../../process/crypto';
import type { FsPort } from '../../files/fs-port';
import { answerChange, FoundChange, prepareAnswer, seededCtx, waitingChanges, type WaitingChange } from './waiting-changes';

/** A waiting change applied in this run, with its answer. */
export interface Applied {
  path: string;
  change: WaitingChange;
  result: ToolResult;
}

/** A change's file and the answer it gets. */
export interface Answer {
  path: string;
  result: ToolResult;
}

/** Thrown when a waiting change threw as the holder applied it: the run is done again without it, and its waiter applies it itself. */
export class ServingFailed extends Error {
  constructor(readonly path: string) {
    super(`the waiting change at ${path} could not be applied here`);
  }
}

/**
 * Thrown when a waiting change was refused: whatever it did to the state is
 * dropped by running again without it, and its waiter gets the refusal.
 */
export class ServingRefused extends Error {
  constructor(readonly path: string, readonly result: ToolResult) {
    super(`the waiting change at ${path} was refused`);
  }
}

/** What a holder found in the queue at its load. */
export interface Gathered {
  /** Changes still to apply: waiting ones, and ones prepared for a rewrite that never happened. */
  toApply: FoundChange[];
  /** Answers prepared for the rewrite this load read: those changes are in the state; they only need their answer. */
  committed: Answer[];
}

/** Sorts the changes beside the live tickets by what they need, for a holder that loaded the state saved as `loadedCommit`. */
export function gatherWaiting(port: FsPort, ticketPaths: readonly string[], loadedCommit: string | undefined, limit: number): Gathered {
  const gathered: Gathered = { toApply: [], committed: [] };
  for (const found of waitingChanges(port, ticketPaths, limit)) {
    if (found.file.kind === 'prepared' && loadedCommit !== undefined && found.file.commit === loadedCommit) {
      gathered.committed.push({ path: found.path, result: found.file.result });
    } else {
      gathered.toApply.push(found);
    }
  }
  return gathered;
}

/**
 * Applies waiting changes to `state` in queue order, each as the engine
 * change its file names, with its own ids and time, whoever's it is: the
 * waiter is a live process of this user on this machine (servableTickets), and
 * could as well apply it itself. A change this build does not know is left to
 * its waiter.
 */
export function applyWaiting(state: State, found: readonly FoundChange[], ctx: EngineCtx, tx: ChangeTx): Applied[] {
  const applied: Applied[] = [];
  for (const { path, file } of found) {
    const { change } = file;
    const apply = knownChange(change.op);
    if (apply === undefined) continue;
    let result: ToolResult;
    try {
      result = apply(state, change.args, seededCtx(ctx, change), tx);
    } catch {
      throw new ServingFailed(path);
    }
    if (!result.ok) throw new ServingRefused(path, result);
    applied.push({ path, change, result });
  }
  return applied;
}

/** Answers each applied change in advance, for the rewrite named `commit`; a change whose answer cannot be written is run again without (ServingFailed). */
export function prepareAll(port: FsPort, applied: readonly Applied[], commit: string): void {
  for (const { path, change, result } of applied) {
    try {
      prepareAnswer(port, path, change, commit, result);
    } catch {
      throw new ServingFailed(path);
    }
  }
}

/** Answers changes whose rewrite is durable (or that were refused). Never throws: an unanswered waiter finds its prepared answer when it takes the lock. */
export function answerAll(port: FsPort, answers: readonly Answer[]): void {
  for (const { path, result } of answers) {
    try {
      answerChange(port, path, result);
    } catch {
      // Its waiter takes the lock in turn and reads the prepared answer against state.json's commit.
    }
  }
}

/**
 * A change as data: its arguments as plain JSON (the same whichever process
 * applies it), a fresh seed for its ids, and the time it was asked for.
 */
export function plainChange(op: string, args: unknown, member: string | undefined, at: number): WaitingChange {
  const plain = args === undefined ? undefined : JSON.parse(JSON.stringify(args)) as unknown;
  return member === undefined ? { op, args: plain, seed: randomHex(16), at } : { op, args: plain, member, seed: randomHex(16), at };
}
