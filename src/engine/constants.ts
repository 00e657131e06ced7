// Limits and defaults. Units are in the names; counts are plain integers.

/**
 * A channel id: `chn_` and up to 64 safe characters (the reference writes 32
 * lowercase hex). History logs and archives are files named after it.
 */
export const CHANNEL_ID_PATTERN = /^chn_[A-Za-z0-9_-]{1,64}$/;
/**
 * No delivery lease is ever taken for longer than this (the longest, the
 * OpenCode push's, is 30 minutes). One that ends later than this from now
 * was written by a clock running ahead or by hand, and binds no more.
 */
export const MAX_DELIVERY_LEASE_MS = 60 * 60_000;
export const DEFAULT_MAX_MEMBERS = 8;
export const MIN_MEMBERS = 2;
export const MAX_MEMBERS_CEILING = 32;

export const MAX_CHANNEL_NAME_CHARS = 64;
export const MAX_ROLE_CHARS = 32;
/** A host label follows the member id rule: at most this many characters. */
export const MAX_HOST_LABEL_CHARS = 64;
/** Content cap in UTF-16 code units, as the reference counts it. */
export const MAX_CONTENT_CHARS = 100_000;
export const MAX_SESSION_DESCRIPTION_CHARS = 140;
export const MAX_ARCHIVE_SUMMARY_CHARS = 2_000;
export const MAX_FINAL_STATE_NOTE_CHARS = 400;
export const MAX_ARCHIVED_MESSAGES = 2_000;

export const DEFAULT_MAX_HOPS = 4;
export const MIN_MAX_HOPS = 1;
export const MAX_MAX_HOPS = 50;

export const DEFAULT_RATE_LIMIT = 20;
export const MIN_RATE_LIMIT = 1;
export const MAX_RATE_LIMIT = 1_000;
export const RATE_WINDOW_MS = 60_000;

export const DEFAULT_STALE_EVENT_MS = 300_000;
export const DEFAULT_DELIVERY_COOLDOWN_MS = 1_000;
/** How long a member whose session ended stays in a channel, their mail waiting, before they are removed. */
export const DEFAULT_AWAY_RETENTION_MS = 7 * 86_400_000;
export const MIN_AWAY_RETENTION_MS = 3_600_000;
export const MAX_AWAY_RETENTION_MS = 365 * 86_400_000;

/** Loop guard: agent messages in a row (none from a person) after which a channel pauses itself; 0 turns it off. */
export const DEFAULT_MAX_AGENT_STREAK = 50;
export const MAX_MAX_AGENT_STREAK = 100_000;

export const MIN_BUDGET_RUNTIME_MS = 60_000;
export const MAX_BUDGET_RUNTIME_MS = 30 * 24 * 60 * 60 * 1_000;
export const MIN_BUDGET_MESSAGES = 1;
export const MAX_BUDGET_MESSAGES = 1_000_000;

/** A delivery that failed this many times becomes a dead letter (status failed). */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** Live (pending or in_flight) envelopes allowed project-wide before sends are refused. */
export const MAX_LIVE_ENVELOPES = 2_000;
/**
 * Bytes the live envelopes may take in state.json before sends are refused:
 * content counted as written (escapes included), plus the allowance below.
 */
export const MAX_LIVE_STATE_BYTES = 32 * 1024 * 1024;
/** Per-envelope allowance for everything but the content (field names, ids, numbers, its queue entry). */
export const ENVELOPE_OVERHEAD_BYTES = 1_536;

export const MAX_ERRORS = 200;
export const MAX_PROCESSED_CORRELATIONS = 500;

/** Resume tries the base name, then this many suffixed names: -r2 ... -r9. */
export const MAX_RESUME_LADDER = 8;

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** Project ids that never conflict with another project id at join. */
export const SENTINEL_PROJECT_IDS: readonly string[] = ['local-project', 'gui-local-project', 'cli-local-project'];
/** Host label given to members carried over from a v1 state file. */
export const LEGACY_HOST_ID = 'opencode-comms';
export const DEFAULT_HOST_ID = 'generic';

/** The largest distance from the epoch a Date holds; past it toISOString throws a RangeError. */
export const MAX_DATE_MS = 8.64e15;

/** Edit reservations: default and longest lifetime, and how many one channel holds. */
export const DEFAULT_RESERVATION_TTL_MINUTES = 60;
export const MAX_RESERVATION_TTL_MINUTES = 24 * 60;
export const MAX_RESERVATIONS_PER_CHANNEL = 500;

/** A reservation, and a task's claim, outlive their holder's presence by this much (PROTOCOL 5.6, INTERFACE section 8). */
export const HOLDER_AWAY_GRACE_MS = 10 * 60_000;
