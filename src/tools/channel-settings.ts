// The channel settings a create takes, declared once for the MCP create
// (catalog.ts) and the OpenCode plugin's create, so their bounds cannot drift.
import {
  MAX_MAX_AGENT_STREAK, MAX_BUDGET_MESSAGES, MAX_BUDGET_RUNTIME_MS, MAX_MAX_HOPS, MAX_MEMBERS_CEILING, MAX_RATE_LIMIT, MIN_BUDGET_MESSAGES,
  MIN_BUDGET_RUNTIME_MS, MIN_MAX_HOPS, MIN_MEMBERS, type CreateChannelInput,
} from '../engine';
import type { PropertySchema } from './schema';

type ChannelSettings = Pick<CreateChannelInput, 'max_members' | 'rate_limit' | 'max_hops' | 'budgets' | 'away_retention_ms' | 'max_agent_streak'>;

/** The create arguments for a channel's limits and budgets (INTERFACE.md section 5), all optional. */
export const CHANNEL_SETTING_PROPERTIES = {
  max_members: { type: 'integer', minimum: MIN_MEMBERS, maximum: MAX_MEMBERS_CEILING },
  rate_limit: { type: 'integer', minimum: 1, maximum: MAX_RATE_LIMIT, description: 'Sends per minute' },
  max_hops: { type: 'integer', minimum: MIN_MAX_HOPS, maximum: MAX_MAX_HOPS, description: 'Longest reply chain' },
  budget_runtime_ms: { type: 'integer', minimum: MIN_BUDGET_RUNTIME_MS, maximum: MAX_BUDGET_RUNTIME_MS },
  budget_messages: { type: 'integer', minimum: MIN_BUDGET_MESSAGES, maximum: MAX_BUDGET_MESSAGES },
  away_retention_days: { type: 'integer', minimum: 1, maximum: 365, description: 'Days an absent member stays (default 7)' },
  max_agent_streak: { type: 'integer', minimum: 0, maximum: MAX_MAX_AGENT_STREAK, description: 'Agent messages in a row before a person must step in (50; 0 off)' },
} as const satisfies Readonly<Record<string, PropertySchema>>;

/** The engine's limits input from create arguments already checked against CHANNEL_SETTING_PROPERTIES. */
export function channelSettingsOf(args: Record<string, unknown>): ChannelSettings {
  const int = (key: string): number | undefined => (typeof args[key] === 'number' ? args[key] as number : undefined);
  return {
    max_members: int('max_members'), rate_limit: int('rate_limit'), max_hops: int('max_hops'),
    budgets: { max_runtime_ms: int('budget_runtime_ms') ?? null, max_delivered_messages: int('budget_messages') ?? null },
    away_retention_ms: int('away_retention_days') === undefined ? null : int('away_retention_days')! * 86_400_000,
    max_agent_streak: int('max_agent_streak') ?? null,
  };
}
