// Who a server is, as far as OPENCOMMS_MEMBER_ID says: the part of identity
// the start-up log needs, kept apart so it loads without the store.
import { imitatesPersonId } from '../engine/person';
import { isValidMemberId } from '../local/member-id';

export type Identity =
  | { kind: 'pinned'; memberId: string; source: 'env' | 'pin' | 'session' }
  | { kind: 'unpinned'; problem: string };

export const HOW_TO_PIN = 'Run `opencomms pin --host <host>` (or `opencomms install <host>`) to mint a member id, and put it in OPENCOMMS_MEMBER_ID.';

/** Checks OPENCOMMS_MEMBER_ID; undefined when it is unset or blank. */
export function identityFromEnv(raw: string | undefined): Identity | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const id = raw.trim();
  if (!isValidMemberId(id as unknown)) {
    const shown = id.length > 40 ? `${id.slice(0, 40)}...` : id;
    return {
      kind: 'unpinned',
      problem: `OPENCOMMS_MEMBER_ID ${JSON.stringify(shown)} is not a member id (1-64 letters, digits, _ or -, starting with a letter or digit); placeholders are refused. ${HOW_TO_PIN}`,
    };
  }
  if (imitatesPersonId(id)) {
    return {
      kind: 'unpinned',
      problem: `OPENCOMMS_MEMBER_ID ${JSON.stringify(id)} reads as the person's id ("person" and a separator, in any letter case), which is reserved for a person at a terminal (opencomms say); agents speak through their own members. ${HOW_TO_PIN}`,
    };
  }
  return { kind: 'pinned', memberId: id, source: 'env' };
}

/** One line for the start-up log: who a server with this OPENCOMMS_MEMBER_ID is, or why it is no one. */
export function describeEnvIdentity(raw: string | undefined, host: string): string {
  const identity = identityFromEnv(raw);
  if (!identity) return `identity: the single pin of host "${host}" (looked up on first call)`;
  if (identity.kind === 'pinned') return `identity: member ${identity.memberId} (OPENCOMMS_MEMBER_ID)`;
  return `NO identity, tools will deny: ${identity.problem}`;
}
