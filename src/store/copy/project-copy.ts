// A whole project as `opencomms migrate` moves it between stores: the state
// text, the history records and the archives, as the texts each store keeps.
// This half reads and writes the file store's side (.opencomms/), with the
// store's own functions and under its lock; redis-side.ts beside it is the
// Redis side (docs/internals.md "Migrating a project").
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parseArchive } from '../../engine/archives';
import type { SessionArchive } from '../../engine/archive-types';
import type { State } from '../../engine/types';
import { listArchives, readArchive, writeArchive } from '../file/archives';
import type { StateCodec } from '../codec';
import { tryReadFile } from '../../files/file-read';
import { FsPort, NODE_FS } from '../../files/fs-port';
import { checkOwnDir, ensureOwnDir } from '../../files/own-files';
import { HistoryLog } from '../file/history';
import { isValidChannelId } from '../limits';
import { archiveOfText } from '../archive-shape';
import { BoardHistoryLog } from '../file/board-history';
import { readState, splitGeneration, withGeneration } from '../file/load';
import { claimLock, releaseLock } from '../file/lock';
import { replaceFile } from '../../files/replace-file';
import { STATE_DIR_NAME } from '../../local/state-dir';

/** A project in transit. Every text is exactly what the target store will hold. */
export interface ProjectCopy {
  /** The live state as the codec writes it: state.json without its generation head. */
  state: string;
  /** False when the source held no state (then `state` is the empty state's text). */
  hasState: boolean;
  /** Finished envelopes by channel id, oldest first, each record's JSON (one history line). */
  history: Map<string, string[]>;
  /** Tasks that left the board, oldest first, each task's JSON (one line of history/board.jsonl). */
  board: string[];
  /** Saved sessions by channel id: the archive record's JSON. */
  archives: Map<string, string>;
  /** Every channel id the source mentions: the history a target must not hold already. */
  channelIds: string[];
  /** How many channels and live messages the state holds (for the report). */
  channels: number;
  messages: number;
  /** Source entries that do not load and were left behind. */
  skipped: number;
}

export type MigrationRefusalReason = 'source_empty' | 'source_unloadable' | 'source_changed' | 'target_has_state' | 'target_missing' | 'copy_mismatch';

/** A migration that stopped, with what to do; the CLI prints the message and exits 1. */
export class MigrationRefused extends Error {
  constructor(readonly reason: MigrationRefusalReason, message: string) {
    super(message);
    this.name = 'MigrationRefused';
  }
}

/**
 * Builds a copy from parsed parts: the channel ids it mentions come from the
 * state's channels and live messages, the history and the archives.
 */
export function assembleCopy(parts: {
  state: State; text: string; hasState: boolean; history: Map<string, string[]>; board: string[]; archives: Map<string, string>; skipped: number;
}): ProjectCopy {
  const ids = new Set<string>();
  for (const channel of Object.values(parts.state.channels)) ids.add(channel.id);
  for (const envelope of Object.values(parts.state.messages)) ids.add(envelope.channel_id);
  for (const id of parts.history.keys()) ids.add(id);
  for (const id of parts.archives.keys()) ids.add(id);
  return {
    state: parts.text,
    hasState: parts.hasState,
    history: parts.history,
    board: parts.board,
    archives: parts.archives,
    channelIds: [...ids].filter(isValidChannelId).sort(),
    channels: Object.keys(parts.state.channels).length,
    messages: Object.keys(parts.state.messages).length,
    skipped: parts.skipped,
  };
}

/**
 * The archive JSON as written (not normalized) when the engine reads it as an
 * archive of channel `id`, else undefined.
 */
export function parseArchiveText(text: string, id: string): SessionArchive | undefined {
  const value = archiveOfText(text, id);
  return value !== undefined && isValidChannelId(id) && parseArchive(value) !== undefined ? value : undefined;
}

export interface FileSide {
  projectDir: string;
  codec: StateCodec;
  port?: FsPort;
  now?: () => number;
}

function pathsOf(projectDir: string): { stateDir: string; statePath: string; lockPath: string; historyDir: string; archivesDir: string } {
  const stateDir = join(projectDir, STATE_DIR_NAME);
  return {
    stateDir,
    statePath: join(stateDir, 'state.json'),
    lockPath: join(stateDir, '.state.lock'),
    historyDir: join(stateDir, 'history'),
    archivesDir: join(stateDir, 'archives'),
  };
}

// The channel ids of the entries named `<id><suffix>` in a folder of ours (none when it is absent).
function idsIn(port: FsPort, dir: string, suffix: string): string[] {
  if (!checkOwnDir(port, dir, false)) return [];
  return port.readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .map((name) => name.slice(0, -suffix.length))
    .filter(isValidChannelId)
    .sort();
}

/**
 * Reads a file-store project under its lock (so no change lands halfway
 * through), touching nothing: undefined when it holds no state, history or
 * archive. A state.json that does not load is refused, not copied.
 */
export async function readFileProject(side: FileSide): Promise<ProjectCopy | undefined> {
  const port = side.port ?? NODE_FS;
  const paths = pathsOf(side.projectDir);
  if (!checkOwnDir(port, paths.stateDir, false)) return undefined;
  const lock = await claimLock({ port, lockPath: paths.lockPath, host: hostname() });
  try {
    const loaded = readState(port, paths.statePath, side.codec, (side.now ?? Date.now)());
    if (loaded.rejected) {
      throw new MigrationRefused('source_unloadable',
        `${paths.statePath} does not load (${loaded.rejected.reason}), so nothing was copied. Run "opencomms doctor --project ${side.projectDir}" and fix the state first`);
    }
    const log = new HistoryLog({ port, historyDir: paths.historyDir });
    const history = new Map<string, string[]>();
    for (const id of idsIn(port, paths.historyDir, '.jsonl')) {
      const records = log.list(id);
      if (records.length > 0) history.set(id, records.map((r) => JSON.stringify(r)));
    }
    const archives = new Map<string, string>();
    for (const archive of listArchives(side.projectDir, port)) {
      const text = JSON.stringify(archive);
      if (parseArchiveText(text, archive.channel_id)) archives.set(archive.channel_id, text);
    }
    const skipped = idsIn(port, paths.archivesDir, '.json').length - archives.size;
    const board = new BoardHistoryLog(port, paths.historyDir).list(Infinity).map((t) => JSON.stringify(t));
    if (loaded.isAbsent && history.size === 0 && board.length === 0 && archives.size === 0) return undefined;
    return assembleCopy({
      state: loaded.state, text: loaded.baseline!, hasState: !loaded.isAbsent, history, board, archives, skipped,
    });
  } finally {
    releaseLock(port, lock);
  }
}

/**
 * Writes a copy into a project whose .opencomms/ holds no project yet, under
 * the file store's lock: history logs and archives first, state.json last, in
 * the store's formats and modes; then reads everything back and compares.
 * Returns the mismatches (none when the copy is exact).
 */
export async function writeFileProject(side: FileSide, copy: ProjectCopy): Promise<string[]> {
  const port = side.port ?? NODE_FS;
  const paths = pathsOf(side.projectDir);
  if (!port.statIfExists(side.projectDir)?.isDirectory()) {
    throw new MigrationRefused('target_missing', `${side.projectDir} is not a folder: create the project folder (or pass --project DIR), then run migrate again`);
  }
  ensureOwnDir(port, paths.stateDir);
  const lock = await claimLock({ port, lockPath: paths.lockPath, host: hostname() });
  try {
    refuseHeldTarget(port, paths);
    const log = new HistoryLog({ port, historyDir: paths.historyDir });
    if (copy.history.size > 0 || copy.board.length > 0) ensureOwnDir(port, paths.historyDir);
    for (const [id, records] of copy.history) replaceFile(port, log.pathOf(id), linesOf(records));
    if (copy.board.length > 0) replaceFile(port, new BoardHistoryLog(port, paths.historyDir).path, linesOf(copy.board));
    // Each archive was checked when it was read (parseArchiveText).
    for (const [id, text] of copy.archives) writeArchive(side.projectDir, parseArchiveText(text, id)!, port);
    replaceFile(port, paths.statePath, withGeneration(copy.state, 1));
    return compareFiles(side.projectDir, port, copy);
  } finally {
    releaseLock(port, lock);
  }
}

/**
 * Refuses (MigrationRefused `target_has_state`) a project folder whose
 * .opencomms/ holds a project already. writeFileProject checks again under
 * the lock; this lets a caller stop before reading the source.
 */
export function refuseHeldFileTarget(side: Pick<FileSide, 'projectDir' | 'port'>): void {
  const port = side.port ?? NODE_FS;
  const paths = pathsOf(side.projectDir);
  if (checkOwnDir(port, paths.stateDir, false)) refuseHeldTarget(port, paths);
}

function refuseHeldTarget(port: FsPort, paths: ReturnType<typeof pathsOf>): void {
  const held: string[] = [];
  if (port.lstatIfExists(paths.statePath) !== undefined) held.push('state.json');
  const logs = idsIn(port, paths.historyDir, '.jsonl').length;
  if (logs > 0) held.push(`${logs} history log${logs === 1 ? '' : 's'}`);
  if (port.lstatIfExists(new BoardHistoryLog(port, paths.historyDir).path) !== undefined) held.push('the board\'s history');
  const archives = idsIn(port, paths.archivesDir, '.json').length;
  if (archives > 0) held.push(`${archives} archive${archives === 1 ? '' : 's'}`);
  if (held.length === 0) return;
  throw new MigrationRefused('target_has_state',
    `${paths.stateDir} already holds a project (${held.join(', ')}), so nothing was copied: migrate only fills an empty target. Move state.json, history/ and archives/ out of ${paths.stateDir} (or pass another --project), then run it again`);
}

function linesOf(records: readonly string[]): string {
  let text = '';
  for (const record of records) text += `${record}\n`;
  return text;
}

// Reads back what writeFileProject wrote, byte for byte where the format is
// ours (state.json, the logs) and through the store's reader for archives.
function compareFiles(projectDir: string, port: FsPort, copy: ProjectCopy): string[] {
  const paths = pathsOf(projectDir);
  const mismatches: string[] = [];
  const stateBytes = tryReadFile(port, paths.statePath);
  const { generation, body } = splitGeneration(stateBytes?.toString('utf8') ?? '');
  if (stateBytes === undefined || generation !== 1 || body !== copy.state) mismatches.push(`${paths.statePath} does not hold the copied state`);
  const log = new HistoryLog({ port, historyDir: paths.historyDir });
  for (const [id, records] of copy.history) {
    if (tryReadFile(port, log.pathOf(id))?.toString('utf8') !== linesOf(records)) mismatches.push(`${log.pathOf(id)} does not hold the ${records.length} copied records`);
  }
  const boardPath = new BoardHistoryLog(port, paths.historyDir).path;
  if (copy.board.length > 0 && tryReadFile(port, boardPath)?.toString('utf8') !== linesOf(copy.board)) mismatches.push(`${boardPath} does not hold the ${copy.board.length} copied tasks`);
  for (const [id, text] of copy.archives) {
    const back = readArchive(projectDir, id, port);
    if (back === undefined || JSON.stringify(back) !== JSON.stringify(JSON.parse(text))) mismatches.push(`the archive ${id} does not read back as copied`);
  }
  return mismatches;
}
