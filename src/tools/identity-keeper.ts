// Who a tool call speaks for: OPENCOMMS_MEMBER_ID, the member linked to the
// host session the call comes from, or this host's single pin. Identity comes
// from the host and the environment, never from tool arguments. A tool acts
// as that member only through changeAsMember and readInChannel.
import * as engine from '../engine';
import type { EngineCtx, State, ToolResult } from '../engine';
import type { ChangeArgs, ChangeName, ChangeResult } from '../engine/changes/table';
import type { ToolCall } from './registry';
import { type Store } from '../store';
import { listPins, readPin } from '../local/pins';
import { isLeaseAlive } from '../process/liveness';
import { hostProcessId } from './host-process';
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

/** A call and who it speaks for, as identify found it at the start of the call. */
export interface Caller { readonly call: ToolCall; readonly identity: Identity }

/** The engine changes a member's call names: their arguments carry the member (engine/changes/member-change.ts). */
export type MemberChangeName = { [K in ChangeName]: ChangeArgs<K> extends { member: string } ? K : never }[ChangeName];
/** What a read runs as the caller's member, once it is a live member of the channel. */
export type MemberRead = (state: State, memberId: string, ctx: EngineCtx) => ToolResult;

/** What the identity keeper needs from the server it serves. */
export interface IdentityKeeperOptions {
  projectDir: string;
  host: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  embedding?: EmbeddingHost;
}

/** The identities one server process has found, per host session, and its speaker lease. */
export class IdentityKeeper {
  /** OPENCOMMS_MEMBER_ID's verdict, fixed at start; undefined when the variable is unset. */
  private readonly identity: Identity | undefined;
  /** Members found per host session, with when they were last confirmed under the lock. */
  private readonly bySession = new Map<string, { identity: Identity; at: number }>();
  private processIdentity: Identity | undefined;
  private hostProcess: { id: string | undefined } | undefined;
  /** claimOverride's latest look (when it started, and its end), and this process's speaker lease token. */
  private speakerClaim: { at: number; done: Promise<void> } | undefined;
  private speakerToken: string | undefined;
  /** The latest Codex thread a call came from (`_meta.threadId`): the session `codex queue` rings. */
  lastThread: string | undefined;

  constructor(
    private readonly options: IdentityKeeperOptions,
    private readonly store: () => Store,
    /** This process's machine (hostname, boot id, pid namespace): where its pids and host sessions live. */
    private readonly machine: string,
  ) {
    this.identity = options.embedding ? undefined : identityFromEnv(options.env.OPENCOMMS_MEMBER_ID);
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
    // Found, adopted from a pin no live process speaks as, or minted (engine change `host_session_link`).
    const linked = await this.store().mutate('host_session_link', {
      refs: refs.map(({ kind, host, id }) => ({ kind, host, id })), pins, host: this.options.host, host_session: hostSession ?? null,
    });
    const memberId = typeof linked.data?.member_id === 'string' ? linked.data.member_id : undefined;
    const how = linked.data?.how;
    if (linked.ok && memberId !== undefined && how !== undefined && how !== 'linked') this.options.log(`session ${cacheKey.split('\n')[0]}: ${how} member ${memberId}`);
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
      // The lease's token is made by the first claim and kept for every renewal (engine change `speaker_claim`).
      const claimed = await this.store().mutate('speaker_claim', { member_id: memberId, pid: process.pid, host: this.machine, token: this.speakerToken ?? null });
      if (typeof claimed.data?.token === 'string') this.speakerToken ??= claimed.data.token;
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
    return this.store().mutate(name, { ...args, member } as ChangeArgs<K>, { member });
  }

  /** A lock-free read of the latest state, once the caller's member is a live member of `channel`. */
  async readInChannel(caller: Caller, channel: string, reader: MemberRead): Promise<ToolResult> {
    const pinned = this.pin(caller);
    if ('refusal' in pinned) return pinned.refusal;
    return this.store().readLatest((state, ctx) => {
      const auth = engine.authorizeMember(state, pinned.memberId, channel);
      return auth.ok ? reader(state, pinned.memberId, ctx) : auth;
    });
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
}
