// Which member each OpenCode session speaks as. The session id is looked up
// in the project's session links, as every other host's sessions are: a
// session's first tool call links it to a member minted for it (under the
// lock), and every later path (tools, pushes, role reminders, idle and
// deletion) finds that member again. A project used with the old plugin,
// whose members were named after their sessions, keeps them: the session
// named so adopts its old member instead of getting a new one.
import { findLinkedMember, LAST_SEEN_STEP_MS, needsLink, oldPluginMember, sessionKey, type EngineCtx, type State } from '../engine';
import type { Store } from '../store';
import { OPENCODE_HOST_ID, sessionRefOf } from './identity';

export { isInChannels } from '../engine';

/** The member of a session as `state` says: its link, else the old plugin's member named after it. */
export function memberInState(state: State, sessionId: string): string | undefined {
  return findLinkedMember(state, [sessionRefOf(sessionId)]) ?? oldPluginMember(state, sessionId);
}

export class SessionMembers {
  /** Members found per session. A session's link never moves to another member, so this is never wrong, only incomplete. */
  private readonly known = new Map<string, string>();
  /** When each session's link was last confirmed under needsLink, for tool calls. */
  private readonly checkedAt = new Map<string, number>();

  constructor(private readonly store: Store, private readonly now: () => number = Date.now) {}

  /** The member already found for this session; no file is read. */
  cached(sessionId: string): string | undefined {
    return this.known.get(sessionId);
  }

  /** The member of a session, from what was found or else a lock-free read (on Redis, of the last load); nothing is written. */
  find(sessionId: string): string | undefined {
    return this.known.get(sessionId) ?? this.store.read((state) => this.learn(state, sessionId));
  }

  /** Learns a session's member from a state already read; undefined when it has none yet. */
  learn(state: State, sessionId: string): string | undefined {
    const cached = this.known.get(sessionId);
    if (cached !== undefined) return cached;
    const memberId = memberInState(state, sessionId);
    if (memberId !== undefined) this.known.set(sessionId, memberId);
    return memberId;
  }

  /**
   * For a tool call: the session's member, linked under the lock on first
   * use (an old plugin's member adopted, else a fresh one minted) and
   * confirmed again at most once per LAST_SEEN_STEP_MS, which keeps its
   * last_seen current and clears an away mark. Undefined only for an id no
   * session could have (empty, too long, not printable).
   */
  async link(sessionId: string): Promise<string | undefined> {
    if (sessionKey(sessionRefOf(sessionId)) === undefined) return undefined;
    const at = this.checkedAt.get(sessionId);
    const now = this.now();
    const memberId = this.known.get(sessionId);
    if (memberId !== undefined && at !== undefined && now - at < LAST_SEEN_STEP_MS && now >= at) return memberId;
    const linked = await this.refresh(sessionId, true);
    this.checkedAt.set(sessionId, now);
    return linked;
  }

  /**
   * When a session goes idle: the member of a session that has one, seen
   * now and back from away (an old plugin's member is adopted here too, so
   * its mail is pushed without a tool call first). A session that is no
   * member gets none: nothing is minted for a session that never used a tool.
   */
  touch(sessionId: string): Promise<string | undefined> {
    if (sessionKey(sessionRefOf(sessionId)) === undefined) return Promise.resolve(undefined);
    return this.refresh(sessionId, false);
  }

  private async refresh(sessionId: string, mayMint: boolean): Promise<string | undefined> {
    const refs = [sessionRefOf(sessionId)];
    // Lock-free first: most of the time the link is there and nothing is due.
    const look = (state: State, ctx: EngineCtx): { memberId: string | undefined; isDue: boolean } => ({ memberId: memberInState(state, sessionId), isDue: needsLink(state, refs, ctx.now()) });
    const seen = await this.store.readLatest(look);
    let memberId = seen.memberId;
    if (seen.isDue && (mayMint || memberId !== undefined)) {
      // Under the lock: an old plugin's member adopted, else (only when it may) a fresh one minted.
      const linked = await this.store.mutate('push_link_session', { ref: refs[0]!, host: OPENCODE_HOST_ID, may_mint: mayMint });
      memberId = linked.ok ? linked.data.member_id : undefined;
    }
    if (memberId !== undefined) this.known.set(sessionId, memberId);
    return memberId;
  }
}
