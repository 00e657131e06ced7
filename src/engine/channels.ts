// Creating, joining and leaving channels, and the per-member settings.
import { buildChannel, type ChannelLimitsInput } from './channel-factory';
import { SENTINEL_PROJECT_IDS } from './constants';
import { clearPause, resumeRefusal } from './loop-guard';
import { makeMember, type MemberInput } from './members';
import { refuse, succeed, type Refusal } from './reasons';
import { findChannel, isNonBlank, normalizeChannelName, normalizeRole, parseChannelName, requireMembership } from './validate';
import type { EngineCtx, State, ToolResult } from './types';

/** Everything needed to add the caller as a member, minus role and prompt. */
export type MemberOptions = Omit<MemberInput, 'session_id' | 'role' | 'role_prompt'>;

/** Who enters a channel, under which role, from which project: what create and join both take. */
export interface JoinChannelInput extends MemberOptions {
  channel: string;
  role: string;
  role_prompt: string;
  session_id: string;
  project_id: string;
  worktree: string;
}

export interface CreateChannelInput extends JoinChannelInput, ChannelLimitsInput {}

/** The caller plus the channel they act on. */
export interface ChannelCall {
  channel: string;
  session_id: string;
}

function isSentinelProject(id: string): boolean {
  return SENTINEL_PROJECT_IDS.includes(id);
}

function missingIdentity(input: { session_id: string; project_id: string; worktree: string }): Refusal | null {
  for (const key of ['session_id', 'project_id', 'worktree'] as const) {
    if (!isNonBlank(input[key])) return refuse('invalid_argument', `${key} is required.`, { argument: key });
  }
  return null;
}

/** Creates an active channel whose only member is the caller. */
export function createChannel(state: State, input: CreateChannelInput, ctx: EngineCtx): ToolResult {
  const name = parseChannelName(input.channel);
  if (typeof name !== 'string') return name;
  const missing = missingIdentity(input);
  if (missing) return missing;
  if (!isNonBlank(input.role_prompt)) return refuse('invalid_argument', 'role_prompt must not be blank.', { argument: 'role_prompt' });
  const role = normalizeRole(input.role);
  if (role === null) return refuse('invalid_role', 'Role must be 1-32 characters: a letter, then letters, digits, spaces, "-" or "_".');
  if (findChannel(state, name)) return refuse('already_exists', `Channel "${name}" already exists.`);
  const now = ctx.now();
  const member = makeMember({ ...input, role, role_prompt: input.role_prompt }, now);
  const channel = buildChannel({
    id: ctx.newId('chn_'), name, project_id: input.project_id, worktree: input.worktree, now, members: [member], limits: input,
  });
  state.channels[name] = channel;
  return succeed(`Created channel "${name}"; you are ${role}.`, { channel_id: channel.id, role, session_id: input.session_id });
}

/** Adds the caller to an existing active channel. */
export function joinChannel(state: State, input: JoinChannelInput, ctx: EngineCtx): ToolResult {
  // The role is checked before the channel lookup, as in the reference.
  const role = normalizeRole(input.role);
  if (role === null) return refuse('invalid_role', 'Role must be 1-32 characters: a letter, then letters, digits, spaces, "-" or "_".');
  const missing = missingIdentity(input);
  if (missing) return missing;
  const channel = typeof input.channel === 'string' ? findChannel(state, input.channel) : undefined;
  if (!channel) {
    return refuse('channel_not_found',
      `Channel "${typeof input.channel === 'string' ? normalizeChannelName(input.channel) : ''}" does not exist in this project/worktree. STOP: do not create a channel or replace anyone; ask the user which channel to join.`);
  }
  if (channel.lifecycle !== 'active') {
    return refuse('not_active', `Channel "${channel.name}" is ${channel.lifecycle}; it cannot be joined. Resume it with opencomms_resume_session.`);
  }
  if (channel.members.length === 0) {
    // An empty channel (a resumed session) takes on its first joiner's location.
    channel.worktree = input.worktree;
    if (!isSentinelProject(input.project_id)) channel.project_id = input.project_id;
  }
  if (channel.project_id !== input.project_id && !isSentinelProject(channel.project_id) && !isSentinelProject(input.project_id)) {
    return refuse('project_mismatch', `Channel "${channel.name}" belongs to a different project.`);
  }
  if (channel.worktree !== input.worktree) {
    return refuse('worktree_mismatch', `Channel "${channel.name}" belongs to a different worktree.`);
  }
  const existing = channel.members.find((m) => m.session_id === input.session_id);
  if (existing) {
    return refuse('already_member', existing.role.toLowerCase() === role.toLowerCase()
      ? `You are already registered in "${channel.name}" as ${existing.role}; you cannot join the same channel twice.`
      : `You are already ${existing.role} in "${channel.name}"; one member cannot hold two roles.`);
  }
  if (channel.members.length >= channel.max_members) {
    return refuse('channel_full', `Channel "${channel.name}" is full (${channel.members.length}/${channel.max_members} members).`);
  }
  const holder = channel.members.find((m) => m.role.toLowerCase() === role.toLowerCase());
  if (holder) {
    return refuse('role_taken', `Role ${role} is already held by ${holder.session_id} in "${channel.name}"; that member must disconnect first.`);
  }
  if (!isNonBlank(input.role_prompt)) return refuse('invalid_argument', 'role_prompt must not be blank.', { argument: 'role_prompt' });
  channel.members.push(makeMember({ ...input, role, role_prompt: input.role_prompt }, ctx.now()));
  return succeed(`Joined channel "${channel.name}" as ${role}.`, {
    channel_id: channel.id, role, session_id: input.session_id, parent_channel_id: channel.parent_channel_id,
  });
}

/** Replaces the caller's own role prompt. */
export function updateRole(state: State, input: ChannelCall & { role_prompt: string }, _ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  if (!isNonBlank(input.role_prompt)) return refuse('invalid_argument', 'role_prompt must not be blank.', { argument: 'role_prompt' });
  found.member.role_prompt = input.role_prompt.trim();
  return succeed(`Updated your role prompt in "${found.channel.name}".`);
}

/** Pauses a channel: sends are refused and its mail stays queued. Idempotent. */
export function pauseChannel(state: State, input: ChannelCall, ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const { channel } = found;
  if (channel.paused) return succeed(`Channel "${channel.name}" is already paused.`, { paused: true });
  channel.paused = true;
  channel.paused_at = ctx.now();
  delete channel.paused_reason; // a member's pause, which any member may lift
  channel.paused_by = input.session_id;
  return succeed(`Paused channel "${channel.name}".`, { paused: true });
}

/** Resumes a paused channel. Idempotent. A pause the loop guard made is a person's to lift (person_required). */
export function resumeChannel(state: State, input: ChannelCall, _ctx: EngineCtx): ToolResult {
  const found = requireMembership(state, input.channel, input.session_id);
  if ('ok' in found) return found;
  const { channel } = found;
  if (!channel.paused) return succeed(`Channel "${channel.name}" is not paused.`, { paused: false });
  const refused = resumeRefusal(channel, input.session_id);
  if (refused) return refused;
  clearPause(channel);
  return succeed(`Resumed channel "${channel.name}".`, { paused: false });
}
