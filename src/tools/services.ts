// What tool handlers need from the rest of the program: the store, the
// pinned identity and the project facts. Everything opens on first use, so
// start-up touches no file.
import { processHostTag } from '../process/place';
import * as engine from '../engine';
import type { DeliveryOwner, EngineCtx, SessionArchive, State, ToolResult } from '../engine';
import type { ToolCall } from './registry';
import { listPins, openStore, readPin, type Store, type StoreSelection, type StoreTx } from '../store';
import { isHolderRunning, isLeaseAlive } from '../process/liveness';
import { createSpawnDriver, type SpawnDriver } from '../delivery/spawn-driver';
import { hostDoorFor } from '../delivery/host-door';
import { archivedMessagesIn, findArchiveIn } from './archive-context';
import { hostProcessId } from './host-process';
import { PresenceKeeper } from './presence-keeper';
import { identityFromEnv, identityFromPins, type Identity } from './identity';

/**
 * The one host whose servers take CLAUDE_CODE_SESSION_ID as their session.
 * An allow-list: every server started inside a Claude Code session inherits
 * the variable (a cursor, vscode or goose server run from its terminal), and
 * none of those is that session.
 */
const CLAUDE_CODE_HOST = 'claude-code';

/** How often a server speaking through OPENCOMMS_MEMBER_ID looks at its speaker lease (claimOverride). */
const SPEAKER_CHECK_MS = 60_000;

/** A call with no request behind it: the process's own session only. */
const PROCESS_CALL: ToolCall = { afterReply: () => undefined };

export interface ToolServicesOptions {
  projectDir: string;
  host: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** The store to use; by default the project's own, opened on first use. */
  store?: Store;
  /** Which store to open when `store` is not given (--store / OPENCOMMS_STORE); the project's files by default. */
  selection?: StoreSelection;
  /** Set when the tools run inside a host that knows who calls (the OpenCode plugin). */
  embedding?: EmbeddingHost;
}

/**
 * A host that runs the tools inside its own process and knows which of its
 * sessions makes each call (the OpenCode plugin). It decides alone who a
 * call speaks for: OPENCOMMS_MEMBER_ID, the host process and the pins are
 * not consulted, since one such process serves many sessions.
 */
export interface EmbeddingHost {
  /** The member this call's session is linked to (linked under the lock on first use), or why there is none. */
  identify(call: ToolCall): Promise<Identity>;
  /** How a member that creates or joins a channel through this call is reached (host, surface, delivery). */
  membership(call: ToolCall): engine.MemberOptions;
  /** Stamped on the channels created, joined or resumed through it. */
  readonly projectId: string;
  readonly worktree: string;
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

/** A call and who it speaks for, as identify found it at the start of the call. */
export interface Caller { readonly call: ToolCall; readonly identity: Identity }

/** What a change or a read runs as the caller's member (in a channel: once it is a live member there). */
export type MemberChange = (state: State, memberId: string, ctx: EngineCtx, tx: StoreTx) => ToolResult;
export type MemberRead = (state: State, memberId: string, ctx: EngineCtx) => ToolResult;

export class ToolServices {
  private openedStore: Store | undefined;
  /** OPENCOMMS_MEMBER_ID's verdict, fixed at start; undefined when the variable is unset. */
  private readonly identity: Identity | undefined;
  /** Members found per host session, with when they were last confirmed under the lock. */
  private readonly bySession = new Map<string, { identity: Identity; at: number }>();
  private processIdentity: Identity | undefined;
  private hostProcess: { id: string | undefined } | undefined;
  private openedSpawnDriver: SpawnDriver | undefined;
  /** claimOverride's latest look (when it started, and its end), and this process's speaker lease token. */
  private speakerClaim: { at: number; done: Promise<void> } | undefined;
  private speakerToken: string | undefined;
  /** This process's machine (hostname, boot id, pid namespace): where its pids and host sessions live. */
  readonly machine = processHostTag();
  readonly presence: PresenceKeeper; // this process on the presence record of each member it speaks for
  /** Whether this process's doorbell announced a message (set once the doorbell runs). */
  isAnnounced: (messageId: string) => boolean = () => false;
  /** Pulls whose reply is on its way and whose mail is not yet committed or given back. */
  private readonly unsettledPulls = new Set<Promise<void>>();

  /**
   * The host door this server rings while its session is idle (delivery/host-door):
   * Claude Code's inbox when the host handed us its socket and token, `codex queue` for Codex.
   */
  readonly door: engine.HostDoor | undefined;
  /** The latest Codex thread a call came from (`_meta.threadId`): the session `codex queue` rings. */
  lastThread: string | undefined;
  /** What this server's host door last did, for opencomms_status (set once the door runs). */
  doorReport: (() => Record<string, unknown>) | undefined;

  constructor(readonly options: ToolServicesOptions) {
    this.door = options.embedding ? undefined : hostDoorFor(options.host, options.env);
    this.presence = new PresenceKeeper(() => this.store, options.embedding ? 'plugin' : 'server', (line) => options.log(line), this.door);
    this.identity = options.embedding ? undefined : identityFromEnv(options.env.OPENCOMMS_MEMBER_ID);
  }

  get projectId(): string {
    if (this.options.embedding) return this.options.embedding.projectId;
    const raw = this.options.env.OPENCOMMS_PROJECT_ID;
    return raw && raw.trim() !== '' ? raw.trim() : 'local-project';
  }

  /**
   * The worktree stamped on channels created, joined or resumed here: the
   * project folder; on Redis, whose members sit in different folders on
   * different machines, the Redis project itself.
   */
  get worktree(): string {
    if (this.options.embedding) return this.options.embedding.worktree;
    return this.store.location;
  }

  get store(): Store {
    this.openedStore ??= this.options.store ?? openStore({ projectDir: this.options.projectDir, selection: this.options.selection });
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

  /**
   * Finds who a call speaks for and keeps it: OPENCOMMS_MEMBER_ID when set;
   * else the member linked to the host session the call comes from (Claude
   * Code's CLAUDE_CODE_SESSION_ID, Codex's `_meta.threadId`, and the host
   * process), minted or adopted from an old pin on first sight; else, where
   * no session can be told at all, the single pin of this host. The host's
   * ids are looked up, never used as member ids, and never come from arguments.
   * Inside a host that embeds the tools, the host alone says (EmbeddingHost).
   * The caller hands the identity on to whatever acts for the call.
   */
  async identify(call: ToolCall): Promise<Identity> {
    if (this.options.embedding) return this.options.embedding.identify(call);
    if (this.identity !== undefined) {
      // OPENCOMMS_MEMBER_ID, right or wrong, decides alone.
      await this.claimOverride();
      return this.identity;
    }
    const refs = this.sessionRefs(call);
    if (refs.length === 0) return identityFromPins(this.options.projectDir, this.options.host);
    const cacheKey = refs.map((ref) => `${ref.kind}:${ref.id}`).join('\n');
    const known = this.bySession.get(cacheKey);
    const now = Date.now();
    if (known && now - known.at < engine.LAST_SEEN_STEP_MS && now >= known.at) return known.identity;
    const pins = listPins(this.options.projectDir, this.options.host).map((pin) => pin.member_id);
    const hostSession = refs.find((ref) => ref.kind === 'sid')?.id;
    let memberId: string | undefined;
    await this.store.mutate((state, ctx) => {
      if (!engine.needsLink(state, refs, ctx.now())) {
        memberId = engine.findLinkedMember(state, refs);
        return { ok: false, message: 'already linked' }; // nothing to save
      }
      // A pin another live process speaks as (OPENCOMMS_MEMBER_ID) is claimed, like one a session took.
      const adoptable = pins.filter((id) => !engine.isSpokenFor(state, id, this.isSpeakerAlive));
      const outcome = engine.linkSession(state, refs, adoptable, ctx);
      memberId = outcome?.memberId;
      if (memberId !== undefined && hostSession !== undefined) engine.bindHostSession(state, memberId, this.options.host, hostSession);
      if (outcome && outcome.how !== 'linked') this.options.log(`session ${cacheKey.split('\n')[0]}: ${outcome.how} member ${outcome.memberId}`);
      return { ok: true, message: 'linked' };
    });
    const identity: Identity = memberId === undefined
      ? { kind: 'unpinned', problem: 'This server could not link its host session to a member. Set OPENCOMMS_MEMBER_ID, or run `opencomms doctor`.' }
      : { kind: 'pinned', memberId, source: 'session' };
    this.bySession.set(cacheKey, { identity, at: now });
    if (!refs.some((ref) => ref.kind === 'sid' && ref.fromMeta)) this.processIdentity = identity;
    return identity;
  }

  /**
   * Records this process as the speaker of its OPENCOMMS_MEMBER_ID member
   * when a pin of this project names that member, so no new session adopts
   * the pin while this process lives (engine/speaker-leases). Checked at most
   * once per SPEAKER_CHECK_MS; the lock is written only when the record is
   * missing, held by a dead process, or half way to its end. Trouble is
   * logged, never a refused call: the claim only guards adoption.
   */
  claimOverride(): Promise<void> {
    const identity = this.identity;
    if (identity?.kind !== 'pinned' || this.options.embedding) return Promise.resolve();
    const now = Date.now();
    // Within the step, a claim already under way is waited for, so a call never runs ahead of it.
    if (this.speakerClaim && now - this.speakerClaim.at < SPEAKER_CHECK_MS && now >= this.speakerClaim.at) return this.speakerClaim.done;
    this.speakerClaim = { at: now, done: this.recordSpeaker(identity.memberId) };
    return this.speakerClaim.done;
  }

  private async recordSpeaker(memberId: string): Promise<void> {
    try {
      if (readPin(this.options.projectDir, memberId) === undefined) return;
      await this.store.mutate((state, ctx) => {
        this.speakerToken ??= ctx.nonce();
        const lease = { pid: process.pid, host: this.machine, token: this.speakerToken, until: ctx.now() + engine.SPEAKER_LEASE_MS };
        return engine.claimSpeaker(state, memberId, lease, this.isSpeakerAlive)
          ? { ok: true, message: 'speaker recorded' }
          : { ok: false, message: 'speaker already recorded' }; // nothing to save
      });
    } catch (err) {
      this.options.log(`could not record this process as the speaker of ${memberId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** A speaker lease holds while its process runs on this machine; from elsewhere, until its `until` (one past its lifetime is over). */
  isSpeakerAlive = (lease: engine.SpeakerLease): boolean =>
    isLeaseAlive(lease, Date.now(), this.machine) && engine.isBelievableTime(lease.until, Date.now(), engine.SPEAKER_LEASE_MS);

  /**
   * The host sessions this call comes from, most specific first: Codex's
   * thread (`_meta.threadId`), Claude Code's session (CLAUDE_CODE_SESSION_ID,
   * read only by a server of host claude-code), then the host process.
   */
  private sessionRefs(call: ToolCall): Array<engine.SessionRef & { fromMeta?: boolean }> {
    const host = this.options.host;
    const refs: Array<engine.SessionRef & { fromMeta?: boolean }> = [];
    const thread = call.meta?.threadId;
    if (typeof thread === 'string' && thread.trim() !== '') {
      refs.push({ kind: 'sid', host, id: thread.trim(), fromMeta: true });
      this.lastThread = thread.trim();
    }
    const claudeSession = this.options.env.CLAUDE_CODE_SESSION_ID;
    if (refs.length === 0 && typeof claudeSession === 'string' && claudeSession.trim() !== '' && host === CLAUDE_CODE_HOST) {
      refs.push({ kind: 'sid', host, id: claudeSession.trim() });
    }
    this.hostProcess ??= { id: hostProcessId() };
    if (this.hostProcess.id !== undefined) refs.push({ kind: 'proc', host, id: this.hostProcess.id });
    return refs.filter((ref) => engine.sessionKey(ref) !== undefined);
  }

  /** The host session id this call's member is bound to, for spawn-push; undefined without one. */
  hostSessionOf(call: ToolCall): string | undefined {
    return this.sessionRefs(call).find((ref) => ref.kind === 'sid')?.id;
  }

  /** The member a caller speaks for, or the refusal every protected tool answers with. */
  pin({ identity }: Caller): { memberId: string } | { refusal: ToolResult } {
    if (identity.kind === 'pinned') return { memberId: identity.memberId };
    return { refusal: { ok: false, message: identity.problem, data: { reason: 'unpinned' } } };
  }

  /**
   * The member this process serves, for the doorbell: the override, the
   * member its own session was linked to by a call, or, before any call,
   * the member `state` already links to its session (a resumed session's
   * mail rings at once). Undefined when there is none yet.
   */
  processMember(state: State): string | undefined {
    const identity = this.identity ?? this.processIdentity;
    if (identity !== undefined) return identity.kind === 'pinned' ? identity.memberId : undefined;
    return engine.findLinkedMember(state, this.sessionRefs(PROCESS_CALL));
  }

  /** Runs a locked change as the caller's member. */
  async asMember(caller: Caller, change: MemberChange): Promise<ToolResult> {
    const pinned = this.pin(caller);
    if ('refusal' in pinned) return pinned.refusal;
    return this.store.mutate((state, ctx, tx) => change(state, pinned.memberId, ctx, tx));
  }

  /**
   * A protected change: pins the caller's member (or answers unpinned), opens
   * the locked change, and runs `change` only once that member is a live
   * member of `channel` (of any channel when `channel` is undefined).
   */
  inChannel(caller: Caller, channel: string | undefined, change: MemberChange): Promise<ToolResult> {
    return this.asMember(caller, (state, memberId, ctx, tx) => {
      const auth = engine.authorizeMember(state, memberId, channel);
      return auth.ok ? change(state, memberId, ctx, tx) : auth;
    });
  }

  /** inChannel for a lock-free read of the latest state. */
  async readInChannel(caller: Caller, channel: string, reader: MemberRead): Promise<ToolResult> {
    const pinned = this.pin(caller);
    if ('refusal' in pinned) return pinned.refusal;
    return this.store.readLatest((state, ctx) => {
      const auth = engine.authorizeMember(state, pinned.memberId, channel);
      return auth.ok ? reader(state, pinned.memberId, ctx) : auth;
    });
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
            engine.commitPull(state, memberId, ids, rung, ctx.now(), owner);
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
  isOwnerAlive = (owner: DeliveryOwner): boolean => isHolderRunning(owner, this.machine);

  /** An archive by channel name (newest first) or by archive id; undefined when none matches. */
  async findArchive(nameOrId: string): Promise<SessionArchive | undefined> {
    return findArchiveIn(this.store.archives, nameOrId);
  }

  /** The messages of a channel's saved ancestry, oldest first, for search (archive-context.ts). */
  async archivedMessagesOf(parentId: string | null): Promise<engine.HistoryRecord[]> {
    return archivedMessagesIn(this.store.archives, parentId);
  }

  async archivesOf(memberId: string): Promise<SessionArchive[]> {
    return (await this.store.archives.list())
      .map((record) => engine.parseArchive(record))
      .filter((a): a is SessionArchive => a !== undefined && a.members.some((m) => m.session_id === memberId));
  }
}
