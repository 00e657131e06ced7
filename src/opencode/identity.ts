// Who an OpenCode session is on OpenComms. The plugin knows the calling
// session; that session id is looked up in the project's session links
// (engine/session-links.ts) and maps to a member id minted for it, so the
// OpenCode id never routes mail. Only a ROOT session may become a member: a
// subagent (child) session is short-lived and answers to its parent, so
// pushing mail into it would strand the mail when it ends.
import type { MemberOptions, SessionRef } from '../engine';
import { describeFailure } from './error-log';
import type { HostClient, HostPluginInput, HostSession, SdkResult } from './host-types';

/** The host label OpenCode members carry. */
export const OPENCODE_HOST_ID = 'opencode';

/** Where a channel created or joined from this OpenCode instance lives. */
export interface OpenCodeLocation {
  project_id: string;
  worktree: string;
}

/**
 * Project id from OpenCode's project, worktree from its worktree or, when it
 * has none, the directory. OpenCode reports "/" as the worktree of a folder
 * outside git; that would make every such folder one worktree, so the
 * directory stands in for it too.
 */
export function locationOf(input: HostPluginInput): OpenCodeLocation {
  const projectId = typeof input.project?.id === 'string' && input.project.id.trim() !== '' ? input.project.id.trim() : 'local-project';
  const worktree = typeof input.worktree === 'string' && input.worktree.trim() !== '' && input.worktree !== '/' ? input.worktree : input.directory;
  return { project_id: projectId, worktree };
}

/** An OpenCode session as the session-links table knows it. */
export function sessionRefOf(sessionId: string): SessionRef {
  return { kind: 'sid', host: OPENCODE_HOST_ID, id: sessionId };
}

/** How the member of an OpenCode session is reached: pushed into that session, never aged out. */
export function memberOptionsFor(sessionId: string): MemberOptions {
  return {
    host: OPENCODE_HOST_ID,
    surface: 'cli',
    delivery_mode: 'push',
    host_session_id: sessionId,
    host_session_source: 'host',
    // Said outright though it is the default for push (defaultStalePolicy): mail waits for the
    // session's next idle however long its turn runs or OpenCode stays closed (PROTOCOL 7.3).
    stale_policy: { mode: 'none', window_ms: null },
  };
}

export type RootCheck = { ok: true } | { ok: false; reason: 'child_session' | 'session_lookup_failed'; message: string };

function sessionFrom(answer: SdkResult<HostSession> | HostSession | undefined): HostSession | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  if ('error' in answer && answer.error !== undefined && answer.error !== null) throw answer.error;
  if ('data' in answer) return answer.data;
  return 'id' in answer ? (answer as HostSession) : undefined;
}

/**
 * Asks OpenCode whether the session is a root session. Any doubt refuses:
 * an SDK error or an answer without the session fails closed.
 */
export async function checkRootSession(client: HostClient, sessionId: string): Promise<RootCheck> {
  let session: HostSession | undefined;
  try {
    session = sessionFrom(await client.session.get({ path: { id: sessionId } }));
  } catch (err) {
    return { ok: false, reason: 'session_lookup_failed', message: `Could not look up OpenCode session ${sessionId} (${describeFailure(err)}); refused to be safe.` };
  }
  if (!session) {
    return { ok: false, reason: 'session_lookup_failed', message: `OpenCode did not describe session ${sessionId}; refused to be safe.` };
  }
  if (typeof session.parentID === 'string' && session.parentID !== '') {
    return { ok: false, reason: 'child_session', message: 'This is a subagent (child) session; only a root OpenCode session can create or join an OpenComms channel.' };
  }
  return { ok: true };
}
