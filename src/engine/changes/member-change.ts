// What every change a tool makes for its caller's member starts with: its
// arguments checked again (they may come from a file another process wrote),
// then the member (named in the arguments by the caller, who pinned it from
// its host) authorized where the change needs a live membership.
import type { ChangeTx } from '../archive-types';
import type { EngineCtx, State, ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { authorizeMember } from '../identity';
import { isPersonMemberId } from '../person';
import { malformed, type Refused } from './args';

/** One argument's kind; a trailing `?` lets it be absent or null. */
export type ArgKind = 'text' | 'text?' | 'number' | 'number?' | 'bool' | 'bool?' | 'texts' | 'texts?' | 'object' | 'object?';
export type ArgShape = Readonly<Record<string, ArgKind>>;

function fitsKind(value: unknown, kind: ArgKind): boolean {
  const isOptional = kind.endsWith('?');
  if (value === undefined || value === null) return isOptional;
  switch (kind.replace('?', '')) {
    case 'text': return typeof value === 'string';
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'bool': return typeof value === 'boolean';
    case 'texts': return Array.isArray(value) && value.every((v) => typeof v === 'string');
    default: return typeof value === 'object' && !Array.isArray(value);
  }
}

/** Whether `args` is an object whose named fields are of their kinds (fields not named are the engine's to check). */
export function fitsShape(args: unknown, shape: ArgShape): boolean {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  const loose = args as Record<string, unknown>;
  return Object.entries(shape).every(([key, kind]) => fitsKind(loose[key], kind));
}

/** The arguments of a member's change: the member it speaks for, and the channel it acts in when it names one. */
export interface MemberArgs {
  member: string;
  channel?: string | null;
}

/**
 * Where the member must already be a live member before the change runs:
 * in `channel` (in any channel when the arguments name none), or nowhere
 * (the change joins, creates, resumes, or checks membership itself).
 */
export type MemberScope = 'in_channel' | 'anywhere';

/**
 * A member's change: `shape` names the arguments `fn` relies on; `what`
 * names the change in the refusal of malformed arguments. A person never
 * acts through these changes (a person speaks through the person changes).
 */
export function memberChange<A extends MemberArgs, R extends ToolResult>(
  what: string,
  scope: MemberScope,
  shape: ArgShape,
  fn: (state: State, a: A, ctx: EngineCtx, tx: ChangeTx) => R,
): ChangeFn<A, R | Refused> {
  return (state, a, ctx, tx) => {
    if (!fitsShape(a, { member: 'text', channel: 'text?', ...shape })) return malformed(what);
    if (isPersonMemberId(a.member)) {
      return { ok: false, message: 'The tools cannot act as a person: a person acts with the `opencomms` commands.', data: { reason: 'invalid_argument' } };
    }
    if (scope === 'in_channel') {
      const auth = authorizeMember(state, a.member, a.channel ?? undefined);
      if (!auth.ok) return auth as Refused;
    }
    return fn(state, a, ctx, tx);
  };
}

/** The arguments without the member, for an engine input that names the caller `session_id`. */
export function asCaller<A extends MemberArgs>(a: A): Omit<A, 'member'> & { session_id: string } {
  const { member, ...rest } = a;
  return { ...rest, session_id: member };
}
