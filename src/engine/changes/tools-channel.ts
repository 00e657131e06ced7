// The channel tools' changes: create and join (the caller becomes a member,
// reached as the caller worked out before the change), and what a live member
// does in a channel: pause, resume, leave, its role prompt, removing a
// member, the clock, and reserving and releasing files.
import type { EngineCtx, State, ToolResult } from '../types';
import type { ChangeFn } from './change-fn';
import { createChannel, joinChannel, pauseChannel, resumeChannel, updateRole, type MemberOptions } from '../channels';
import type { ChannelLimitsInput } from '../channel-factory';
import { disconnectChannel, kickChannel } from '../leave';
import { releasePaths, reservePaths } from '../reservations';
import { timerAction } from '../timer';
import { asCaller, memberChange, type ArgShape, type MemberArgs } from './member-change';

/** A create or join: the channel, the role, and how the new member is reached (worked out by the caller). */
export interface EntryArgs extends MemberArgs, MemberOptions {
  channel: string;
  role: string;
  role_prompt: string;
  project_id: string;
  worktree: string;
}

export type CreateArgs = EntryArgs & ChannelLimitsInput;

const ENTRY_SHAPE: ArgShape = {
  channel: 'text', role: 'text', role_prompt: 'text', project_id: 'text', worktree: 'text',
  host: 'text?', surface: 'text?', delivery_mode: 'text?', host_session_id: 'text?', host_session_source: 'text?', machine: 'text?',
  stale_policy: 'object?', endpoint_capabilities: 'object?',
};

const channel_create: ChangeFn<CreateArgs> = memberChange('create', 'anywhere', {
  ...ENTRY_SHAPE, max_members: 'number?', rate_limit: 'number?', max_hops: 'number?', budgets: 'object?', away_retention_ms: 'number?', max_agent_streak: 'number?',
}, (state, a, ctx) => createChannel(state, asCaller(a), ctx));

const channel_join: ChangeFn<EntryArgs> = memberChange('join', 'anywhere', ENTRY_SHAPE, (state, a, ctx) => joinChannel(state, asCaller(a), ctx));

export interface ChannelArgs extends MemberArgs {
  channel: string;
}

type ChannelOp = (state: State, input: { channel: string; session_id: string }, ctx: EngineCtx) => ToolResult;

/** A change of a live member that takes only the channel. */
function channelOnly(what: string, op: ChannelOp): ChangeFn<ChannelArgs> {
  return memberChange(what, 'in_channel', { channel: 'text' }, (state, a, ctx) => op(state, { channel: a.channel, session_id: a.member }, ctx));
}

/** What `channel_disconnect` answers: whether the channel went with its last member, and its id (its history log goes next). */
export type DisconnectResult = ToolResult & { data?: Record<string, unknown> & { channel_removed?: boolean; channel_id?: string } };

const channel_disconnect: ChangeFn<ChannelArgs, DisconnectResult> = channelOnly('disconnect', disconnectChannel);

const channel_update_role: ChangeFn<ChannelArgs & { role_prompt: string }> = memberChange('update role', 'in_channel', { channel: 'text', role_prompt: 'text' },
  (state, a, ctx) => updateRole(state, asCaller(a), ctx));

const channel_kick: ChangeFn<ChannelArgs & { target_session_id?: string | null; target_role?: string | null }> = memberChange('kick', 'in_channel', {
  channel: 'text', target_session_id: 'text?', target_role: 'text?',
}, (state, a, ctx) => kickChannel(state, asCaller(a), ctx));

const channel_timer: ChangeFn<ChannelArgs & { action: string; limit_ms?: number | null; to?: string | null }> = memberChange('timer', 'in_channel', {
  channel: 'text', action: 'text', limit_ms: 'number?', to: 'text?',
}, (state, a, ctx) => timerAction(state, asCaller(a), ctx));

/** Paths as the caller resolved them against the project root (`project_dir`). */
export interface ReserveArgs extends ChannelArgs {
  paths: string[];
  exclusive?: boolean | null;
  reason?: string | null;
  ttl_minutes?: number | null;
  project_dir: string;
}

const paths_reserve: ChangeFn<ReserveArgs> = memberChange('reserve', 'in_channel', {
  channel: 'text', paths: 'texts', exclusive: 'bool?', reason: 'text?', ttl_minutes: 'number?', project_dir: 'text',
}, (state, a, ctx) => reservePaths(state, { ...asCaller(a), exclusive: a.exclusive ?? undefined }, ctx));

export interface ReleaseArgs extends ChannelArgs {
  /** The paths to give back; all when absent. */
  paths?: string[] | null;
  project_dir: string;
}

const paths_release: ChangeFn<ReleaseArgs> = memberChange('release', 'in_channel', { channel: 'text', paths: 'texts?', project_dir: 'text' },
  (state, a, ctx) => releasePaths(state, asCaller(a), ctx));

export const channelToolChanges = {
  channel_create, channel_join,
  channel_pause: channelOnly('pause', pauseChannel),
  channel_resume: channelOnly('resume', resumeChannel),
  channel_disconnect, channel_update_role, channel_kick, channel_timer,
  paths_reserve, paths_release,
};
