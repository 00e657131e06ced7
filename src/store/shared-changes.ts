// Group commit of shared changes (PROTOCOL 4.5, "Group commit"). A waiter whose
// change is one any holder can apply (a send) leaves it beside its ticket in
// the queue, as `<ticket>.change`. Whoever holds the lock, once its own
// change is done, applies every shared change waiting in the queue that a
// live waiter of this boot left as a member it speaks for (lock-queue
// servableTickets, store serveWaiting), in ticket order, and commits them
// all with its own in one save; before it
// lets go of the lock it answers each in place: the file then holds the
// result, and its waiter wakes on the change and returns that result without
// ever taking the lock. A waiter that gets the lock first takes its change
// back and applies it itself.
//
// A shared change draws its ids from a seed of its own, so a change that a
// holder committed but did not answer (it died in between) is known by its
// first message id, in the state or in the history, and is never applied
// twice.
import type { EngineCtx, State, ToolResult } from '../engine/types';
import { sha256Hex } from '../process/crypto';
import { tryReadFile } from './file-read';
import { FsPort, unlinkQuietly, writeAll } from './fs-port';
import { openOwnFile } from './own-files';
import { writeUnsynced } from './side-files';

/** A change a holder may apply for a waiter: what it is, and the member it speaks for (the waiter's, from its host). */
export interface SharedChange {
  kind: 'send';
  member: string;
  /** The tool's arguments, as JSON: the applier checks them as it would its own. */
  args: Record<string, unknown>;
}

/** Applies a shared change to the state, as the tool that made it would. */
export type SharedApplier = (state: State, change: SharedChange, ctx: EngineCtx) => ToolResult;

/** A shared change as it waits in the queue. */
export interface Proposal {
  /** 32 hex: the seed of the change's ids. */
  seed: string;
  change: SharedChange;
}

/** What a `.change` file holds now. */
export type ChangeFile = { kind: 'waiting'; proposal: Proposal } | { kind: 'answered'; result: ToolResult };

/** A holder applies at most this many shared changes in one commit. */
export const MAX_SHARED_PER_COMMIT = 64;

const WAITING = 'opencomms-change 1\n';
const ANSWERED = 'opencomms-result 1\n';
const SEED = /^[0-9a-f]{32}$/;

/** How a ticket's change file is named: the ticket's name and this. */
export const CHANGE_SUFFIX = '.change';

/** The `.change` file beside a ticket. */
export function changePathOf(ticketPath: string): string {
  return ticketPath + CHANGE_SUFFIX;
}

/** Leaves `proposal` beside a ticket (a fresh file, 0600). Throws on any file error: the caller then waits without it. */
export function leaveProposal(port: FsPort, path: string, proposal: Proposal): void {
  const fd = openOwnFile(port, path, 'create');
  try {
    writeAll(port, fd, Buffer.from(WAITING + JSON.stringify(proposal), 'utf8'));
  } finally {
    port.closeSync(fd);
  }
}

function isSharedChange(value: unknown): value is SharedChange {
  const change = value as Partial<SharedChange> | null;
  return typeof change === 'object' && change !== null && change.kind === 'send' && typeof change.member === 'string'
    && typeof change.args === 'object' && change.args !== null && !Array.isArray(change.args);
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
      const result = JSON.parse(text.slice(ANSWERED.length)) as ToolResult;
      return typeof result === 'object' && result !== null && typeof result.ok === 'boolean' && typeof result.message === 'string'
        ? { kind: 'answered', result } : undefined;
    }
    if (text.startsWith(WAITING)) {
      const proposal = JSON.parse(text.slice(WAITING.length)) as Partial<Proposal>;
      return typeof proposal.seed === 'string' && SEED.test(proposal.seed) && isSharedChange(proposal.change)
        ? { kind: 'waiting', proposal: { seed: proposal.seed, change: proposal.change } } : undefined;
    }
  } catch {
    // half a file (a writer died mid-write) or not JSON: not a change of ours
  }
  return undefined;
}

/**
 * Answers a waiting change in place: the result goes to a temp file renamed
 * over the `.change` file, so its waiter reads the change or the result,
 * never half of one.
 */
export function answerChange(port: FsPort, path: string, result: ToolResult): void {
  writeUnsynced(port, path, ANSWERED + JSON.stringify(result));
}

/** Deletes a `.change` file; never throws. */
export function dropChange(port: FsPort, path: string): void {
  unlinkQuietly(port, path);
}

/** The waiting changes beside the given tickets (in queue order), at most `limit`, each with the process that waits there. */
export function waitingChanges<W>(port: FsPort, tickets: readonly { path: string; waiter: W }[], limit: number): { path: string; proposal: Proposal; waiter: W }[] {
  const found: { path: string; proposal: Proposal; waiter: W }[] = [];
  for (const ticket of tickets) {
    if (found.length >= limit) break;
    const path = changePathOf(ticket.path);
    const file = readChangeFile(port, path);
    if (file?.kind === 'waiting') found.push({ path, proposal: file.proposal, waiter: ticket.waiter });
  }
  return found;
}

/** The engine context a shared change runs with: ids drawn from its seed, in order, one counter per kind. */
export function seededCtx(ctx: EngineCtx, seed: string): EngineCtx {
  const counts = new Map<string, number>();
  return {
    ...ctx,
    newId: (prefix) => {
      const n = counts.get(prefix) ?? 0;
      counts.set(prefix, n + 1);
      return prefix + seededHex(seed, prefix, n);
    },
  };
}

function seededHex(seed: string, prefix: string, n: number): string {
  return sha256Hex(`${seed}/${prefix}/${n}`).slice(0, 32);
}

/**
 * Applies a shared change once: when its first message is already in the
 * state or the channel's history (a holder committed it and died before it
 * answered), it is not applied again, and the answer says so.
 */
export function applyOnce(state: State, proposal: Proposal, ctx: EngineCtx, apply: SharedApplier): ToolResult {
  const firstId = `ocm_${seededHex(proposal.seed, 'ocm_', 0)}`;
  const envelope = state.messages[firstId];
  const channelName = proposal.change.args.channel;
  const channelId = envelope?.channel_id ?? (typeof channelName === 'string' ? Object.values(state.channels).find((c) => c.name === channelName)?.id : undefined);
  if (envelope !== undefined || (channelId !== undefined && ctx.history.find(channelId, firstId) !== undefined)) {
    return {
      ok: true,
      message: 'Message queued earlier: the process that committed it stopped before it could answer, so it was not sent again.',
      data: { message_ids: [firstId], delivery_status: envelope?.delivery_status ?? 'delivered' },
    };
  }
  return apply(state, proposal.change, seededCtx(ctx, proposal.seed));
}
