// A fresh channel record with its safeguards, shared by create and resume.
import {
  DEFAULT_DELIVERY_COOLDOWN_MS, DEFAULT_MAX_HOPS, DEFAULT_MAX_MEMBERS, DEFAULT_RATE_LIMIT,
  DEFAULT_AWAY_RETENTION_MS, DEFAULT_MAX_AGENT_STREAK, DEFAULT_STALE_EVENT_MS, MAX_MAX_AGENT_STREAK, MAX_AWAY_RETENTION_MS, MAX_BUDGET_MESSAGES, MAX_BUDGET_RUNTIME_MS, MAX_MAX_HOPS,
  MAX_MEMBERS_CEILING, MAX_RATE_LIMIT, MIN_BUDGET_MESSAGES, MIN_BUDGET_RUNTIME_MS, MIN_MAX_HOPS,
  MIN_AWAY_RETENTION_MS, MIN_MEMBERS, MIN_RATE_LIMIT,
} from './constants';
import { emptyTimer } from './timer-clock';
import { clampInt, clampOptionalInt } from './validate';
import type { Budgets, Channel, Member } from './types';

/** Tunables a caller may set on a new channel; each is clamped, absent means default. */
export interface ChannelLimitsInput {
  max_members?: number | null;
  rate_limit?: number | null;
  max_hops?: number | null;
  budgets?: Partial<Budgets> | null;
  away_retention_ms?: number | null;
  /** The loop guard's limit (engine/loop-guard); 0 turns it off. */
  max_agent_streak?: number | null;
}

/** Clamps budgets into their documented ranges; absent or non-finite means unlimited. */
export function clampBudgets(input: Partial<Budgets> | null | undefined): Budgets {
  return {
    max_runtime_ms: clampOptionalInt(input?.max_runtime_ms, MIN_BUDGET_RUNTIME_MS, MAX_BUDGET_RUNTIME_MS),
    max_delivered_messages: clampOptionalInt(input?.max_delivered_messages, MIN_BUDGET_MESSAGES, MAX_BUDGET_MESSAGES),
  };
}

/** A new active channel holding the given members. */
export function buildChannel(fields: {
  id: string;
  name: string;
  project_id: string;
  worktree: string;
  now: number;
  members: Member[];
  limits: ChannelLimitsInput;
  description?: string | null;
  parent_channel_id?: string | null;
}): Channel {
  const { limits } = fields;
  return {
    id: fields.id,
    name: fields.name,
    project_id: fields.project_id,
    worktree: fields.worktree,
    created_at: fields.now,
    paused: false,
    paused_at: null,
    lifecycle: 'active',
    description: fields.description ?? null,
    parent_channel_id: fields.parent_channel_id ?? null,
    members: fields.members,
    max_members: clampInt(limits.max_members, MIN_MEMBERS, MAX_MEMBERS_CEILING, DEFAULT_MAX_MEMBERS),
    rate: { window_start: fields.now, count: 0 },
    cooldown_until: {},
    seen_recent: {},
    processed_correlations: [],
    max_hops: clampInt(limits.max_hops, MIN_MAX_HOPS, MAX_MAX_HOPS, DEFAULT_MAX_HOPS),
    rate_limit: clampInt(limits.rate_limit, MIN_RATE_LIMIT, MAX_RATE_LIMIT, DEFAULT_RATE_LIMIT),
    delivery_cooldown_ms: DEFAULT_DELIVERY_COOLDOWN_MS,
    stale_event_ms: DEFAULT_STALE_EVENT_MS,
    away_retention_ms: clampInt(limits.away_retention_ms, MIN_AWAY_RETENTION_MS, MAX_AWAY_RETENTION_MS, DEFAULT_AWAY_RETENTION_MS),
    timer: emptyTimer(),
    budgets: clampBudgets(limits.budgets),
    delivered_total: 0,
    max_agent_streak: clampInt(limits.max_agent_streak, 0, MAX_MAX_AGENT_STREAK, DEFAULT_MAX_AGENT_STREAK),
    agent_streak: 0,
  };
}
