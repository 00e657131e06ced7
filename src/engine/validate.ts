// Small checks and normalisers shared by the operations: names, roles,
// clamps, and the "find the channel, then the caller in it" lookup.
import {
  DEFAULT_HOST_ID, DEFAULT_PAGE_LIMIT, MAX_CHANNEL_NAME_CHARS, MAX_HOST_LABEL_CHARS, MAX_PAGE_LIMIT, MAX_ROLE_CHARS,
} from './constants';
import { refuse, type Refusal } from './reasons';
import type { Channel, Member, State } from './types';

const CHANNEL_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
const ROLE_PATTERN = new RegExp(`^[A-Za-z][A-Za-z0-9 _-]{0,${MAX_ROLE_CHARS - 1}}$`);

// The same rule as a member id: a host label is printed beside roles in text
// a model or a terminal reads, so it holds no spaces, punctuation or controls.
const HOST_LABEL_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9_-]{0,${MAX_HOST_LABEL_CHARS - 1}}$`);

/** True for a valid host label (1-64 letters, digits, "_" or "-", starting with a letter or digit). */
export function isValidHostLabel(label: unknown): label is string {
  return typeof label === 'string' && HOST_LABEL_PATTERN.test(label);
}

/**
 * A valid label made from one that is not (written by an older version or
 * by hand): every other character becomes "_", leading "_" and "-" go, and
 * the rest is cut to length; nothing usable left gives the default label.
 */
export function repairHostLabel(label: string): string {
  const repaired = label.slice(0, 4 * MAX_HOST_LABEL_CHARS).replace(/[^A-Za-z0-9_-]/g, '_').replace(/^[_-]+/, '').slice(0, MAX_HOST_LABEL_CHARS);
  return repaired === '' ? DEFAULT_HOST_ID : repaired;
}

/** Trims and lowercases a channel name; the result may still be invalid. */
export function normalizeChannelName(raw: string): string {
  return raw.trim().toLowerCase();
}

/** Checks a channel name and returns it normalised, or a refusal with reason invalid_name. */
export function parseChannelName(raw: unknown): string | Refusal {
  if (typeof raw !== 'string' || raw.trim() === '') return refuse('invalid_name', 'A channel name is required.');
  const name = normalizeChannelName(raw);
  if (name.length > MAX_CHANNEL_NAME_CHARS) {
    return refuse('invalid_name', `Channel names are at most ${MAX_CHANNEL_NAME_CHARS} characters.`);
  }
  if (!CHANNEL_NAME_PATTERN.test(name)) {
    return refuse('invalid_name', 'Channel names use lowercase letters, digits, "-" and "_", starting with a letter or digit.');
  }
  return name;
}

/** Collapses inner whitespace and trims; returns null when the result is not a valid role. */
export function normalizeRole(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const role = raw.trim().replace(/\s+/g, ' ');
  return ROLE_PATTERN.test(role) ? role : null;
}

/** True for a valid (already normalised) role label. */
export function isValidRole(role: string): boolean {
  return ROLE_PATTERN.test(role);
}

/** True when the value is a string holding something other than whitespace. */
export function isNonBlank(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** A finite number clamped into [min, max] and floored, or the fallback when absent or not finite. */
export function clampInt(value: unknown, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** Like clampInt, but an absent or non-finite value means "no limit" (null). */
export function clampOptionalInt(value: unknown, min: number, max: number): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** A page size: default when absent or not positive, capped at the maximum. */
export function pageLimit(value: unknown, max = MAX_PAGE_LIMIT): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return DEFAULT_PAGE_LIMIT;
  return Math.min(max, Math.floor(value));
}

/** Finds a channel by (normalised) name, or by id when given a channel id. */
export function findChannel(state: State, nameOrId: string): Channel | undefined {
  const key = normalizeChannelName(nameOrId);
  const byName = Object.prototype.hasOwnProperty.call(state.channels, key) ? state.channels[key] : undefined;
  if (byName) return byName;
  return Object.values(state.channels).find((c) => c.id === nameOrId.trim());
}

/** Finds a channel by id. */
export function channelById(state: State, channelId: string): Channel | undefined {
  return Object.values(state.channels).find((c) => c.id === channelId);
}

/** Finds a member of a channel by exact id. */
export function memberOf(channel: Channel, memberId: string): Member | undefined {
  return channel.members.find((m) => m.session_id === memberId);
}

/** The channel and the caller's member record, or the refusal for whichever is missing. */
export function requireMembership(
  state: State,
  channelName: unknown,
  memberId: string,
): { channel: Channel; member: Member } | Refusal {
  if (typeof channelName !== 'string' || channelName.trim() === '') {
    return refuse('invalid_argument', 'A channel name is required.', { argument: 'channel' });
  }
  const channel = findChannel(state, channelName);
  if (!channel) return refuse('channel_not_found', `Channel "${normalizeChannelName(channelName)}" does not exist.`);
  const member = memberOf(channel, memberId);
  if (!member) return refuse('not_member', `You are not a member of channel "${channel.name}".`);
  return { channel, member };
}

/** "role (id), role (id)" for messages that list a roster. */
export function describeMembers(members: readonly Member[]): string {
  return members.length === 0 ? '(none)' : members.map((m) => `${m.role} (${m.session_id})`).join(', ');
}

/**
 * Reads a key only when the object itself holds it: member ids such as
 * "constructor" must not find Object.prototype members.
 */
export function ownValue<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/**
 * Adds `amount` to a per-member or per-role total. The old total is read with
 * ownValue, so a key such as "constructor" starts from 0, not from a function.
 */
export function addToTotal(totals: Record<string, number>, key: string, amount: number): void {
  totals[key] = (ownValue(totals, key) ?? 0) + amount;
}
