// Numbers and shapes both stores keep to.
import { CHANNEL_ID_PATTERN } from '../engine/constants';

/** Finished records kept per channel after a compaction. */
export const HISTORY_KEEP_RECORDS = 2_000;
/** A channel log is compacted once it holds more lines than this. */
export const HISTORY_COMPACT_LINES = 2_500;
/** Channel ids are checked against this before any path is built from them. */
export { CHANNEL_ID_PATTERN };

/** Whether `id` is a well-formed channel id, safe to use as a file name or a key. */
export function isValidChannelId(id: unknown): id is string {
  return typeof id === 'string' && CHANNEL_ID_PATTERN.test(id);
}

/** Give up waiting after the lock has been held this long by one holder, without a release. */
export const LOCK_TIMEOUT_MS = 5_000;
