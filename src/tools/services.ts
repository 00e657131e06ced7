// What tool handlers need from the rest of the program: the store, the
// project facts, and the two halves a call goes through: who the caller is
// and what it may do as that member (`identities`, identity-keeper.ts), and
// what happens to a pull's mail after the reply is sent (`pulls`,
// pull-settler.ts). Everything opens on first use, so start-up touches no file.
import { processHostTag } from '../process/place';
import * as engine from '../engine';
import type { SessionArchive } from '../engine';
import { openStore, type Store, type StoreSelection } from '../store';
import { createSpawnDriver, type SpawnDriver } from '../delivery/spawn-driver';
import { hostDoorFor } from '../delivery/host-door';
import { archivedMessagesIn, findArchiveIn } from './archive-context';
import { PresenceKeeper } from './presence-keeper';
import { IdentityKeeper, type EmbeddingHost } from './identity-keeper';
import { PullSettler } from './pull-settler';

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

export class ToolServices {
  private openedStore: Store | undefined;
  private openedSpawnDriver: SpawnDriver | undefined;
  /** This process's machine (hostname, boot id, pid namespace): where its pids and host sessions live. */
  readonly machine = processHostTag();
  readonly presence: PresenceKeeper; // this process on the presence record of each member it speaks for
  /** Whether this process's doorbell announced a message (set once the doorbell runs). */
  isAnnounced: (messageId: string) => boolean = () => false;
  /** Who a call speaks for, and acting as that member (changeAsMember, readInChannel). */
  readonly identities: IdentityKeeper;
  /** Settling a pull's mail after its reply, and the sweep of abandoned mail. */
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
