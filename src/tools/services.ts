// What tool handlers need from the rest of the program: the store, the
// pinned identity and the project facts. Everything opens on first use, so
// start-up touches no file.
import { hostname } from 'node:os';
import * as engine from '../engine';
import type { DeliveryOwner, EngineCtx, SessionArchive, State, ToolResult } from '../engine';
import type { ToolCall } from './registry';
import {
  deleteArchive, listArchives, openStore, writeArchive, type Store,
} from '../store';
import { isPidAlive } from '../store/lock';
import { createSpawnDriver, type SpawnDriver } from '../delivery/spawn-driver';
import { findArchive } from './archive-context';
import { identityFromEnv, identityFromPins, type Identity } from './identity';

export interface ToolServicesOptions {
  projectDir: string;
  host: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

/**
 * How long a pull's in-flight mail is held against other processes' sweeps
 * while its reply is written and committed. Long enough for a slow host to
 * read a large reply and for the commit to wait out the lock; a dead owner on
 * this machine is swept at once whatever its lease.
 */
export const PULL_LEASE_MS = 60_000;
/** Tries at the commit or give-back after a pull's reply (a lock timeout is worth another go). */
const SETTLE_TRIES = 3;

/** Mail one pull handed to its reply, still in flight under `owner`. */
export interface PullHandover {
  memberId: string;
  owner: DeliveryOwner;
  ids: string[];
  /** Those of `ids` this process's doorbell had announced: delivered via 'doorbell'. */
  rungIds?: readonly string[];
}

export class ToolServices {
  private openedStore: Store | undefined;
  private identity: Identity | undefined;
  private openedSpawnDriver: SpawnDriver | undefined;
  private readonly machine = hostname();
  /** Whether this process's doorbell announced a message (set once the doorbell runs). */
  isAnnounced: (messageId: string) => boolean = () => false;
  /** Pulls whose reply is on its way and whose mail is not yet committed or given back. */
  private readonly unsettledPulls = new Set<Promise<void>>();

  constructor(readonly options: ToolServicesOptions) {
    this.identity = identityFromEnv(options.env.OPENCOMMS_MEMBER_ID);
  }

  get projectId(): string {
    const raw = this.options.env.OPENCOMMS_PROJECT_ID;
    return raw && raw.trim() !== '' ? raw.trim() : 'local-project';
  }

  get store(): Store {
    this.openedStore ??= openStore({ projectDir: this.options.projectDir });
    return this.openedStore;
  }

  /**
   * The spawn-push driver, made on first use; undefined when this process
   * must not spawn (OPENCOMMS_NO_SPAWN=1).
   */
  get spawnDriver(): SpawnDriver | undefined {
    if (this.options.env.OPENCOMMS_NO_SPAWN === '1') return undefined;
    this.openedSpawnDriver ??= createSpawnDriver({
      store: this.store, projectDir: this.options.projectDir, env: this.options.env, log: this.options.log,
    });
    return this.openedSpawnDriver;
  }

  /** The pinned member id, or the refusal every protected tool answers with. */
  pin(): { memberId: string } | { refusal: ToolResult } {
    // Without OPENCOMMS_MEMBER_ID a pin may be written after start-up, so look
    // again on each call until one is found; then it is fixed for good.
    const identity = this.identity ?? identityFromPins(this.options.projectDir, this.options.host);
    if (identity.kind === 'pinned') {
      this.identity = identity;
      return { memberId: identity.memberId };
    }
    return { refusal: { ok: false, message: identity.problem, data: { reason: 'unpinned' } } };
  }

  /** Runs a locked mutation as the pinned member. */
  async asMember(fn: (state: State, memberId: string, ctx: EngineCtx) => ToolResult): Promise<ToolResult> {
    const pinned = this.pin();
    if ('refusal' in pinned) return pinned.refusal;
    return this.store.mutate((state, ctx) => fn(state, pinned.memberId, ctx));
  }

  /** Runs a lock-free read as the pinned member. */
  readAsMember(fn: (state: State, memberId: string, ctx: EngineCtx) => ToolResult): ToolResult {
    const pinned = this.pin();
    if ('refusal' in pinned) return pinned.refusal;
    return this.store.read((state, ctx) => fn(state, pinned.memberId, ctx));
  }

  /** A protected call: the pin must be a live member of `channel` (or of any channel). */
  authorized(state: State, memberId: string, channel: string | undefined, then: () => ToolResult): ToolResult {
    const auth = engine.authorizeMember(state, memberId, channel);
    return auth.ok ? then() : auth;
  }

  /**
   * Finishes a pull once its reply's fate is known: the mail is committed as
   * delivered when the reply was written, and given back to pending (the
   * handover undone) when it was cancelled or could not be written. If this
   * process dies first, the mail stays in flight under a dead pid and the next
   * drainer sweeps it back (PROTOCOL 7.1).
   */
  settleAfterReply(call: ToolCall, handover: PullHandover): void {
    let markSettled: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => {
      markSettled = resolve;
    });
    this.unsettledPulls.add(settled);
    call.afterReply(async (fate) => {
      try {
        await this.settlePull(handover, fate === 'sent');
      } finally {
        this.unsettledPulls.delete(settled);
        markSettled();
      }
    });
  }

  /**
   * Resolves once every pull already settling has finished, so a call made
   * after a pull's reply sees its mail delivered (or back in the queue).
   * Only pulls registered before this call are awaited: those came earlier in
   * the reply order, so waiting on them can never wait on this call's own reply.
   */
  whenPullsSettled(): Promise<void> {
    if (this.unsettledPulls.size === 0) return Promise.resolve();
    return Promise.all([...this.unsettledPulls]).then(() => undefined);
  }

  private async settlePull(handover: PullHandover, wasSent: boolean): Promise<void> {
    const { memberId, owner, ids } = handover;
    const rung = new Set(handover.rungIds ?? []);
    for (let tryNo = 1; ; tryNo += 1) {
      try {
        await this.store.mutate((state, ctx) => {
          if (wasSent) {
            engine.commitDelivery(state, memberId, ids.filter((id) => rung.has(id)), 'pull', ctx.now(), owner, 'doorbell');
            engine.commitDelivery(state, memberId, ids.filter((id) => !rung.has(id)), 'pull', ctx.now(), owner);
          }
          else engine.returnUnsentDelivery(state, memberId, ids, owner);
          return { ok: true, message: wasSent ? 'committed' : 'given back' };
        });
        return;
      } catch (err) {
        // Residual risk: a commit that never lands leaves the mail in flight
        // until the lease ends; the sweep then delivers it again (at least once).
        this.options.log(`pull of ${ids.length} message(s): could not ${wasSent ? 'commit' : 'give back'} (try ${tryNo}): ${err instanceof Error ? err.message : String(err)}`);
        if (tryNo >= SETTLE_TRIES) return;
      }
    }
  }

  /** Returns abandoned in-flight mail (dead owner, lease over) to pending, under the lock. */
  async sweepAbandoned(): Promise<void> {
    await this.store.mutate((state, ctx) => {
      const outcome = engine.sweepInFlight(state, this.isOwnerAlive, ctx.now());
      return { ok: true, message: `${outcome.requeued.length} message(s) recovered` };
    });
  }

  deliveryOwner(now: number): DeliveryOwner {
    return { pid: process.pid, host: this.machine, lease_until: now + PULL_LEASE_MS };
  }

  /** Another process's delivery is alive when its pid runs on this machine; elsewhere only its lease counts. */
  isOwnerAlive = (owner: DeliveryOwner): boolean => (owner.host === this.machine ? isPidAlive(owner.pid) : true);

  /** An archive by channel name (newest first) or by archive id; undefined when none matches. */
  findArchive(nameOrId: string): SessionArchive | undefined {
    return findArchive(this.options.projectDir, nameOrId);
  }

  archivesOf(memberId: string): SessionArchive[] {
    return listArchives(this.options.projectDir)
      .map((record) => engine.parseArchive(record))
      .filter((a): a is SessionArchive => a !== undefined && a.members.some((m) => m.session_id === memberId));
  }

  writeArchive(archive: SessionArchive): void {
    writeArchive(this.options.projectDir, archive);
  }

  deleteArchive(channelId: string): boolean {
    return deleteArchive(this.options.projectDir, channelId);
  }
}
