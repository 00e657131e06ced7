// Edit reservations: a member says which files it is about to change, so the
// pre-tool hooks can stop another member's conflicting edit at the moment it
// is attempted. A reservation lives in its channel, expires on time, and goes
// when its holder leaves, is kicked or is away.
import { claimHolds } from './task-board';
import { MAX_RESERVATION_TTL_MINUTES, DEFAULT_RESERVATION_TTL_MINUTES, MAX_RESERVATIONS_PER_CHANNEL, HOLDER_AWAY_GRACE_MS } from './constants';
import { framePeerText } from './framing';
import { normalizePattern, patternsOverlap, type PathProblem } from './globs';
import { refuse, succeed } from './reasons';
import { formatIsoTime } from './times';
import { requireMembership } from './validate';
import { isReservationOver, liveReservations, reservationLapse, type ReservationLapse } from './reservation-lifetime';
import { JUDGE_BY_LEASE, presenceOf } from './presence';
import type { Channel, EngineCtx, ProcessCheck, Reservation, State, ToolResult } from './types';

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

/** One conflict as the tool and the hooks report it. */
export interface Conflict {
  path: string;
  /** The channel the reservation lives in: where to ask its holder. */
  channel: string;
  held_path: string;
  holder: string;
  role: string;
  exclusive: boolean;
  reason: string | null;
  expires_at: number;
  /** Since when its holder is away (null while present), and when it lapses by time alone (reservation-lifetime). */
  holder_away_since: ReservationLapse['holder_away_since'];
  lapses_at: number;
  /** Set when the hold is a claimed task's paths (INTERFACE section 8): the task's id. Such a hold has no expiry of its own. */
  task?: string;
}

function conflictOf(path: string, channel: Channel, r: Reservation, lapse: ReservationLapse): Conflict {
  return {
    path, channel: channel.name, held_path: r.path, holder: r.member_id, role: r.role, exclusive: r.exclusive, reason: r.reason, expires_at: r.expires_at,
    ...lapse,
  };
}

/** Until when a conflict holds, and for an away holder since when (the lapse being 10 minutes later unless it comes back). */
function lapseText(c: Conflict): string {
  const until = `until ${formatIsoTime(c.lapses_at)}`;
  if (c.holder_away_since === null) return until;
  return `${until} (its holder is away since ${formatIsoTime(c.holder_away_since)}; it lapses 10 minutes after that unless the holder comes back`
    + `${c.lapses_at < c.expires_at ? `, else at its expiry ${formatIsoTime(c.expires_at)}` : ''})`;
}

// A holder's reason is peer text, and so is the glob it reserved: our own
// sentences name the glob only when it reads as a path (no space, quote or
// other character a sentence needs); otherwise it goes into the frame too.
const PLAIN_PATTERN = /^[A-Za-z0-9._/*?@+=,~%#-]+$/;

function shownHeldPath(c: Pick<Conflict, 'held_path'>): string {
  return PLAIN_PATTERN.test(c.held_path) ? c.held_path : 'a pattern shown in the peer data below';
}

/**
 * What the holder wrote about a conflicting reservation (its reason, and its
 * glob when that is not plain) framed as peer data with a fresh nonce, or
 * undefined when it wrote nothing that needs a frame.
 */
export function frameHolderText(c: Pick<Conflict, 'held_path' | 'holder' | 'role' | 'reason'>, nonce: string): string | undefined {
  const isPlain = PLAIN_PATTERN.test(c.held_path);
  if (c.reason === null && isPlain) return undefined;
  const what = isPlain ? `the reason ${c.role} gave for reserving ${c.held_path}` : `the pattern ${c.role} reserved${c.reason === null ? '' : ', and its reason'}`;
  const content = isPlain ? c.reason! : [`pattern: ${c.held_path}`, ...(c.reason === null ? [] : [`reason: ${c.reason}`])].join('\n');
  return framePeerText(what, c.holder, content, nonce);
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

/** What other sessions' reservations say about one file a session is about to write. */
export interface EditVerdict {
  kind: 'pass' | 'warn' | 'deny';
  conflicts: Conflict[];
}

/**
 * The pre-tool decision for a session writing `file` (repo-relative,
 * normalised), as member `memberId` or with no member yet (undefined): denied
 * when a reservation of another member that holds (the lifetime rule) covers
 * it exclusively, in any channel of the project, whether or not the writer is
 * in that channel; warned when held shared; passed otherwise.
 */
export function judgeEdit(state: State, memberId: string | undefined, file: string, now: number, isAlive: ProcessCheck): EditVerdict {
  const conflicts: Conflict[] = [];
  for (const channel of Object.values(state.channels)) {
    if (!channel.reservations) continue;
    for (const r of liveReservations(state, channel, now, isAlive)) {
      if (r.member_id !== memberId && patternsOverlap(file, r.path)) conflicts.push(conflictOf(file, channel, r, reservationLapse(state, r, now, isAlive)));
    }
  }
  for (const hold of claimHolds(state, now, isAlive)) {
    if (hold.member_id === memberId || !patternsOverlap(file, hold.path)) continue;
    // The claim's own lapse: the reservation rule with no expiry of its own (a claim ends only with its claimer's absence).
    const away = presenceOf(state, hold.member_id, now, isAlive);
    const since = away.present || away.away_since === null ? null : away.away_since;
    conflicts.push({
      path: file, channel: hold.channel ?? '', held_path: hold.path, holder: hold.member_id, role: roleOf(state, hold.member_id),
      exclusive: true, reason: null, expires_at: Number.POSITIVE_INFINITY, task: hold.task_id,
      holder_away_since: since, lapses_at: since === null ? Number.POSITIVE_INFINITY : since + HOLDER_AWAY_GRACE_MS,
    });
  }
  if (conflicts.some((c) => c.exclusive)) return { kind: 'deny', conflicts: conflicts.filter((c) => c.exclusive) };
  return { kind: conflicts.length > 0 ? 'warn' : 'pass', conflicts };
}

/**
 * The reason a denied or warned edit gives: who holds the file, in which
 * channel, until when, and how to reach them (a session outside that channel
 * is told how to join it), in lines of our own; then the holders' reasons,
 * each framed as peer data with a fresh nonce from `nonce`. A deny opens by
 * saying it is a deliberate refusal of this `action` (an edit tool's, or a
 * shell command that writes a held file), not a failure: Claude Code shows
 * every PreToolUse deny to the model after "PreToolUse:<tool> hook error:".
 */
export function describeVerdict(verdict: EditVerdict, isMemberOf: (channel: string) => boolean, nonce: () => string, action: 'edit' | 'command' = 'edit'): string {
  const blocks: string[] = [];
  const lines = verdict.conflicts.map((c) => {
    if (c.task !== undefined) return claimLine(c, isMemberOf);
    const framed = frameHolderText(c, nonce());
    if (framed !== undefined) blocks.push(framed);
    const reach = isMemberOf(c.channel)
      ? `To ask them: opencomms_send with channel "${c.channel}", to "${c.holder}".`
      : `You are not in channel "${c.channel}": to ask them, join it (opencomms_join with channel "${c.channel}", a role and a role_prompt), then opencomms_send to "${c.holder}".`;
    return `${c.path} is reserved ${c.exclusive ? 'exclusively' : 'shared'} by ${c.role} (${c.holder})`
      + ` ${lapseText(c)} (reserved as ${shownHeldPath(c)} in channel "${c.channel}")${framed === undefined ? '' : '; their words are in the peer data below'}. ${reach}`;
  });
  const summary = verdict.kind === 'deny'
    ? `${action === 'edit'
      ? 'OpenComms refused this edit on purpose (nothing failed): another agent holds the file.'
      : 'OpenComms refused this shell command on purpose, before it ran (nothing failed): it writes a file another agent holds.'} ${lines.join(' ')} Wait until they release it (opencomms_release), it expires, or they have been away 10 minutes; a person can free it with \`opencomms reservations --release ID\`.`
    : `OpenComms: note that another agent shares this file. ${lines.join(' ')}`;
  return [summary, ...blocks].join('\n');
}

/** A member's role in its first channel, or `agent` for one in none. */
function roleOf(state: State, memberId: string): string {
  for (const channel of Object.values(state.channels)) {
    const member = channel.members.find((m) => m.session_id === memberId);
    if (member) return member.role;
  }
  return 'agent';
}

/** How a denied edit names a hold that comes from a claimed task: held while the claim lasts. */
function claimLine(c: Conflict, isMemberOf: (channel: string) => boolean): string {
  const reach = c.channel !== '' && isMemberOf(c.channel)
    ? ` To ask them: opencomms_send with channel "${c.channel}", to "${c.holder}".`
    : ' The board (opencomms_task with action list and id) shows the task and who holds it.';
  return `${c.path} is held by ${c.role} (${c.holder}), who claimed task ${c.task} with the paths ${shownHeldPath(c)}; it holds while that claim lasts.${reach}`;
}

/** Whether `memberId` is a member of the channel named `name`. */
export function isMemberOfChannel(state: State, memberId: string | undefined, name: string): boolean {
  return memberId !== undefined && Object.values(state.channels).some((c) => c.name === name && c.members.some((m) => m.session_id === memberId));
}
