// Saved sessions: .opencomms/archives/<chn_id>.json, written atomically. The
// record's inner shape belongs to the engine; the store checks only what it
// needs to list and find archives safely. An archive, or its folder, that is a
// link or not ours is refused (fs-port), never read.
import { dirname, join } from 'node:path';
import { tryReadFile } from '../../files/file-read';
import { errnoOf, FsPort, NODE_FS } from '../../files/fs-port';
import { checkOwnDir, ensureOwnDir } from '../../files/own-files';
import { StoreFault, unwritable } from '../../files/faults';
import { isValidChannelId } from '../limits';
import { archiveOfText, isArchiveRecord, type ArchiveRecord } from '../archive-shape';
import { replaceFile } from '../../files/replace-file';
import { STATE_DIR_NAME } from '../../local/state-dir';

/** A saved session as the engine builds it; the store validates only what listing and lookup rely on. */
export type { ArchiveRecord } from '../archive-shape';

function archivesDir(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME, 'archives');
}

function archivePath(projectDir: string, channelId: string): string {
  if (!isValidChannelId(channelId)) throw new Error(`invalid channel id: ${JSON.stringify(channelId)}`);
  return join(archivesDir(projectDir), `${channelId}.json`);
}

/** Writes an archive atomically (creating the directory). Throws on an invalid id or record; I/O trouble is `state_unwritable`. */
export function writeArchive(projectDir: string, archive: ArchiveRecord, port: FsPort = NODE_FS): void {
  if (!isArchiveRecord(archive)) throw new Error('not a valid archive record');
  const path = archivePath(projectDir, archive.channel_id);
  try {
    ensureOwnDir(port, dirname(archivesDir(projectDir)));
    ensureOwnDir(port, archivesDir(projectDir));
    replaceFile(port, path, JSON.stringify(archive));
  } catch (err) {
    throw unwritable('write the archive', path, err);
  }
}

/**
 * One archive, or undefined when the id is invalid, the file is absent, or it
 * fails validation. An archive or folder that is a link or not ours is
 * `state_unwritable`.
 */
export function readArchive(projectDir: string, channelId: string, port: FsPort = NODE_FS): ArchiveRecord | undefined {
  if (!isValidChannelId(channelId)) return undefined;
  try {
    if (!hasArchivesDir(projectDir, port)) return undefined;
  } catch (err) {
    throw unwritable('read the archives in', archivesDir(projectDir), err);
  }
  return readArchiveIn(projectDir, channelId, port);
}

/**
 * Every readable archive, newest first; dotfiles, temp files and broken files
 * are skipped. A folder that cannot be listed (other than absent) is
 * `state_unwritable`, naming it.
 */
export function listArchives(projectDir: string, port: FsPort = NODE_FS): ArchiveRecord[] {
  const dir = archivesDir(projectDir);
  let names: string[];
  try {
    if (!hasArchivesDir(projectDir, port)) return [];
    names = port.readdirSync(dir);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR') return [];
    throw unwritable('list the archives in', dir, err);
  }
  const archives: ArchiveRecord[] = [];
  for (const name of names) {
    if (name.startsWith('.') || !name.endsWith('.json')) continue;
    const channelId = name.slice(0, -'.json'.length);
    const archive = isValidChannelId(channelId) ? readArchiveIn(projectDir, channelId, port) : undefined;
    if (archive) archives.push(archive);
  }
  return archives.sort((a, b) => b.saved_at - a.saved_at);
}

// .opencomms/ and archives/ both real folders of ours (a link is refused); false when either is absent.
function hasArchivesDir(projectDir: string, port: FsPort): boolean {
  const dir = archivesDir(projectDir);
  return checkOwnDir(port, dirname(dir), false) && checkOwnDir(port, dir, false);
}

function readArchiveIn(projectDir: string, channelId: string, port: FsPort): ArchiveRecord | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = tryReadFile(port, archivePath(projectDir, channelId));
  } catch (err) {
    if (err instanceof StoreFault) throw err;
    return undefined; // unreadable: skipped like any broken archive
  }
  return bytes === undefined ? undefined : archiveOfText(bytes.toString('utf8'), channelId);
}

/** The newest archive whose name is `name`, or undefined. */
export function findArchiveByName(projectDir: string, name: string, port: FsPort = NODE_FS): ArchiveRecord | undefined {
  return listArchives(projectDir, port).find((a) => a.name === name);
}

/** Deletes an archive; true when one was removed, false when absent or the id is invalid. */
export function deleteArchive(projectDir: string, channelId: string, port: FsPort = NODE_FS): boolean {
  if (!isValidChannelId(channelId)) return false;
  const path = archivePath(projectDir, channelId);
  try {
    if (!hasArchivesDir(projectDir, port)) return false;
    port.unlinkSync(path);
    return true;
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return false;
    throw unwritable('delete the archive', path, err);
  }
}
