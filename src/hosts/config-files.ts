// A host's config files as install and uninstall see them: every file read
// and checked before anything is written, then each planned change applied
// (or, for --dry-run, printed as the bytes it would write).
import { rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureDir, InstallFailure } from './install-common';
import { ConfigError } from './json-config';
import { strictJsonProblem } from './strict-json';
import { CONFIG_EDITS, ConfigEdit } from './config-edits';
import type { HostName } from './launch';
import { readUserFile, throughNote, writeUserFile, type UserFile } from './user-file';

export interface FileState {
  edit: ConfigEdit;
  file: UserFile;
  path: string;
  before: string | undefined;
}

/** A planned change to one config file: new text, or undefined to delete it. */
export interface FileChange {
  file: UserFile;
  path: string;
  after: string | undefined;
  what: string;
  /** For uninstall: what of the user's went with our entry. */
  note?: string;
}

/** Reads and checks every file of the host; throws InstallFailure naming the first bad one. */
export function readConfigs(projectDir: string, host: HostName, purpose: 'install' | 'uninstall'): FileState[] {
  return CONFIG_EDITS[host].flatMap((edit) => {
    const states = [edit.file, ...(edit.alternates ?? [])].map((name) => readConfig(projectDir, edit, name, purpose));
    const existing = states.filter((state) => state.before !== undefined);
    // Uninstall takes our entry out of every name the host reads; install
    // edits the file that holds it already, else the first that exists.
    if (purpose === 'uninstall') return existing;
    return [existing.find((state) => state.edit.hasOurs(state.before!)) ?? existing[0] ?? states[0]];
  });
}

function readConfig(projectDir: string, edit: ConfigEdit, name: string, purpose: 'install' | 'uninstall'): FileState {
  const path = join(projectDir, name);
  // A link is resolved here, before anything is written: one that cannot be written through stops the run.
  const file = readUserFile(projectDir, path);
  const before = file.text;
  if (before !== undefined) {
    try {
      edit.check(before);
      // Writing our entry into a file its host refuses would start nothing; uninstall still takes ours out.
      const strictProblem = purpose === 'install' ? strictJsonProblem(name, before) : undefined;
      if (strictProblem !== undefined) throw new ConfigError(strictProblem);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      throw new InstallFailure(`${path} cannot be edited: ${err.message}; fix or move the file and run again. Nothing was changed.`, 1);
    }
  }
  return { edit, file, path, before };
}

/** "; it also held what you had added to it, taken out with it: …" when uninstall removes keys of the user's. */
export function additionsNote(file: FileState): string {
  const added = file.before === undefined ? [] : file.edit.userAdditions(file.before);
  return added.length === 0 ? '' : `; that entry also held what you had added to it, removed with it: ${added.join('; ')}`;
}

export function applyFileChange(change: FileChange): void {
  if (change.after === undefined) {
    unlinkSync(change.path);
    try {
      rmdirSync(dirname(change.path)); // only succeeds when we left the folder empty
    } catch {
      // the folder holds other files: keep it
    }
    return;
  }
  ensureDir(dirname(change.file.realPath));
  writeUserFile(change.file, change.after);
}

export function printDryRun(change: FileChange, write: (text: string) => void): void {
  if (change.after === undefined) write(`would delete ${change.path}\n`);
  else write(`would write ${change.path}${throughNote(change.file)}:\n${change.after}${change.after.endsWith('\n') ? '' : '\n'}`);
}
