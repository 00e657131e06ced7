// After a tool ran (PostToolUse; Gemini CLI AfterTool): the edit goes into
// the member's own edit log, and the lock is taken only when that edit
// collides with another member's (a notice is due); after a shell call, held
// files that changed are reported. Any trouble is a warning, never a broken hook.
import { dueCollisions, membershipsOfMember, COLLISION_WINDOW_MS, type EditRecord, type State } from '../engine';
import { isRecordedProcessAlive } from '../process/liveness';
import { type Store } from '../store';
import { appendEdits, readEdits } from '../local/side-files';
import type { HookEvent } from './events';
import { changedSinceRecord, heldByOthers, shellCallOf, shellRecordKey, shellWriteText } from './shell-check';

/** The other members of every channel `memberId` is in. */
function peersOf(state: State, memberId: string): string[] {
  const peers = new Set<string>();
  for (const channel of Object.values(state.channels)) {
    if (!channel.members.some((m) => m.session_id === memberId)) continue;
    for (const m of channel.members) if (m.session_id !== memberId) peers.add(m.session_id);
  }
  return [...peers];
}

/**
 * Logs the edit of `files` (repo-relative) by `memberId`, then reads its
 * peers' logs: only when a collision notice is due is the state changed
 * (under the lock, where it is judged again). The own edit is logged first,
 * so of two members editing at once at least the later one sees the other.
 */
export async function noteEdits(store: Store, state: State, memberId: string, files: readonly string[], projectDir: string, now: number): Promise<number> {
  if (membershipsOfMember(state, memberId).length === 0) return 0;
  const unique = [...new Set(files)];
  appendEdits(projectDir, memberId, unique.map((file) => ({ file, at: now })), now - COLLISION_WINDOW_MS);
  const edits: EditRecord[] = peersOf(state, memberId).flatMap((peer) => readEdits(projectDir, peer)
    .filter((e) => unique.includes(e.file) && now - e.at < COLLISION_WINDOW_MS)
    .map((e) => ({ file: e.file, member_id: peer, at: e.at })));
  const isAlive = (proc: Parameters<typeof isRecordedProcessAlive>[0]): boolean | undefined => isRecordedProcessAlive(proc);
  if (!unique.some((file) => dueCollisions(state, memberId, file, edits, now, isAlive).length > 0)) return 0;
  const result = await store.mutate('hook_note_collisions', { member: memberId, files: unique, edits }, { member: memberId });
  return result.ok ? result.data.queued : 0;
}

/** Whether the event comes after a tool ran (PostToolUse; Gemini CLI AfterTool). */
export function isAfterTool(event: HookEvent): boolean {
  return event.toolName !== undefined && (event.name === 'PostToolUse' || event.name === 'AfterTool');
}

/**
 * After a shell call, the files held before it that changed during it (its
 * record taken); undefined for any other event. Runs before the state is
 * loaded (see changedSinceRecord). Trouble is a warning: nothing is reported.
 */
export function shellChangesOf(event: HookEvent, cwd: string, envMemberId: string | undefined, projectDir: string, warn: (text: string) => void): string[] | undefined {
  if (!isAfterTool(event) || shellCallOf(event, cwd) === undefined) return undefined;
  try {
    return changedSinceRecord(projectDir, shellRecordKey(event, envMemberId));
  } catch (err) {
    warn(`opencomms: hook could not check held files after a shell call: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/**
 * After a shell call of a session of `host`: of the files it changed
 * (`files`, from changedSinceRecord), those held by others. Their holders get a `system`
 * message each (one locked change, only when there is one to send); the
 * returned text is for the writer's answer, or undefined.
 */
export async function reportShellWrites(store: Store, state: State, host: string, memberId: string | undefined, files: readonly string[], now: number): Promise<string | undefined> {
  if (files.length === 0) return undefined;
  const changed = heldByOthers(state, memberId, files, now);
  if (changed.length === 0) return undefined;
  const held = changed.map(({ file, holders }) => ({ file, holders: holders.map(({ holder, channel }) => ({ holder, channel })) }));
  await store.mutate('hook_shell_writes', { writer: { member: memberId ?? null, host }, changed: held }, memberId === undefined ? undefined : { member: memberId });
  return shellWriteText(changed);
}
