// Validation and backfill of one channel member read from disk.
import { DEFAULT_HOST_ID, DEFAULT_STALE_EVENT_MS } from './constants';
import { capabilitiesForMode, defaultStalePolicy, DELIVERY_MODES, SURFACES } from './members';
import { fill, isFiniteNumber, isObj, numberOrNull, rejectShape, requireType, stringOrNull } from './shape-checks';
import { isValidHostLabel, isValidRole, repairHostLabel } from './validate';
import type { DeliveryMode, Member, Surface } from './types';

const CAPABILITY_KEYS = ['push', 'pull', 'resume', 'queue_while_busy', 'interrupt'] as const;

/** Validates and completes one member; `legacy` relaxes the host fields (v1 files). */
export function checkMember(raw: unknown, where: string, notes: string[], legacy: boolean): Member {
  if (!isObj(raw)) rejectShape(`${where} is not an object`);
  const m = raw;
  requireType(typeof m.session_id === 'string' && m.session_id !== '' && m.session_id !== '__proto__', where, 'session_id', 'a non-empty string');
  requireType(typeof m.role === 'string' && isValidRole(m.role), where, 'role', 'a valid role');
  requireType(typeof m.role_prompt === 'string', where, 'role_prompt', 'a string');
  requireType(isFiniteNumber(m.joined_at), where, 'joined_at', 'a number');
  if (legacy) {
    fill(m, 'host', DEFAULT_HOST_ID, where, notes);
    fill(m, 'surface', 'cli', where, notes);
    fill(m, 'delivery_mode', 'push', where, notes);
  }
  requireType(typeof m.host === 'string', where, 'host', 'a string');
  if (!isValidHostLabel(m.host)) {
    // The label is not repeated in the note: notes are shown as errors, and the label is the problem.
    const length = (m.host as string).length;
    m.host = repairHostLabel(m.host as string);
    notes.push(`${where}: host label of ${length} characters was not a valid label; now "${m.host}"`);
  }
  requireType(SURFACES.includes(m.surface as Surface), where, 'surface', `one of ${SURFACES.join(', ')}`);
  requireType(DELIVERY_MODES.includes(m.delivery_mode as DeliveryMode), where, 'delivery_mode', `one of ${DELIVERY_MODES.join(', ')}`);
  const mode = m.delivery_mode as DeliveryMode;
  fill(m, 'stale', false, where, notes);
  requireType(typeof m.stale === 'boolean', where, 'stale', 'a boolean');
  numberOrNull(m, 'stale_at', where, notes);
  stringOrNull(m, 'host_session_id', where, notes);
  if (m.host_session_source !== undefined && m.host_session_source !== 'host' && m.host_session_source !== 'argument') {
    // Unknown provenance is never trusted to decide whom a hook speaks for.
    m.host_session_source = 'argument';
    notes.push(`${where}: host_session_source was not "host" or "argument"; now "argument"`);
  }
  requireType(m.machine === undefined || typeof m.machine === 'string', where, 'machine', 'a string');
  if (!isObj(m.stale_policy)) {
    requireType(m.stale_policy === undefined || m.stale_policy === null, where, 'stale_policy', 'an object');
    m.stale_policy = defaultStalePolicy(mode);
    notes.push(`${where}: stale_policy restored to its default`);
  } else {
    const policy = m.stale_policy;
    requireType(policy.mode === 'window' || policy.mode === 'none', where, 'stale_policy.mode', '"window" or "none"');
    if (policy.mode === 'window' && !isFiniteNumber(policy.window_ms)) {
      policy.window_ms = DEFAULT_STALE_EVENT_MS;
      notes.push(`${where}: stale_policy.window_ms restored to ${DEFAULT_STALE_EVENT_MS}`);
    }
    if (policy.mode === 'none' && !isFiniteNumber(policy.window_ms)) policy.window_ms = null;
  }
  requireType(m.capabilities === undefined || isObj(m.capabilities), where, 'capabilities', 'an object');
  if (m.endpoint_capabilities === undefined) {
    m.endpoint_capabilities = capabilitiesForMode(mode);
    notes.push(`${where}: endpoint_capabilities derived from delivery_mode`);
  } else {
    const caps = m.endpoint_capabilities;
    requireType(isObj(caps) && CAPABILITY_KEYS.every((k) => typeof caps[k] === 'boolean'), where, 'endpoint_capabilities', 'five booleans');
  }
  return m as unknown as Member;
}
