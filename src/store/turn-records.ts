// One small record per host session beside the state (PROTOCOL 4.1):
//   turns/<key>.json   whether the session is running a turn, as its own
//                      hooks last said: busy at a prompt or after a tool,
//                      idle at a Stop or a start, ended at its end.
// The hooks write it, one rename and no lock, never touching state.json, so
// a hook with nothing else to do stays as fast as before; the session's own
// server reads it when mail arrives, to ring the host's door only while the
// session is idle. The key is a hash of the host's session id, so any id
// makes a safe file name. Not fsynced: a crash loses at most one ring.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { checkOwnDir, ensureOwnDir, FsPort, NODE_FS, openOwnFile, tryReadFile, unlinkQuietly, writeAll } from './fs-port';
import { tempPathFor } from './replace-file';
import { STATE_DIR_NAME } from './state-dir';

/** What the session is doing, as its hooks last said. */
export type TurnPhase = 'busy' | 'idle' | 'ended';

export interface TurnRecord {
  phase: TurnPhase;
  /** When the hook wrote it (epoch ms). */
  at: number;
  /** The hook event that said so (UserPromptSubmit, PostToolUse, Stop…). */
  event: string;
}

const PHASES: readonly string[] = ['busy', 'idle', 'ended'];
/** Longest session id we keep a record for: anything longer is not a host's id. */
const MAX_SESSION_ID_CHARS = 256;

function turnsDir(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME, 'turns');
}

function recordPath(projectDir: string, sessionId: string): string | undefined {
  if (sessionId === '' || sessionId.length > MAX_SESSION_ID_CHARS) return undefined;
  const key = createHash('sha256').update(sessionId, 'utf8').digest('hex').slice(0, 32);
  return join(turnsDir(projectDir), `${key}.json`);
}

/** Writes `record` for the host session `sessionId`, replacing the one before. */
export function writeTurnRecord(projectDir: string, sessionId: string, record: TurnRecord, port: FsPort = NODE_FS): void {
  const target = recordPath(projectDir, sessionId);
  if (target === undefined) return;
  const text = JSON.stringify({ phase: record.phase, at: record.at, event: record.event });
  // One lstat: the folder must be a real folder of ours (never a link to elsewhere).
  if (!checkOwnDir(port, turnsDir(projectDir), true)) {
    ensureOwnDir(port, join(projectDir, STATE_DIR_NAME));
    ensureOwnDir(port, turnsDir(projectDir));
  }
  const temp = tempPathFor(target);
  const fd = openOwnFile(port, temp, 'create');
  try {
    writeAll(port, fd, Buffer.from(text, 'utf8'));
  } finally {
    port.closeSync(fd);
  }
  try {
    port.renameSync(temp, target);
  } catch (err) {
    unlinkQuietly(port, temp);
    throw err;
  }
}

/** The last record of the host session `sessionId`, or undefined when its hooks never wrote one (or it does not parse). */
export function readTurnRecord(projectDir: string, sessionId: string, port: FsPort = NODE_FS): TurnRecord | undefined {
  const path = recordPath(projectDir, sessionId);
  if (path === undefined) return undefined;
  let bytes: Buffer | undefined;
  try {
    bytes = tryReadFile(port, path);
  } catch {
    return undefined;
  }
  if (bytes === undefined) return undefined;
  try {
    const value = JSON.parse(bytes.toString('utf8')) as Partial<Record<keyof TurnRecord, unknown>>;
    if (typeof value.phase !== 'string' || !PHASES.includes(value.phase)) return undefined;
    if (typeof value.at !== 'number' || !Number.isFinite(value.at)) return undefined;
    return { phase: value.phase as TurnPhase, at: value.at, event: typeof value.event === 'string' ? value.event : '' };
  } catch {
    return undefined;
  }
}
