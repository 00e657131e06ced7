// The chess clock's arithmetic, shared by the timer tool, send, and member removal.
import type { ChannelTimer } from './types';
import { addToTotal } from './validate';

/** Adds the running segment to the holder's total and restarts the segment at now. */
export function foldSegment(timer: ChannelTimer, now: number): void {
  const holder = timer.active_member_id;
  if (holder !== null && timer.segment_started_at !== null) {
    const spent = Math.max(0, now - timer.segment_started_at);
    addToTotal(timer.elapsed_ms, holder, spent);
    timer.segment_started_at = now;
  }
}

/** Folds the running segment and leaves nobody on the clock. */
export function stopClock(timer: ChannelTimer, now: number): void {
  foldSegment(timer, now);
  timer.active_member_id = null;
  timer.segment_started_at = null;
}

/** Folds the running segment and puts another member on the clock. */
export function handOverClock(timer: ChannelTimer, memberId: string, now: number): void {
  foldSegment(timer, now);
  timer.active_member_id = memberId;
  timer.segment_started_at = now;
}

/** True while someone is on the clock. */
export function isClockRunning(timer: ChannelTimer): boolean {
  return timer.active_member_id !== null;
}

/** Elapsed time per member including the running segment, without changing the timer. */
export function elapsedWithRunning(timer: ChannelTimer, now: number): Record<string, number> {
  const out: Record<string, number> = { ...timer.elapsed_ms };
  const holder = timer.active_member_id;
  if (holder !== null && timer.segment_started_at !== null) {
    addToTotal(out, holder, Math.max(0, now - timer.segment_started_at));
  }
  return out;
}

/** A stopped clock with nothing on it. */
export function emptyTimer(): ChannelTimer {
  return { active_member_id: null, segment_started_at: null, elapsed_ms: {}, limit_ms: null, limit_member_id: null };
}
