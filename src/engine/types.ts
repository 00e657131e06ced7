// The v2 state as it lives in .opencomms/state.json, plus the small contracts
// the engine shares with the store. Field names are the on-disk names.
// PROTOCOL.md (4.2) documents every field; additions are marked there.
import type { OpenRequest } from './open-request';
import type { PersonAction, PersonTerminal } from './person';
import type { Board } from './task-types';

export type { OpenRequest };

export const SCHEMA_VERSION = 2;

export type Lifecycle = 'active' | 'saved' | 'deleted';
export type Surface = 'cli' | 'desktop' | 'web' | 'api' | 'app-server' | 'mcp';
export type DeliveryMode = 'push' | 'spawn_push' | 'pull' | 'poll' | 'managed_thread' | 'unsupported';
export type MessageType = 'review_request' | 'review_response' | 'manual' | 'system';
export type DeliveryStatus = 'pending' | 'in_flight' | 'delivered' | 'failed' | 'rejected' | 'stale';
export type DeliveryMethod = 'push' | 'spawn_push' | 'pull';
/**
 * The path that handed delivered mail over (our addition, finer than
 * DeliveryMethod, which keeps the reference's three values): a hook's
 * additionalContext, a pull the doorbell prompted, a resumed session, the
 * OpenCode plugin, or a pull the agent made on its own.
 */
export type DeliveryPath = 'hook' | 'doorbell' | 'spawn' | 'plugin' | 'pull' | 'inbox' | 'codex_queue';
/**
 * A host's own door a member's server rings while its session is idle (our
 * addition): Claude Code's messaging inbox, or `codex queue`. A ring carries
 * no content: the woken model pulls, and that pull is delivered via the door.
 */
export type HostDoor = 'inbox' | 'codex_queue';

/** Statuses that end an envelope's life: the store moves these to history/<chn>.jsonl. */
export const FINISHED_STATUSES: readonly DeliveryStatus[] = ['delivered', 'failed', 'rejected', 'stale'];

export interface StalePolicy {
  mode: 'window' | 'none';
  window_ms: number | null;
}

export interface EndpointCapabilities {
  push: boolean;
  pull: boolean;
  resume: boolean;
  queue_while_busy: boolean;
  interrupt: boolean;
}

/** Who named a member's host session: the host itself, or a tool argument. */
export type HostSessionSource = 'host' | 'argument';

export interface Member {
  session_id: string;
  role: string;
  role_prompt: string;
  joined_at: number;
  stale: boolean;
  stale_at: number | null;
  host: string;
  surface: Surface;
  delivery_mode: DeliveryMode;
  host_session_id: string | null;
  /**
   * Who named host_session_id (our addition): `host` when the host itself
   * did (Claude Code's CLAUDE_CODE_SESSION_ID, Codex's `_meta.threadId`, a
   * hook's session id, the OpenCode plugin), `argument` when only the
   * `host_session_id` tool argument did. Only a host-named binding ever
   * decides whom a hook speaks for; an argument serves spawn-push alone.
   * Absent on members of older versions, whose bindings count as the host's.
   */
  host_session_source?: HostSessionSource;
  /**
   * The machine the member's host session runs on (our addition): spawn-push
   * resumes the session there and nowhere else. Absent on members of older
   * versions, and where it does not matter.
   */
  machine?: string;
  stale_policy: StalePolicy;
  capabilities?: Record<string, unknown>;
  endpoint_capabilities?: EndpointCapabilities;
}

export interface ChannelTimer {
  active_member_id: string | null;
  segment_started_at: number | null;
  elapsed_ms: Record<string, number>;
  limit_ms: number | null;
  limit_member_id: string | null;
}

export interface Budgets {
  max_runtime_ms: number | null;
  max_delivered_messages: number | null;
}

export interface Channel {
  id: string;
  name: string;
  project_id: string;
  worktree: string;
  created_at: number;
  paused: boolean;
  paused_at: number | null;
  lifecycle: Lifecycle;
  description: string | null;
  parent_channel_id: string | null;
  members: Member[];
  max_members: number;
  rate: { window_start: number; count: number };
  cooldown_until: Record<string, number>;
  /** Sender id → that sender's recent sends, fixed-width records (see seen-recent.ts). */
  seen_recent: Record<string, string>;
  processed_correlations: string[];
  max_hops: number;
  rate_limit: number;
  delivery_cooldown_ms: number;
  stale_event_ms: number;
  /** How long an away member (session ended) stays before leaving the channel (our addition). */
  away_retention_ms: number;
  /** Edit reservations (our addition; absent when none). */
  reservations?: Reservation[];
  /** Reservations taken and lapsed lately, one entry per change, newest last (our addition; engine/reservation-log). */
  reservation_log?: ReservationLogEntry[];
  /** Review requests not answered yet (our addition; absent when none). */
  open_requests?: OpenRequest[];
  /** Files members wrote in the last 15 minutes, for collision notices (our addition). */
  recent_edits?: Array<{ file: string; member_id: string; at: number }>;
  /** Collision notices given in the last 15 minutes: one per file and pair (our addition). */
  collision_notices?: Array<{ file: string; pair: string; at: number }>;
  timer: ChannelTimer;
  budgets: Budgets;
  delivered_total: number;
  /**
   * The loop guard (our addition): how many messages in a row may come from
   * agents, with none from a person, before the channel pauses itself; 0 is
   * off. Absent on channels of older versions, which get the default.
   */
  max_agent_streak?: number;
  /** Messages sent in a row with none from a person (our addition; absent counts as 0). */
  agent_streak?: number;
  /** Set while the channel paused itself (our addition): only a person lifts such a pause. Absent for a member's pause. */
  paused_reason?: PauseReason;
  paused_by?: string; // who paused it (our addition): a member id, `person-…` for a person; absent for the loop guard and older versions
}

export type PauseReason = 'agent_streak'; // the loop guard saw too many agent messages in a row

/** Who is handing an in_flight envelope to a host, and until when that claim holds (our addition). */
export interface DeliveryOwner {
  pid: number;
  host: string;
  lease_until: number;
}

/**
 * A claim on resuming one member's host session (our addition), kept in
 * State.spawn_leases under the member id. `token` tells the holder's own
 * lease from one taken over after it; `until` (epoch ms) outlasts the
 * spawn's own timeout, so a live holder never loses it mid-spawn.
 */
export interface SpawnLease {
  pid: number;
  host: string;
  token: string;
  until: number;
}

/**
 * A claim on waiting for one member's mail (our addition), kept in
 * State.wait_leases under the member id, held by the one `hook --wait` waiting for that member.
 * `token` tells the holder's own lease from one taken over after it; `until`
 * (epoch ms) is renewed while the holder waits, so a killed holder's lease
 * lapses on its own.
 */
export interface WaitLease {
  pid: number;
  host: string;
  token: string;
  until: number;
}

/**
 * A process that speaks as one member through OPENCOMMS_MEMBER_ID (our
 * addition), kept in State.speaker_leases under the member id. It holds while
 * the process `pid` runs on machine `host`; seen from another machine, until
 * `until` (epoch ms), renewed by the holder's calls.
 */
export interface SpeakerLease {
  pid: number;
  host: string;
  token: string;
  until: number;
}

export interface Envelope {
  message_id: string;
  channel_id: string;
  sender_session_id: string;
  sender_role: string;
  recipient_session_id: string;
  recipient_role: string;
  timestamp: number;
  message_type: MessageType;
  content: string;
  reply_to: string | null;
  root_message_id: string | null;
  hop_count: number;
  correlation_id: string;
  /** The id of the first message of this reply chain (our addition; absent on older records). */
  thread_id?: string;
  delivery_status: DeliveryStatus;
  delivered_at: number | null;
  attempts: number;
  delivery_method: DeliveryMethod | null;
  /** How delivered mail was handed over (our addition); absent on mail delivered by older versions. */
  delivered_via?: DeliveryPath;
  /** The host door last rung for this message while it waited, and when; `unwoken`: the door gave up (engine/unwoken.ts). Ours. */
  rung_via?: HostDoor;
  rung_at?: number;
  unwoken?: { via: HostDoor; rings: number; at: number };
  /** Set while in_flight; null otherwise (our addition). */
  delivery_owner?: DeliveryOwner | null;
  /**
   * Project-wide send order (our addition): restores FIFO exactly when mail
   * goes back into a queue, even for sends within the same millisecond.
   * Absent on envelopes written by the reference; those order by timestamp.
   */
  seq?: number;
  /** A person's message: the terminal it was typed at (our addition; shown, never proof). */
  person_terminal?: PersonTerminal;
}

export interface ErrorEntry {
  at: number;
  message: string;
  /** Scoping for status: who may see this entry (our addition; absent = project-wide). */
  channel_id?: string;
  member_id?: string;
}

export interface State {
  schema_version: 2;
  channels: Record<string, Channel>;
  /** Live envelopes only (pending, in_flight) once saved; finished ones live in history/. */
  messages: Record<string, Envelope>;
  queues: Record<string, string[]>;
  delivered_to: Record<string, string[]>;
  errors: ErrorEntry[];
  /** Next value for Envelope.seq (our addition; backfilled at load). */
  next_seq?: number;
  /**
   * Spawn-delivery leases by member id (our addition; absent when none is
   * held). Taken under the lock with the drain, released with the commit or
   * requeue; an expired lease or one whose holder is dead is free.
   */
  spawn_leases?: Record<string, SpawnLease>;
  /**
   * Waiter leases by member id (our addition; absent when none is held):
   * at most one `hook --wait` process per member. An expired lease or one
   * whose holder is dead is free.
   */
  wait_leases?: Record<string, WaitLease>;
  /**
   * Speaker leases by member id (our addition; absent when none is held): a
   * live process that speaks as that member through OPENCOMMS_MEMBER_ID, so
   * no new session adopts the member's pin (engine/speaker-leases).
   */
  speaker_leases?: Record<string, SpeakerLease>;
  /**
   * Host sessions → members (our addition; absent when empty), keyed by host
   * and id: `sid@<host>:<host session id>` or
   * `proc@<host>:[<boot id>/<pid ns>/]<pid>@<start>`. Only ever
   * looked up to find a process's own member; never a routing key.
   */
  session_links?: Record<string, SessionLink>;
  /**
   * Presence by member id (our addition; absent when empty): the processes
   * that speak for each member's host session (engine/presence).
   */
  presence?: Record<string, Presence>;
  /** The newest person actions with their terminals (our addition; engine/person-log). */
  person_actions?: PersonAction[];
  /** The task board (our addition, INTERFACE section 8; absent until the first task). */
  board?: Board;
  /** The rejected state this one replaced (our addition, engine/quarantine): when, and its copy's name. */
  quarantine?: { at: number; preserved_as: string };
}

/** What kind of process speaks for a member's session: its MCP server, a `hook --wait` waiter, the OpenCode plugin. */
export type PresenceKind = 'server' | 'waiter' | 'plugin';

/** One process that speaks for a member while it runs (our addition). */
export interface PresenceProcess {
  pid: number;
  /** Its machine tag (hostname, and boot id / pid namespace where known), as lock stamps write it. */
  machine: string;
  /** Its start time in clock ticks where the machine tells it, so a reused pid is not taken for it; else null. */
  start: number | null;
  kind: PresenceKind;
  /** When it last said it was there (epoch ms). */
  renewed_at: number;
  /** The host door this process rings while its session is idle (our addition; absent: none). */
  door?: HostDoor;
  /** Seen from another machine, where its pid means nothing, it counts as there until then (epoch ms). */
  until: number;
}

/** A member's presence record (our addition): its processes, and when the last one was last seen once none is left. */
export interface Presence {
  processes: PresenceProcess[];
  left_at: number | null;
  /** When the host said the session ended (SessionEnd, session.deleted): processes last renewed before it no longer count. */
  ended_at?: number;
}

/**
 * Whether a process runs, as this machine can tell: true or false for one of
 * its own processes, undefined for another machine's (judged by `until`).
 */
export type ProcessCheck = (proc: PresenceProcess) => boolean | undefined;

/** One edit reservation: a repo-relative file or glob a member is about to change (our addition). */
export interface Reservation {
  /** `rsv_` + 32 hex (our addition; older records have none and are named by reservationId). */
  id?: string;
  path: string;
  member_id: string;
  role: string;
  exclusive: boolean;
  reason: string | null;
  created_at: number;
  expires_at: number;
}

/** Which member one host session speaks as, and when that session was last seen (our addition). */
export interface SessionLink {
  member_id: string;
  host: string;
  created_at: number;
  last_seen: number;
}

/** One change to a channel's reservations (engine/reservation-log): `count` of them taken or lapsed, by or held by `member_id`, at `at`. */
export interface ReservationLogEntry {
  at: number;
  what: 'taken' | 'lapsed';
  member_id: string;
  count: number;
}

/** One line of history/<channel_id>.jsonl: a finished envelope and who received it. */
export interface HistoryRecord extends Envelope {
  delivered_to: string[];
}

/**
 * Read access to finished envelopes, provided by the store. Lookups are per
 * channel because reply_to must name a message of the same channel.
 */
export interface HistoryView {
  /** A finished envelope of this channel, or undefined. */
  find(channelId: string, messageId: string): HistoryRecord | undefined;
  /** Finished envelopes of this channel, oldest first, repeats removed. */
  list(channelId: string): HistoryRecord[];
}

/** Everything impure the engine needs, injected so engine tests are plain calls. */
export interface EngineCtx {
  now(): number;
  /** A fresh id: prefix + 32 lowercase hex. */
  newId(prefix: 'chn_' | 'ocm_' | 'cor_' | 'sess_' | 'rsv_'): string;
  /** A fresh unguessable nonce for untrusted framing. */
  nonce(): string;
  /** First 32 hex chars of sha256(text). */
  hash32(text: string): string;
  history: HistoryView;
  /** Whether a recorded process runs (presence); without it every process is judged by its lease. */
  isProcessAlive?: ProcessCheck;
}

export type ReasonCode = string;

export interface ToolResult {
  ok: boolean;
  message: string;
  data?: Record<string, unknown>;
}

