// One member per agent session. A process learns which host session it
// serves (the host's session id, or its host process when a host gives
// none) and this table maps that to a member id minted for it. The host's
// ids are only ever looked up here: they never route mail, and no tool
// argument names one.
import { clearStale } from './identity';
import { isValidHostLabel, ownValue } from './validate';
import type { EngineCtx, State } from './types';

/** How a key names a session: the host's session id, or the host process (pid and start time). */
export type SessionKeyKind = 'sid' | 'proc';

/** A host session as a process knows it. */
export interface SessionRef {
  kind: SessionKeyKind;
  host: string;
  id: string;
}

/** Links whose member is in no channel are forgotten after this long unseen. */
export const UNUSED_LINK_MS = 30 * 24 * 3600_000;
/** The table never holds more links than this; the least recently seen go first. */
export const MAX_SESSION_LINKS = 2000;
/** last_seen is rewritten at most this often per link, so a busy session does not rewrite state for it. */
export const LAST_SEEN_STEP_MS = 60_000;
/** Longest host session id or process id accepted (ids are opaque; anything longer is not a session). */
export const MAX_SESSION_ID_CHARS = 200;

const PRINTABLE_ID = /^[\x21-\x7e]+$/;

/**
 * The table key of a session, `<kind>@<host>:<id>`, or undefined when the id
 * is not a plausible one (empty, too long, not printable) or the host is no
 * valid label. The host is part of the key, so one host's id can never find
 * the member of another host's session that happens to use the same id (a
 * server of another host that inherited CLAUDE_CODE_SESSION_ID, a Codex
 * `_meta.threadId` chosen to match a Claude Code session).
 */
export function sessionKey(ref: SessionRef): string | undefined {
  const id = ref.id.trim();
  if (id === '' || id.length > MAX_SESSION_ID_CHARS || !PRINTABLE_ID.test(id) || !isValidHostLabel(ref.host)) return undefined;
  return `${ref.kind}@${ref.host}:${id}`;
}

const OLD_KEY = /^(sid|proc):(.+)$/s;

/**
 * The key of a link written before links were keyed by host (`sid:<id>`,
 * `proc:<id>`): the same session under the host its link names (the host
 * of the process that linked it). Undefined for a key that is no old one.
 */
export function upgradedLinkKey(key: string, host: string): string | undefined {
  const old = OLD_KEY.exec(key);
  if (!old) return undefined;
  return sessionKey({ kind: old[1] as SessionKeyKind, host, id: old[2]! });
}

/**
 * The refs that decide who a session is: its host session ids when it has
 * any, else its host process; the host process never decides for a session
 * that has an id of its own, since one host process may run several sessions
 * (Codex threads, a cleared conversation), and a new one must not inherit
 * the member of another.
 */
function decidingRefs<T extends SessionRef>(refs: readonly T[]): T[] {
  const ids = refs.filter((ref) => ref.kind === 'sid');
  return ids.length > 0 ? ids : [...refs];
}

/** The member these session refs are linked to (see decidingRefs), first match in the order given; undefined when none is. */
export function findLinkedMember(state: State, refs: readonly SessionRef[]): string | undefined {
  const links = state.session_links;
  if (!links) return undefined;
  for (const ref of decidingRefs(refs)) {
    const key = sessionKey(ref);
    const link = key === undefined ? undefined : ownValue(links, key);
    if (link) return link.member_id;
  }
  return undefined;
}

/** What linkSession decided. */
export interface LinkOutcome {
  memberId: string;
  /** minted: a fresh member; adopted: an old install's pin; linked: the session already had one. */
  how: 'minted' | 'adopted' | 'linked';
}

/**
 * The member of the session these refs name, linked under every ref so the
 * session's other processes (its server, its hooks, its plugin) find it too.
 * The first deciding ref that is already linked decides (decidingRefs); a
 * host session id, once linked, is never moved to another member, while a
 * host process follows the newest session it ran. Without any link, the pin
 * of an older install that no session has taken yet is adopted when it is the
 * only such pin in `adoptable` (the caller leaves out pins another live
 * process speaks as); otherwise a fresh member is minted. Coming back clears
 * the member's away mark.
 */
export function linkSession(
  state: State,
  refs: readonly SessionRef[],
  adoptable: readonly string[],
  ctx: EngineCtx,
): LinkOutcome | undefined {
  const keyed = refs.map((ref) => ({ ref, key: sessionKey(ref) })).filter((k): k is { ref: SessionRef; key: string } => k.key !== undefined);
  if (keyed.length === 0) return undefined;
  const now = ctx.now();
  const links = (state.session_links ??= {});
  const deciding = keyed.some((k) => k.ref.kind === 'sid') ? keyed.filter((k) => k.ref.kind === 'sid') : keyed;
  const found = deciding.map((k) => ownValue(links, k.key)).find((link) => link !== undefined);
  let outcome: LinkOutcome;
  if (found) {
    outcome = { memberId: found.member_id, how: 'linked' };
  } else {
    const taken = new Set(Object.values(links).map((link) => link.member_id));
    // Several unclaimed pins are never guessed between: which one this
    // session was meant to be is not known, and a wrong guess reads another
    // member's mail. A fresh member is minted; doctor lists the pins.
    const unclaimed = adoptable.filter((id) => !taken.has(id));
    const pin = unclaimed.length === 1 ? unclaimed[0] : undefined;
    outcome = pin !== undefined ? { memberId: pin, how: 'adopted' } : { memberId: ctx.newId('sess_'), how: 'minted' };
  }
  for (const { ref, key } of keyed) {
    const link = ownValue(links, key);
    if (link && link.member_id !== outcome.memberId && ref.kind === 'sid') continue;
    if (link && link.member_id === outcome.memberId) {
      if (now - link.last_seen >= LAST_SEEN_STEP_MS || now < link.last_seen) link.last_seen = now;
      continue;
    }
    links[key] = { member_id: outcome.memberId, host: ref.host, created_at: now, last_seen: now };
  }
  clearStale(state, outcome.memberId);
  pruneLinks(state, now);
  return outcome;
}

/** Whether linkSession would change anything: a ref not yet linked, a last_seen due, or an away mark to clear. */
export function needsLink(state: State, refs: readonly SessionRef[], now: number): boolean {
  const memberId = findLinkedMember(state, refs);
  if (memberId === undefined) return refs.some((ref) => sessionKey(ref) !== undefined);
  const links = state.session_links ?? {};
  for (const ref of refs) {
    const key = sessionKey(ref);
    if (key === undefined) continue;
    const link = ownValue(links, key);
    if (!link) return true;
    if (link.member_id !== memberId) {
      if (ref.kind === 'proc') return true;
      continue;
    }
    if (now - link.last_seen >= LAST_SEEN_STEP_MS || now < link.last_seen) return true;
  }
  return Object.values(state.channels).some((c) => c.members.some((m) => m.session_id === memberId && m.stale));
}

/** When each member was last seen through any of its sessions (epoch ms). */
export function lastSeenByMember(state: State): Map<string, number> {
  const seen = new Map<string, number>();
  for (const link of Object.values(state.session_links ?? {})) {
    const before = seen.get(link.member_id);
    if (before === undefined || link.last_seen > before) seen.set(link.member_id, link.last_seen);
  }
  return seen;
}

/**
 * Forgets links nobody needs: those of members in no channel that were not
 * seen for UNUSED_LINK_MS, then the least recently seen beyond MAX_SESSION_LINKS.
 */
export function pruneLinks(state: State, now: number): void {
  const links = state.session_links;
  if (!links) return;
  const inChannels = new Set<string>();
  for (const channel of Object.values(state.channels)) for (const m of channel.members) inChannels.add(m.session_id);
  for (const [key, link] of Object.entries(links)) {
    if (!inChannels.has(link.member_id) && now - link.last_seen > UNUSED_LINK_MS) delete links[key];
  }
  const keys = Object.keys(links);
  if (keys.length <= MAX_SESSION_LINKS) return;
  keys.sort((a, b) => links[a]!.last_seen - links[b]!.last_seen);
  for (const key of keys.slice(0, keys.length - MAX_SESSION_LINKS)) delete links[key];
}
