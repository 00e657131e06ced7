// Edit reservations: a member says which files it is about to change, so the
// pre-tool hooks can stop another member's conflicting edit at the moment it
// is attempted. A reservation lives in its channel, expires on time, and goes
// when its holder leaves, is kicked or is away.
import { logReservations } from './reservation-log';
import { MAX_RESERVATION_TTL_MINUTES, DEFAULT_RESERVATION_TTL_MINUTES, MAX_RESERVATIONS_PER_CHANNEL } from './constants';
import { normalizePattern, patternsOverlap, type PathProblem } from './globs';
import { refuse, succeed } from './reasons';
import { formatIsoTime } from './times';
import { requireMembership } from './validate';
import { isReservationOver, liveReservations, reservationLapse } from './reservation-lifetime';
import { conflictOf, frameHolderText, lapseText, shownHeldPath, type Conflict } from './reservation-conflicts';
import { JUDGE_BY_LEASE } from './presence';
import type { Channel, EngineCtx, Reservation, State, ToolResult } from './types';

export {
  holderAwaySince, isLiveReservation, liveReservations, pruneReservations,
} from './reservation-lifetime';

export interface ReserveInput {
  channel: string;
  session_id: string;
  paths: readonly string[];
  exclusive?: boolean;
  reason?: string | null;
  ttl_minutes?: number | null;
  /** The project root the paths are relative to (absolute, `/`-separated). */
  project_dir: string;
}

export interface ReleaseInput {
  channel: string;
  session_id: string;
  paths?: readonly string[] | null;
  project_dir: string;
}

/** The one lifetime rule, in words, for the reserve reply and the docs. */
export const RESERVATION_LIFETIME_RULE = 'It holds until then, until released (by you with opencomms_release, or by a person with `opencomms reservations --release`), '
  + 'or until you have been away 10 minutes (no process of your session running), whichever comes first.';

/** A reservation's id: its own, or for a record of an older version one derived from what it holds. */
export function reservationId(channel: Channel, r: Reservation): string {
  if (typeof r.id === 'string' && r.id !== '') return r.id;
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (const ch of `${channel.id}\n${r.member_id}\n${r.path}\n${r.created_at}`) {
    const code = ch.charCodeAt(0);
    h1 = Math.imul(h1 ^ code, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ code, 0x5bd1e995) >>> 0;
  }
  return `rsv_${h1.toString(16).padStart(8, '0')}${h2.toString(16).padStart(8, '0')}`;
}

function problemText(problems: readonly PathProblem[]): string {
  return problems.map((p) => `"${p.path}" ${p.problem}`).join('; ');
}

/** Normalises every path, or the refusal naming each bad one. */
function normalizeAll(paths: readonly string[], projectDir: string): string[] | ToolResult {
  const problems: PathProblem[] = [];
  const patterns: string[] = [];
  for (const raw of paths) {
    const normalized = normalizePattern(raw, projectDir);
    if (typeof normalized === 'string') {
      if (!patterns.includes(normalized)) patterns.push(normalized);
    } else {
      problems.push(normalized);
    }
  }
  if (problems.length > 0) {
    return refuse('invalid_path', `Not reserved: ${problemText(problems)}. Give paths relative to the project root (or absolute inside it), files or globs such as src/**/*.ts.`, { paths: problems });
  }
  return patterns;
}

/**
 * Grants what is free and reports each conflict. A path conflicts with a live
 * reservation of another member that can name the same file, when either of
 * the two is exclusive. The caller's own reservation of the same pattern is
 * renewed in place.
 */
export function reservePaths(state: State, input: ReserveInput, ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const { channel, member } = found;
  if (input.paths.length === 0) return refuse('invalid_path', 'Not reserved: paths is empty. Name at least one file or glob.');
  const patterns = normalizeAll(input.paths, input.project_dir);
  if (!Array.isArray(patterns)) return patterns;
  const now = ctx.now();
  const exclusive = input.exclusive !== false;
  const ttl = Math.min(Math.max(Math.floor(input.ttl_minutes ?? DEFAULT_RESERVATION_TTL_MINUTES), 1), MAX_RESERVATION_TTL_MINUTES);
  const reason = typeof input.reason === 'string' && input.reason.trim() !== '' ? input.reason.replace(/\s+/g, ' ').trim().slice(0, 200) : null;
  const isAlive = ctx.isProcessAlive ?? JUDGE_BY_LEASE;
  const live = liveReservations(state, channel, now, isAlive);
  const granted: Reservation[] = [];
  const conflicts: Conflict[] = [];
  for (const path of patterns) {
    const blocking = live.filter((r) => r.member_id !== member.session_id && (exclusive || r.exclusive) && patternsOverlap(path, r.path));
    if (blocking.length > 0) {
      conflicts.push(...blocking.map((r) => conflictOf(path, channel, r, reservationLapse(state, r, now, isAlive))));
      continue;
    }
    granted.push({
      id: ctx.newId('rsv_'), path, member_id: member.session_id, role: member.role, exclusive, reason, created_at: now, expires_at: now + ttl * 60_000,
    });
  }
  const kept = live.filter((r) => !(r.member_id === member.session_id && granted.some((g) => g.path === r.path)));
  if (kept.length + granted.length > MAX_RESERVATIONS_PER_CHANNEL) {
    return refuse('too_many_reservations', `Channel "${channel.name}" would hold more than ${MAX_RESERVATIONS_PER_CHANNEL} reservations; release some (opencomms_release) or reserve a glob instead of many files.`);
  }
  channel.reservations = [...kept, ...granted];
  if (channel.reservations.length === 0) delete channel.reservations;
  logReservations(channel, 'taken', member.session_id, granted.length, now);
  const until = formatIsoTime(now + ttl * 60_000);
  const parts: string[] = [];
  if (granted.length > 0) parts.push(`Reserved ${granted.map((g) => g.path).join(', ')} (${exclusive ? 'exclusive' : 'shared'}) until ${until}. ${RESERVATION_LIFETIME_RULE}`);
  const framed = conflicts.map((c) => frameHolderText(c, ctx.nonce()));
  conflicts.forEach((c, i) => {
    parts.push(`Not reserved: ${c.path} overlaps ${shownHeldPath(c)}, held ${c.exclusive ? 'exclusively' : 'shared'} by ${c.role} (${c.holder})`
      + ` ${lapseText(c)}${framed[i] === undefined ? '' : ' (their words are in the peer data below)'}; ask them with opencomms_send.`);
  });
  const blocks = framed.filter((f): f is string => f !== undefined);
  const message = [parts.join(' '), ...blocks].join('\n');
  const data = {
    granted: granted.map((g) => ({ id: g.id, path: g.path, exclusive: g.exclusive, expires_at: g.expires_at })),
    lifetime: RESERVATION_LIFETIME_RULE,
    // The reason as the model reads it: framed, as in the message.
    conflicts: conflicts.map((c, i) => ({ ...c, reason: c.reason === null ? null : framed[i]! })),
  };
  if (granted.length === 0) return refuse('reservation_conflict', message, data);
  return succeed(message, data);
}

/** Gives back the caller's reservations: those of the given paths, or all in the channel. */
export function releasePaths(state: State, input: ReleaseInput, ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const { channel, member } = found;
  let wanted: string[] | undefined;
  if (input.paths !== undefined && input.paths !== null) {
    const patterns = normalizeAll(input.paths, input.project_dir);
    if (!Array.isArray(patterns)) return patterns;
    wanted = patterns;
  }
  const mine = (channel.reservations ?? []).filter((r) => r.member_id === member.session_id && (wanted === undefined || wanted.includes(r.path)));
  channel.reservations = (channel.reservations ?? []).filter((r) => !mine.includes(r));
  if (channel.reservations.length === 0) delete channel.reservations;
  const live = mine.filter((r) => !isReservationOver(r, ctx.now()));
  const released = mine.map((r) => r.path);
  const notHeld = (wanted ?? []).filter((p) => !released.includes(p));
  const message = released.length === 0
    ? `You held no reservation${wanted ? ` of ${wanted.join(', ')}` : ''} in "${channel.name}".`
    : `Released ${released.join(', ')}.${notHeld.length > 0 ? ` You held no reservation of ${notHeld.join(', ')}.` : ''}`;
  return succeed(message, { released, live_released: live.length, not_held: notHeld });
}
