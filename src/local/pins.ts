// Member pins: .opencomms/pins/<member_id>.json = {member_id, host, saved_at}.
// The id is checked before it becomes a file name, and a pin whose content
// names another member than its file is ignored (a hand-copied or tampered pin).
// A pin, or its folder, that is a link or not ours is refused (fs-port), never read.
import { dirname, join } from 'node:path';
import { tryReadFile } from '../files/file-read';
import { errnoOf, FsPort, NODE_FS } from '../files/fs-port';
import { checkOwnDir, ensureOwnDir } from '../files/own-files';
import { StoreFault, unwritable } from '../files/faults';
import { replaceFile } from '../files/replace-file';
import { STATE_DIR_NAME } from './state-dir';
import { imitatesPersonId } from '../engine/person';
import { isValidMemberId } from './member-id';

export { isValidMemberId };

export interface PinRecord {
  member_id: string;
  host: string;
  saved_at: number;
}


function pinsDir(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME, 'pins');
}

/** Writes a pin atomically, creating `.opencomms/pins/` when missing. Throws on an invalid id; I/O trouble is `state_unwritable`. */
export function writePin(
  projectDir: string,
  pin: { member_id: string; host: string },
  options: { fs?: FsPort; now?: () => number } = {},
): PinRecord {
  if (!isValidMemberId(pin.member_id)) throw new Error(`invalid member id: ${JSON.stringify(pin.member_id)}`);
  if (imitatesPersonId(pin.member_id)) throw new Error(`member id ${JSON.stringify(pin.member_id)} reads as the person's id, which is reserved for a person: it is never pinned`);
  const port = options.fs ?? NODE_FS;
  const record: PinRecord = { member_id: pin.member_id, host: pin.host, saved_at: (options.now ?? Date.now)() };
  const dir = pinsDir(projectDir);
  const path = join(dir, `${pin.member_id}.json`);
  try {
    ensureOwnDir(port, dirname(dir));
    ensureOwnDir(port, dir);
    replaceFile(port, path, JSON.stringify(record, null, 2) + '\n');
  } catch (err) {
    throw unwritable('write the pin', path, err);
  }
  return record;
}

/**
 * One pin, or undefined when absent, unparseable, invalid or naming another
 * member. A pin or folder that is a link or not ours is `state_unwritable`.
 */
export function readPin(projectDir: string, memberId: string, port: FsPort = NODE_FS): PinRecord | undefined {
  // A person is never pinned: a pin file that reads as the person's id (made by hand) is not read.
  if (!isValidMemberId(memberId) || imitatesPersonId(memberId) || !hasPinsDir(projectDir, port)) return undefined;
  return readPinIn(pinsDir(projectDir), memberId, port);
}

/** Every valid pin, sorted by member id; only those of `host` when given. */
export function listPins(projectDir: string, host?: string, port: FsPort = NODE_FS): PinRecord[] {
  if (!hasPinsDir(projectDir, port)) return [];
  let names: string[];
  try {
    names = port.readdirSync(pinsDir(projectDir));
  } catch (err) {
    if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR') return [];
    throw err;
  }
  const pins: PinRecord[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.json')) continue;
    const id = name.slice(0, -'.json'.length);
    const pin = isValidMemberId(id) && !imitatesPersonId(id) ? readPinIn(pinsDir(projectDir), id, port) : undefined;
    if (pin && (host === undefined || pin.host === host)) pins.push(pin);
  }
  return pins;
}

/** Deletes a pin; true when one was removed. */
export function removePin(projectDir: string, memberId: string, port: FsPort = NODE_FS): boolean {
  if (!isValidMemberId(memberId)) return false;
  const path = join(pinsDir(projectDir), `${memberId}.json`);
  try {
    if (!hasPinsDir(projectDir, port)) return false;
    port.unlinkSync(path);
    return true;
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return false;
    throw unwritable('delete the pin', path, err);
  }
}

// .opencomms/ and pins/ both real folders of ours (a link is refused); false when either is absent.
function hasPinsDir(projectDir: string, port: FsPort): boolean {
  const dir = pinsDir(projectDir);
  return checkOwnDir(port, dirname(dir), false) && checkOwnDir(port, dir, false);
}

function readPinIn(dir: string, memberId: string, port: FsPort): PinRecord | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = tryReadFile(port, join(dir, `${memberId}.json`));
  } catch (err) {
    if (err instanceof StoreFault) throw err;
    return undefined; // unreadable for another reason: ignored like a pin that does not parse
  }
  return bytes === undefined ? undefined : parsePin(bytes.toString('utf8'), memberId);
}

function parsePin(text: string, expectedId: string): PinRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const p = value as Partial<PinRecord> | null;
  if (!p || typeof p !== 'object' || p.member_id !== expectedId || typeof p.host !== 'string') return undefined;
  return { member_id: p.member_id, host: p.host, saved_at: typeof p.saved_at === 'number' ? p.saved_at : 0 };
}
