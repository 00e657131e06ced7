// Every refusal the engine can return carries one of these codes in
// data.reason. The codes are a public contract: add new ones, never rename.
import type { ToolResult } from './types';

/**
 * Every reason code, once: the union `Reason` is derived from this list, and
 * tests and tool descriptions read it.
 */
export const REASONS = [
  'invalid_argument',
  'not_found',
  'channel_not_found',
  'not_member',
  'not_active',
  'paused',
  // The loop guard: the channel paused itself after too many agent messages
  // in a row, and only a person may lift that pause.
  'agent_streak',
  'person_required',
  'budget_exhausted',
  'content_required',
  'content_too_large',
  'invalid_message_type',
  'no_recipient',
  'ambiguous_recipient',
  'unknown_recipient',
  'stale_recipient',
  'rate_limited',
  'duplicate',
  'hop_limit',
  'invalid_reply_to',
  'backlog_full',
  'already_exists',
  'invalid_name',
  'invalid_role',
  'role_taken',
  'already_member',
  'channel_full',
  'project_mismatch',
  'worktree_mismatch',
  'not_coordinator',
  'cannot_kick_self',
  'no_target',
  'unknown_target',
  'ambiguous_target',
  'invalid_timer_action',
  'invalid_limit',
  'confirm_required',
  'ladder_exhausted',
  'not_archived_member',
  'unpinned',
  // A host_session_id argument that differs from the session the host named.
  'host_session_mismatch',
  // Host adapters: an OpenCode child session may not create or join, and a
  // session whose root cannot be checked is refused to be safe.
  'child_session',
  'session_lookup_failed',
  // The store could not do its part: the state lock stayed held past the
  // wait, or a file of .opencomms could not be read or written.
  'lock_timeout',
  'state_unwritable',
  // A channel not found because the state that held it failed to load and
  // was set aside (engine/quarantine): the refusal names where it went.
  'state_quarantined',
  // Edit reservations: a path that is not a file or glob inside the project,
  // every path held by someone else, or a channel holding too many.
  'invalid_path',
  'reservation_conflict',
  'too_many_reservations',
  // A networked store (Redis): its configuration is incomplete or invalid,
  // no credentials were given, a non-loopback host without TLS, a TLS
  // session that could not be set up (certificate not verified), the server
  // refused the credentials or a command/key, it could not be reached in
  // time, or it answered something this client does not accept, or a key
  // of the project holds a value of another type than the store keeps there.
  'store_config_invalid',
  'store_auth_required',
  'store_tls_required',
  'store_tls_failed',
  'store_auth_failed',
  'store_forbidden',
  'store_unreachable',
  'store_protocol_error',
  'store_key_wrong_type',
  // The task board (INTERFACE section 8): an id that names no task, a claim of a
  // task that is not ready, already held, meant for another, or whose paths
  // another session holds; done/release by a member that does not hold it,
  // cancel by one that did not add it, an answer to a task not asked, a
  // change of a task already closed, and a board at its limit.
  'unknown_task',
  'not_ready',
  'claimed',
  'not_for_you',
  'paths_held',
  'not_claimer',
  'not_adder',
  'not_asked',
  'task_closed',
  'board_full',
] as const;

export type Reason = (typeof REASONS)[number];

/** A refusal: ok is false and data.reason names why. */
export interface Refusal extends ToolResult {
  ok: false;
  data: { reason: Reason } & Record<string, unknown>;
}

/** Builds a refusal value; extra fields land next to the reason in data. */
export function refuse(reason: Reason, message: string, extra: Record<string, unknown> = {}): Refusal {
  return { ok: false, message, data: { ...extra, reason } };
}

/** Builds a success value. */
export function succeed(message: string, data?: Record<string, unknown>): ToolResult {
  return data === undefined ? { ok: true, message } : { ok: true, message, data };
}

/** True when a result is a refusal (narrows for TypeScript). */
export function isRefusal(result: ToolResult | Refusal): result is Refusal {
  return !result.ok;
}
