// Building member records and taking a member out of one channel.
import { DEFAULT_HOST_ID, DEFAULT_STALE_EVENT_MS } from './constants';
import { finishEnvelope } from './envelopes';
import { stopClock } from './timer-clock';
import { isValidHostLabel } from './validate';
import type {
  Channel, DeliveryMode, EndpointCapabilities, HostSessionSource, Member, StalePolicy, State, Surface,
} from './types';

export const SURFACES: readonly Surface[] = ['cli', 'desktop', 'web', 'api', 'app-server', 'mcp'];
export const DELIVERY_MODES: readonly DeliveryMode[] = ['push', 'spawn_push', 'pull', 'poll', 'managed_thread', 'unsupported'];

const CAPABILITIES_BY_MODE: Record<DeliveryMode, EndpointCapabilities> = {
  push: { push: true, pull: true, resume: false, queue_while_busy: true, interrupt: false },
  spawn_push: { push: true, pull: true, resume: true, queue_while_busy: false, interrupt: false },
  pull: { push: false, pull: true, resume: false, queue_while_busy: true, interrupt: false },
  poll: { push: false, pull: true, resume: false, queue_while_busy: true, interrupt: false },
  managed_thread: { push: true, pull: true, resume: true, queue_while_busy: true, interrupt: false },
  unsupported: { push: false, pull: false, resume: false, queue_while_busy: false, interrupt: false },
};

/** The endpoint capabilities a delivery mode implies; unknown modes get none. */
export function capabilitiesForMode(mode: string): EndpointCapabilities {
  const known = (DELIVERY_MODES as readonly string[]).includes(mode) ? (mode as DeliveryMode) : 'unsupported';
  return { ...CAPABILITIES_BY_MODE[known] };
}

/**
 * Only spawn-push mail ages out (a headless resume of hours-old mail helps
 * nobody); everyone else's waits for its next pull or idle. The loader fills
 * a missing policy in with the same rule.
 */
export function defaultStalePolicy(mode: DeliveryMode): StalePolicy {
  return mode === 'spawn_push'
    ? { mode: 'window', window_ms: DEFAULT_STALE_EVENT_MS }
    : { mode: 'none', window_ms: null };
}

/** What a caller may say about a new member; everything else gets a default. */
export interface MemberInput {
  session_id: string;
  role: string;
  role_prompt: string;
  host?: string;
  surface?: Surface;
  delivery_mode?: DeliveryMode;
  host_session_id?: string | null;
  /** Who named host_session_id; recorded only with one. */
  host_session_source?: HostSessionSource;
  machine?: string;
  stale_policy?: StalePolicy;
  endpoint_capabilities?: EndpointCapabilities;
}

/** A complete member record for the given (already validated) input. */
export function makeMember(input: MemberInput, now: number): Member {
  const mode = input.delivery_mode && DELIVERY_MODES.includes(input.delivery_mode) ? input.delivery_mode : 'push';
  return {
    session_id: input.session_id,
    role: input.role,
    role_prompt: input.role_prompt.trim(),
    joined_at: now,
    stale: false,
    stale_at: null,
    host: isValidHostLabel(input.host?.trim()) ? input.host!.trim() : DEFAULT_HOST_ID,
    surface: input.surface && SURFACES.includes(input.surface) ? input.surface : 'cli',
    delivery_mode: mode,
    host_session_id: input.host_session_id ?? null,
    ...(input.host_session_id && input.host_session_source ? { host_session_source: input.host_session_source } : {}),
    ...(input.machine === undefined ? {} : { machine: input.machine }),
    stale_policy: input.stale_policy ? { ...input.stale_policy } : defaultStalePolicy(mode),
    endpoint_capabilities: input.endpoint_capabilities ? { ...input.endpoint_capabilities } : capabilitiesForMode(mode),
  };
}

/**
 * Takes a member out of ONE channel. Only that channel's mail to them is
 * rejected: the queue is shared by all of the member's channels, so mail
 * from their other channels stays exactly where it is. Envelopes of this
 * channel that are in flight to them are rejected too, so a later requeue
 * cannot bring them back.
 */
export function removeMember(state: State, channel: Channel, memberId: string, now: number): Member | undefined {
  const index = channel.members.findIndex((m) => m.session_id === memberId);
  if (index < 0) return undefined;
  const [removed] = channel.members.splice(index, 1);
  for (const envelope of Object.values(state.messages)) {
    if (envelope.channel_id !== channel.id || envelope.recipient_session_id !== memberId) continue;
    if (envelope.delivery_status === 'pending' || envelope.delivery_status === 'in_flight') {
      finishEnvelope(state, envelope, 'rejected');
    }
  }
  delete channel.cooldown_until[memberId];
  if (channel.timer.active_member_id === memberId) stopClock(channel.timer, now);
  return removed;
}
