// Reading state.json. A file that cannot be loaded is never written over
// unseen: the locked path copies it aside byte for byte first, and the
// lock-free path only reports it.
import { dirname, join } from 'node:path';
import { addError } from '../../engine/error-log';
import { MAX_ERRORS } from '../../engine/constants';
import type { StateCodec } from '../codec';
import { parseStateText, type ParseMemo, type ParsedText } from '../parse';
import { tryReadFileReusing } from '../../files/file-read';
import { errnoOf, FsPort } from '../../files/fs-port';
import { checkOwnDir } from '../../files/own-files';
import { unwritable } from '../../files/faults';
import { createFileExclusive } from '../../files/replace-file';

/** Only the newest entries of state.errors are kept when the store adds one. */
export const ERRORS_KEEP = MAX_ERRORS;
const QUARANTINE_ATTEMPTS = 20;

/** A loaded state plus what the store needs to decide whether to save. */
export interface LoadedState extends ParsedText {
  /** As in ParsedText; the empty state's text when the file was absent. */
  baseline: string | null;
  /** Set when the file was rejected: why, and its exact bytes. */
  rejected?: { reason: string; bytes: Buffer };
  /** Set when there was no state.json at all (the state is the empty one). */
  isAbsent?: true;
  /** The file's commit generation (see splitGeneration), or undefined when it carries none. */
  generation?: number;
  /** The name the save that wrote the file gave itself (see splitGeneration), when it gave one. */
  commit?: string;
}

// The store keeps a commit counter as the first key of state.json,
// `{"generation":N,…`, outside the engine's state: each save writes the
// generation it loaded plus one, and checks just before its rename that the
// file still carries the generation it loaded (the commit fence, store.ts).
// A save may name itself next, `"commit":"<16 hex>"`, fresh for every save:
// changes a holder applied for waiters are answered in advance with that
// name (waiting-changes.ts), and count as committed exactly when the file
// carries it. Being first, both are read from the file's first bytes without
// a parse.
const GENERATION_HEAD = /^\{"generation":(\d{1,15})(?:,"commit":"([0-9a-f]{16})")?(?:,|(?=\}))/;

/** The longest head that can hold the generation and commit keys. */
export const GENERATION_HEAD_BYTES = 64;

/** Splits the store's head off state text: the generation and commit (if any) and the text the codec sees. */
export function splitGeneration(text: string): { generation: number | undefined; commit?: string; body: string } {
  const match = GENERATION_HEAD.exec(text);
  if (!match) return { generation: undefined, body: text };
  return { generation: Number(match[1]), commit: match[2], body: `{${text.slice(match[0].length)}` };
}

/** Codec text with the store's generation (and the save's commit name) put first. */
export function withGeneration(body: string, generation: number, commit?: string): string {
  if (!body.startsWith('{')) return body; // not an object: nothing a loader would accept anyway
  const rest = body.slice(1);
  const head = commit === undefined ? `{"generation":${generation}` : `{"generation":${generation},"commit":"${commit}"`;
  return `${head}${rest.startsWith('}') ? '' : ','}${rest}`;
}

/**
 * Reads and parses `statePath`. Absent → empty; unloadable → empty plus `rejected`. I/O errors are faults,
 * and so is a link, a folder or another user's file in place of the file or its folder (nothing is read).
 * `memo` and `learn` as in parseStateText.
 */
export function readState(port: FsPort, statePath: string, codec: StateCodec, now: number, memo?: ParseMemo, learn = false): LoadedState {
  let bytes: Buffer | undefined;
  try {
    // Neither the folder nor the file may be a link out of the project (fs-port).
    bytes = checkOwnDir(port, dirname(statePath), false) ? tryReadFileReusing(port, statePath) : undefined;
  } catch (err) {
    throw unwritable('read', statePath, err);
  }
  if (bytes === undefined) {
    const state = codec.emptyState();
    return { state, baseline: codec.serializeState(state), isAbsent: true };
  }
  const { generation, commit, body: text } = splitGeneration(bytes.toString('utf8'));
  const parsed = parseStateText(codec, text, now, memo, learn);
  if (parsed.rejection !== undefined) return { ...parsed, rejected: { reason: parsed.rejection, bytes: Buffer.from(bytes) }, generation, commit };
  return { ...parsed, generation, commit };
}

/**
 * Copies rejected state bytes to `state.corrupt-<epoch ms>.json` (never
 * clobbering an earlier copy) and returns the file name. Throws
 * `state_unwritable` if the copy cannot be made, so nothing is written over
 * the original.
 */
export function quarantineState(port: FsPort, stateDir: string, bytes: Buffer, now: number): string {
  for (let attempt = 0; attempt < QUARANTINE_ATTEMPTS; attempt++) {
    const name = attempt === 0 ? `state.corrupt-${now}.json` : `state.corrupt-${now}-${attempt}.json`;
    const path = join(stateDir, name);
    try {
      createFileExclusive(port, path, bytes);
      return name;
    } catch (err) {
      if (errnoOf(err) !== 'EEXIST') throw unwritable('preserve the rejected state as', path, err);
    }
  }
  throw unwritable('find a free quarantine name in', stateDir, undefined);
}

export { addError };
