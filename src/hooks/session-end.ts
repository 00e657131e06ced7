// A session ending: its member is marked stale, so sends to it are refused,
// unless another session or spawn-resume still reaches it.
import { hasSessionEnded, markStale, type State } from '../engine';
import type { Store } from '../store';
import { memberBySession, type EnvMember } from './bind';
import { membershipsOf } from './deliver';
import type { HookEvent } from './events';
import { NOTHING, type Outcome } from './run-context';

// A session ending makes its member stale (sends to it are refused) unless
// the member is reached by spawn-resume: an ended session is what that path
// resumes, and the headless `claude -p --resume` run it starts ends with a
// SessionEnd of its own, which must not shut the door behind it.
function isResumable(state: State, memberId: string): boolean {
  return membershipsOf(state, memberId).some((m) => m.delivery_mode === 'spawn_push');
}

// Whether `memberId` is bound, on this event's host, to a session other than
// the one ending: a newer session of the same member took over (installed
// hooks name the member in OPENCOMMS_MEMBER_ID, so every session in the
// project speaks for it), and the older one ending must not mark it stale.
function isBoundElsewhere(state: State, memberId: string, event: HookEvent): boolean {
  const bound = membershipsOf(state, memberId)
    .filter((m) => event.hosts.includes(m.host) && typeof m.host_session_id === 'string' && m.host_session_id !== '')
    .map((m) => m.host_session_id);
  return event.sessionId !== undefined && bound.length > 0 && !bound.includes(event.sessionId);
}

export async function endSession(store: Store, state: State, event: HookEvent, env: EnvMember): Promise<Outcome> {
  const memberId = env.kind === 'id' ? env.memberId : memberBySession(state, event);
  if (memberId === undefined || membershipsOf(state, memberId).length === 0 || hasSessionEnded(state, memberId) || isResumable(state, memberId)) return NOTHING;
  if (isBoundElsewhere(state, memberId, event)) return NOTHING;
  await store.mutate((locked, ctx) => {
    // Re-resolved under the lock: the binding may have moved to another session meanwhile.
    if (env.kind !== 'id' && memberBySession(locked, event) !== memberId) return { ok: true, message: 'moved' };
    if (isBoundElsewhere(locked, memberId, event)) return { ok: true, message: 'moved' };
    if (isResumable(locked, memberId)) return { ok: true, message: 'resumable' };
    markStale(locked, memberId, ctx.now());
    return { ok: true, message: 'stale' };
  });
  return NOTHING;
}
