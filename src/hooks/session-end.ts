// A session ending: its member is marked stale, so sends to it are refused,
// unless another session or spawn-resume still reaches it (engine/hook-session:
// an ended session is what spawn-resume resumes, and the headless
// `claude -p --resume` run it starts ends with a SessionEnd of its own, which
// must not shut the door behind it; a newer session of the same member, bound
// on this host, took over from an older one ending).
import { hasHookSessionEnded, isBoundElsewhere, isResumable, memberOfSession, type State } from '../engine';
import type { Store } from '../store';
import { hookSessionOf, type EnvMember } from './bind';
import type { HookEvent } from './events';
import { NOTHING, type Outcome } from './run-context';

export async function endSession(store: Store, state: State, event: HookEvent, env: EnvMember): Promise<Outcome> {
  const session = hookSessionOf(event);
  const memberId = env.kind === 'id' ? env.memberId : memberOfSession(state, session);
  if (memberId === undefined || hasHookSessionEnded(state, memberId, null) || isResumable(state, memberId)) return NOTHING;
  if (isBoundElsewhere(state, memberId, session.hosts, session.session_id)) return NOTHING;
  // Judged again by the change on the state it meets: the binding may have moved to another session meanwhile.
  await store.mutate('hook_end_session', { member: memberId, session, found_by_session: env.kind !== 'id' }, { member: memberId });
  return NOTHING;
}
