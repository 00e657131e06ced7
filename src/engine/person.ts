// The person member: someone at a terminal who speaks through `opencomms say`
// (and reads with `opencomms read`), not through an agent's tools. The
// `person-` prefix of member ids is reserved for it: OPENCOMMS_MEMBER_ID,
// pins and `install --member` refuse it, so inside the engine an id that
// carries it names a person. Every person action needs the person's terminal
// (cli/person) and records it, but nothing proves a person typed it (a program
// of the same OS user can open a terminal of its own), so a person's messages
// are framed as the user's words, unverified (engine/framing).

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
 * Whether an id would pass for the person's in a list or a log: `person`
 * alone, or `person` and a separator, in any letter case, with `_`, `-` and
 * `.` taken as one separator (`Person_root`, `PERSON-x`, `person__root`).
 * Such an id is never an agent's: OPENCOMMS_MEMBER_ID, pins and
 * `install --member` refuse it. A superset of isPersonMemberId.
 */
export function imitatesPersonId(id: unknown): boolean {
  if (typeof id !== 'string') return false;
  const folded = id.trim().toLowerCase().replace(/[-_.]+/g, '-');
  return folded === 'person' || folded.startsWith(PERSON_ID_PREFIX);
}

/** The terminal a person action came from, as the acting process saw it (our addition): recorded to be seen, never proof. */
export interface PersonTerminal {
  /** The controlling terminal's device, e.g. `/dev/pts/3`. */
  tty: string;
  /** The program leading that terminal's session and its pid, e.g. `bash (pid 4242)`; null where it cannot be told. */
  session_leader: string | null;
}

/** One person action as recorded in state.person_actions (engine/person-log). */
export interface PersonAction {
  at: number;
  person_id: string;
  /** `say`, `read`, `pause`, `resume`, `release` (more may come, such as the task board's). */
  action: string;
  /** The channel acted in, or null (a release across channels). */
  channel: string | null;
  /** What it touched, in our words: the message or reservation ids. */
  detail: string;
  terminal: PersonTerminal;
}

const TERMINAL_FIELD_MAX_CHARS = 200;

function isShortString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= TERMINAL_FIELD_MAX_CHARS;
}

/** A recorded terminal read back from disk, or undefined when the value is not one (it is shown, so its shape is checked). */
export function personTerminalOf(value: unknown): PersonTerminal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { tty, session_leader: leader } = value as Record<string, unknown>;
  if (!isShortString(tty) || !(leader === null || isShortString(leader))) return undefined;
  return { tty, session_leader: leader };
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
