// One small record per host session beside the state (PROTOCOL 4.1):
//   turns/<key>.json   whether the session is running a turn, as its own
//                      hooks last said: busy at a prompt or after a tool,
//                      idle at a Stop or a start, ended at its end.
// The hooks write it, one rename and no lock, never touching state.json, so
// a hook with nothing else to do stays as fast as before; the session's own
// server reads it when mail arrives, to ring the host's door only while the
// session is idle. A host's id of letters, digits, `-` and `_` (a UUID) is
// the file name; any other id is written in hex. Nothing here loads
// node:crypto (a hook with nothing to do must stay cheap). Not fsynced: a
// crash loses at most one ring.
import { basename, join } from 'node:path';
import { tryReadFile } from '../files/file-read';
import { FsPort, NODE_FS } from '../files/fs-port';
import { checkOwnDir, ensureOwnDir } from '../files/own-files';
import { writeRecordFile } from './side-files';
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
/** Longest session id we keep a record for (hex doubles it, within a file name's 255 bytes): anything longer is not a host's id. */
const MAX_TURN_SESSION_CHARS = 100;

function turnsDir(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME, 'turns');
}

const PLAIN_ID = /^[A-Za-z0-9_-]+$/;

function turnRecordPath(projectDir: string, sessionId: string): string | undefined {
  if (sessionId === '' || sessionId.length > MAX_TURN_SESSION_CHARS) return undefined;
  const name = PLAIN_ID.test(sessionId) ? sessionId : `x${Buffer.from(sessionId, 'utf8').toString('hex')}`;
  return join(turnsDir(projectDir), `${name}.json`);
}

/** Writes `record` for the host session `sessionId`, replacing the one before. */
export function writeTurnRecord(projectDir: string, sessionId: string, record: TurnRecord, port: FsPort = NODE_FS): void {
  const target = turnRecordPath(projectDir, sessionId);
  if (target === undefined) return;
  const text = JSON.stringify({ phase: record.phase, at: record.at, event: record.event });
  // One lstat: the folder must be a real folder of ours (never a link to elsewhere).
  if (!checkOwnDir(port, turnsDir(projectDir), true)) {
    ensureOwnDir(port, join(projectDir, STATE_DIR_NAME));
    ensureOwnDir(port, turnsDir(projectDir));
  }
  writeRecordFile(port, turnsDir(projectDir), basename(target, '.json'), text);
}

/** The last record of the host session `sessionId`, or undefined when its hooks never wrote one (or it does not parse). */
export function readTurnRecord(projectDir: string, sessionId: string, port: FsPort = NODE_FS): TurnRecord | undefined {
  const path = turnRecordPath(projectDir, sessionId);
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
