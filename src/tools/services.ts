// What tool handlers need from the rest of the program: the store, the
// pinned identity and the project facts. Everything opens on first use, so
// start-up touches no file.
import { processHostTag } from '../process/place';
import * as engine from '../engine';
import type { DeliveryOwner, EngineCtx, SessionArchive, State, ToolResult } from '../engine';
import type { ToolCall } from './registry';
import { openStore, type Store, type StoreSelection } from '../store';
import type { ChangeArgs, ChangeName, ChangeResult } from '../engine/changes/table';
import { createSpawnDriver, type SpawnDriver } from '../delivery/spawn-driver';
import { hostDoorFor } from '../delivery/host-door';
import { archivedMessagesIn, findArchiveIn } from './archive-context';
import { PresenceKeeper } from './presence-keeper';
import type { Identity } from './identity';
import { IdentityKeeper, type Caller, type EmbeddingHost } from './identity-keeper';
import { PullSettler, type PullHandover } from './pull-settler';

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

/** The engine changes a member's call names: their arguments carry the member (engine/changes/member-change.ts). */
export type MemberChangeName = { [K in ChangeName]: ChangeArgs<K> extends { member: string } ? K : never }[ChangeName];
/** What a read runs as the caller's member, once it is a live member of the channel. */
export type MemberRead = (state: State, memberId: string, ctx: EngineCtx) => ToolResult;

export class ToolServices {
  private openedStore: Store | undefined;
  private openedSpawnDriver: SpawnDriver | undefined;
  /** This process's machine (hostname, boot id, pid namespace): where its pids and host sessions live. */
  readonly machine = processHostTag();
  readonly presence: PresenceKeeper; // this process on the presence record of each member it speaks for
  /** Whether this process's doorbell announced a message (set once the doorbell runs). */
  isAnnounced: (messageId: string) => boolean = () => false;
  readonly identities: IdentityKeeper;
  readonly pulls: PullSettler;

  /**
   * The host door this server rings while its session is idle (delivery/host-door):
   * Claude Code's inbox when the host handed us its socket and token, `codex queue` for Codex.
   */
  readonly door: engine.HostDoor | undefined;
  /** What this server's host door last did, for opencomms_status (set once the door runs). */
  doorReport: (() => Record<string, unknown>) | undefined;

  constructor(readonly options: ToolServicesOptions) {
    this.door = options.embedding ? undefined : hostDoorFor(options.host, options.env);
    this.presence = new PresenceKeeper(() => this.store, options.embedding ? 'plugin' : 'server', (line) => options.log(line), this.door);
    this.identities = new IdentityKeeper(options, () => this.store, this.machine);
    this.pulls = new PullSettler(() => this.store, this.machine, (line) => options.log(line));
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

  /** Who a call speaks for (identity-keeper.ts); the caller hands the identity on to whatever acts for the call. */
  identify(call: ToolCall): Promise<Identity> {
    return this.identities.identify(call);
  }

  /** Records this process as the speaker of its OPENCOMMS_MEMBER_ID member (identity-keeper.ts). */
  claimOverride(): Promise<void> {
    return this.identities.claimOverride();
  }

  isSpeakerAlive = (lease: engine.SpeakerLease): boolean => this.identities.isSpeakerAlive(lease);

  /** The host session id this call's member is bound to, for spawn-push; undefined without one. */
  hostSessionOf(call: ToolCall): string | undefined {
    return this.identities.hostSessionOf(call);
  }

  /** The member a caller speaks for, or the refusal every protected tool answers with. */
  pin(caller: Caller): { memberId: string } | { refusal: ToolResult } {
    return this.identities.pin(caller);
  }

  /** The member this process serves, for the doorbell; undefined when there is none yet. */
  processMember(state: State): string | undefined {
    return this.identities.processMember(state);
  }

  /** The latest Codex thread a call came from (`_meta.threadId`): the session `codex queue` rings. */
  get lastThread(): string | undefined {
    return this.identities.lastThread;
  }

  /**
   * Applies the engine change `name` as the caller's member: the member is
   * pinned here, from the caller's host, and named in the arguments (and as
   * the member the change speaks for); the change itself checks that it is a
   * live member where it must be (engine/changes/member-change.ts).
   */
  async changeAsMember<K extends MemberChangeName>(caller: Caller, name: K, args: Omit<ChangeArgs<K>, 'member'>): Promise<ChangeResult<K>> {
    const pinned = this.pin(caller);
    // The refusal has the shape of every change's refusal.
    if ('refusal' in pinned) return pinned.refusal as ChangeResult<K>;
    const member = pinned.memberId;
    return this.store.mutate(name, { ...args, member } as ChangeArgs<K>, { member });
  }

  /** A lock-free read of the latest state, once the caller's member is a live member of `channel`. */
  async readInChannel(caller: Caller, channel: string, reader: MemberRead): Promise<ToolResult> {
    const pinned = this.pin(caller);
    if ('refusal' in pinned) return pinned.refusal;
    return this.store.readLatest((state, ctx) => {
      const auth = engine.authorizeMember(state, pinned.memberId, channel);
      return auth.ok ? reader(state, pinned.memberId, ctx) : auth;
    });
  }

  /** Commits a pull's mail once its reply is written, or gives it back (pull-settler.ts). */
  settleAfterReply(call: ToolCall, handover: PullHandover): void {
    this.pulls.settleAfterReply(call, handover);
  }

  /** Resolves once every pull already settling has finished (pull-settler.ts). */
  whenPullsSettled(): Promise<void> {
    return this.pulls.whenPullsSettled();
  }

  /** Returns abandoned in-flight mail (dead owner, lease over) to pending, under the lock. */
  sweepAbandoned(): Promise<void> {
    return this.pulls.sweepAbandoned();
  }

  deliveryOwner(now: number): DeliveryOwner {
    return this.pulls.deliveryOwner(now);
  }

  isOwnerAlive = (owner: DeliveryOwner): boolean => this.pulls.isOwnerAlive(owner);

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
