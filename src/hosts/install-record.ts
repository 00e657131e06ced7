// What install wrote into each host config file, beside what the file held
// before: from the text alone, part of the user's own (an empty
// "mcpServers": {} that install then filled) cannot be told from what install
// made, so while a file still holds exactly what install left, uninstall gives
// back the recorded bytes. The record is local (.opencomms/ stays out of git);
// without it, or once the file changed, uninstall takes our entries out by
// their structure.
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { STATE_DIR_NAME } from '../local/state-dir';
import { readOwnBytes, writeOwnFile } from './install-common';
import { isJsonObject, parseJsonObject } from './json-config';

const WRITES_RECORD_FILE = 'install-record.json';

interface RecordedWrite {
  /** null: install created the file. */
  before: string | null;
  after: string;
}

/** One file install is about to write. */
export interface InstallWrite {
  path: string;
  before: string | undefined;
  after: string;
  /** Whether `before` already held our entries (an older install): then it is not the user's original. */
  hadOurs: boolean;
}

function installRecordPath(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME, WRITES_RECORD_FILE);
}

function readInstallRecord(projectDir: string): Record<string, RecordedWrite> {
  try {
    const parsed: unknown = JSON.parse(readOwnBytes(projectDir, installRecordPath(projectDir))?.toString('utf8') ?? '{}');
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Record<string, RecordedWrite> : {};
  } catch {
    return {}; // a damaged record only costs the exact restore: uninstall goes by structure
  }
}

function saveInstallRecord(projectDir: string, record: Record<string, RecordedWrite>): void {
  if (Object.keys(record).length > 0) writeOwnFile(projectDir, installRecordPath(projectDir), `${JSON.stringify(record, null, 2)}\n`);
  else rmSync(installRecordPath(projectDir), { force: true });
}

/** Notes the writes of one install, keeping the first original of a file install wrote before. */
export function recordInstallWrites(projectDir: string, writes: readonly InstallWrite[]): void {
  if (writes.length === 0) return;
  const record = readInstallRecord(projectDir);
  for (const write of writes) {
    const key = relative(projectDir, write.path);
    const earlier = Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
    if (earlier !== undefined && earlier.after === write.before) record[key] = { before: earlier.before, after: write.after };
    else if (write.hadOurs) delete record[key];
    else record[key] = { before: write.before ?? null, after: write.after };
  }
  saveInstallRecord(projectDir, record);
}

/** A parsed value without the objects and arrays that hold nothing. */
function withoutEmpties(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpties);
  if (!isJsonObject(value)) return value;
  const kept = Object.entries(value).map(([key, inner]) => [key, withoutEmpties(inner)] as const)
    .filter(([, inner]) => !(Array.isArray(inner) ? inner.length === 0 : isJsonObject(inner) && Object.keys(inner).length === 0));
  return Object.fromEntries(kept);
}

/**
 * Whether the recorded original says what uninstall would leave, bar empty
 * containers and layout: .opencomms/ is in the project, so a record may be
 * planted, and it must not make uninstall write any setting of its own.
 */
function agreesWithStructure(original: string, structural: string | undefined): boolean {
  if (original === structural) return true;
  try {
    const left = structural === undefined ? {} : parseJsonObject(structural);
    return JSON.stringify(withoutEmpties(parseJsonObject(original))) === JSON.stringify(withoutEmpties(left));
  } catch {
    return false; // not JSON (the Codex TOML): only the very bytes uninstall would leave
  }
}

/**
 * The bytes the file held before install, when it still holds exactly what
 * install wrote and they agree with `structural` (what uninstall leaves by
 * structure): `{ original: undefined }` when install created the file and
 * nothing of the user's is left; undefined when there is no such record.
 */
export function recordedOriginal(projectDir: string, path: string, current: string, structural: string | undefined): { original: string | undefined } | undefined {
  const record = readInstallRecord(projectDir);
  const key = relative(projectDir, path);
  const written = Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
  if (!isJsonObject(written) || written.after !== current) return undefined;
  if (written.before === null) return structural === undefined ? { original: undefined } : undefined;
  return typeof written.before === 'string' && agreesWithStructure(written.before, structural) ? { original: written.before } : undefined;
}

/** Drops the record of files uninstall has taken our entries out of. */
export function forgetInstallWrites(projectDir: string, paths: readonly string[]): void {
  const record = readInstallRecord(projectDir);
  const keys = paths.map((path) => relative(projectDir, path)).filter((key) => Object.prototype.hasOwnProperty.call(record, key));
  if (keys.length === 0) return;
  for (const key of keys) delete record[key];
  saveInstallRecord(projectDir, record);
}
