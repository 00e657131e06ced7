// The board's wake in OpenCode (INTERFACE section 8): a member of this instance that
// the board rang for work (state.board.wakes) is prompted once, while its
// session is idle, with the fixed notice; the wake is taken off the board
// under the lock first, so two instances or two idle events never prompt
// twice. And each turn's system prompt restates the tasks a member holds,
// which carries the claims across compaction as the role does.
import { taskDigest, TASK_READY_NOTICE, type State } from '../engine';
import type { Store } from '../store';
import type { HostClient } from './host-types';

/** The members with a wake waiting, among `memberIds`. */
export function wakedMembers(state: State, memberIds: readonly string[]): string[] {
  const wakes = state.board?.wakes;
  return wakes === undefined ? [] : memberIds.filter((id) => Object.prototype.hasOwnProperty.call(wakes, id));
}

/** Takes the member's wake off the board; resolves whether there was one to take. */
export async function takeWake(store: Store, memberId: string): Promise<boolean> {
  const taken = await store.mutate('push_take_wake', { member: memberId });
  return taken.ok;
}

/** Prompts `sessionId` with the ready-task notice once its member's wake is taken. */
export async function promptWake(store: Store, client: HostClient, memberId: string, sessionId: string): Promise<boolean> {
  if (!(await takeWake(store, memberId))) return false;
  await client.session.prompt({ path: { id: sessionId }, body: { parts: [{ type: 'text', text: `OpenComms: ${TASK_READY_NOTICE}.` }] } });
  return true;
}

/** The claims digest for a turn's system prompt, or nothing when the member holds none. */
export function claimSections(state: State, memberId: string, now: number, nonce: string): string[] {
  const digest = taskDigest(state, memberId, now, nonce);
  return digest === undefined ? [] : [digest];
}
