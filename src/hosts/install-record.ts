// What install wrote into each host config file, beside what the file held
// before: from the text alone, part of the user's own (an empty
// "mcpServers": {} that install then filled) cannot be told from what install
// made, so while a file still holds exactly what install left, uninstall gives
// back the recorded bytes. The record is local (.opencomms/ stays out of git);
// without it, or once the file changed, uninstall takes our entries out by
// their structure.
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { STATE_DIR_NAME } from '../store';
import { readOwnBytes, writeOwnFile } from './install-common';

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

/**
 * The bytes the file held before install, when it still holds exactly what
 * install wrote: `{ original: undefined }` when install created it; undefined
 * when there is no such record.
 */
export function recordedOriginal(projectDir: string, path: string, current: string): { original: string | undefined } | undefined {
  const record = readInstallRecord(projectDir);
  const key = relative(projectDir, path);
  const written = Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
  if (written === undefined || written.after !== current || (written.before !== null && typeof written.before !== 'string')) return undefined;
  return { original: written.before ?? undefined };
}

/** Drops the record of files uninstall has taken our entries out of. */
export function forgetInstallWrites(projectDir: string, paths: readonly string[]): void {
  const record = readInstallRecord(projectDir);
  const keys = paths.map((path) => relative(projectDir, path)).filter((key) => Object.prototype.hasOwnProperty.call(record, key));
  if (keys.length === 0) return;
  for (const key of keys) delete record[key];
  saveInstallRecord(projectDir, record);
}
