// The person member: someone at a terminal who speaks through `opencomms say`
// (and reads with `opencomms read`), not through an agent's tools. The
// `person-` prefix of member ids is reserved for it: OPENCOMMS_MEMBER_ID,
// pins and `install --member` refuse it, so inside the engine an id that
// carries it names a person. Nothing proves a person typed it (an agent could
// run the command outside its host), so a person's messages are framed as
// unverified like any peer text.

/** Every person member id starts with this; no other member may. */
export const PERSON_ID_PREFIX = 'person-';
/** The host label of a person member. */
export const PERSON_HOST = 'person';
/** The role a person joins under when `say` names none. */
export const DEFAULT_PERSON_ROLE = 'person';

const MEMBER_ID_MAX_CHARS = 64;

/** Whether a member id names a person (the reserved prefix, in any letter case). */
export function isPersonMemberId(id: unknown): boolean {
  return typeof id === 'string' && id.toLowerCase().startsWith(PERSON_ID_PREFIX);
}

/**
 * The person member id of an OS user: `person-` and the user name reduced to
 * member-id characters (letters, digits, `_`, `-`; anything else becomes
 * `-`), cut to fit the 64 characters of a member id. A name with nothing
 * left gives `person-user`.
 */
export function personMemberId(userName: string): string {
  const room = MEMBER_ID_MAX_CHARS - PERSON_ID_PREFIX.length;
  const reduced = userName.normalize('NFKD').replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, room).replace(/-+$/, '');
  return `${PERSON_ID_PREFIX}${reduced === '' ? 'user' : reduced}`;
}
