// What the OpenCode plugin asks of the state about its sessions' members,
// kept in the engine so its changes (engine/changes/push.ts) can ask it too.
import type { State } from './types';

/** Whether any channel lists the member. */
export function isInChannels(state: State, memberId: string): boolean {
  return Object.values(state.channels).some((c) => c.members.some((m) => m.session_id === memberId));
}

/**
 * The old plugin's member of this session: a member whose id is the session
 * id and whom no session link has taken yet. Undefined when there is none.
 */
export function oldPluginMember(state: State, sessionId: string): string | undefined {
  if (!isInChannels(state, sessionId)) return undefined;
  const taken = Object.values(state.session_links ?? {}).some((link) => link.member_id === sessionId);
  return taken ? undefined : sessionId;
}

/** Whether the member receives pushes: some membership is an OpenCode-style push member. */
export function isPushMember(state: State, memberId: string): boolean {
  return Object.values(state.channels).some((channel) => channel.members.some((m) =>
    m.session_id === memberId && m.delivery_mode === 'push' && m.surface !== 'api'));
}
