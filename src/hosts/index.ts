// Host configuration: install and uninstall OpenComms in a host's config files.
// Every target file is read and checked before anything is written, so a
// malformed file stops the run with the project untouched. Each write is
// atomic on its own; a failure between two writes (a full disk, say) can leave
// the earlier files written, and re-running install finishes the job.
import { mkdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isValidMemberId, listPins, NODE_FS, readPin, replaceFile, writePin } from '../store';
import { randomHex } from '../store/crypto';
import { bundlePackageJsonPathIn, bundlePathIn, BUNDLE_PACKAGE_JSON, makeExecutable, tryReadBytes } from './bundle';
import { ConfigError } from './json-config';
import { snippetFor } from './snippets';
import { CONFIG_EDITS, ConfigEdit, HOST_NAMES, HostName, isHostName, Launch } from './targets';

export interface InstallOptions {
  /** Absolute project directory. */
  projectDir: string;
  /** The host name as typed (validated here). */
  host: string;
  /** --member: use this member id instead of minting a pin. */
  memberId?: string;
  dryRun: boolean;
  /** --plugin (claude-code only): install as a Claude Code plugin. */
  plugin: boolean;
  /** --apply: run the host's own commands where that is part of the install. */
  apply: boolean;
  /** Absolute path of the opencomms.js that is running (copied into .opencomms/). */
  bundlePath: string;
  version: string;
  write: (text: string) => void;
  warn: (text: string) => void;
}

export interface UninstallOptions {
  projectDir: string;
  host: string;
  dryRun: boolean;
  write: (text: string) => void;
  warn: (text: string) => void;
}

interface FileState {
  edit: ConfigEdit;
  path: string;
  before: string | undefined;
}

/** A planned change to one config file: new text, or undefined to delete it. */
interface FileChange {
  path: string;
  after: string | undefined;
  what: string;
}

class InstallFailure extends Error {
  constructor(message: string, readonly exitCode: 1 | 2) {
    super(message);
  }
}

function mintMemberId(): string {
  return `sess_${randomHex(12)}`;
}

function checkHost(host: string): HostName {
  if (isHostName(host)) return host;
  throw new InstallFailure(`Unknown host "${host}"; use one of: ${HOST_NAMES.join(', ')}.`, 2);
}

/** Reads and checks every file of the host; throws InstallFailure naming the first bad one. */
function readConfigs(projectDir: string, host: HostName): FileState[] {
  return CONFIG_EDITS[host].map((edit) => {
    const path = join(projectDir, edit.file);
    let before: string | undefined;
    try {
      before = tryReadBytes(path)?.toString('utf8');
    } catch (err) {
      throw new InstallFailure(`Cannot read ${path} (${(err as Error).message}); fix its permissions and run again. Nothing was changed.`, 1);
    }
    if (before !== undefined) {
      try {
        edit.check(before);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        throw new InstallFailure(`${path} cannot be edited: ${err.message}; fix or move the file and run again. Nothing was changed.`, 1);
      }
    }
    return { edit, path, before };
  });
}

interface Identity {
  memberId: string;
  /** How the id was chosen, for the summary line. */
  source: string;
  needsPin: boolean;
}

function chooseIdentity(options: InstallOptions, host: HostName, files: FileState[]): Identity {
  const pinned = (id: string): boolean => readPin(options.projectDir, id) !== undefined;
  if (options.memberId !== undefined) {
    const id = options.memberId.trim();
    if (!isValidMemberId(id)) {
      throw new InstallFailure(`--member ${JSON.stringify(options.memberId)} is not a member id: use 1-64 letters, digits, _ or -, starting with a letter or digit.`, 2);
    }
    return { memberId: id, source: 'from --member', needsPin: !pinned(id) };
  }
  // The id already in this host's config wins, so a second run changes nothing.
  for (const file of files) {
    const id = file.before === undefined ? undefined : file.edit.readMemberId(file.before);
    if (isValidMemberId(id)) return { memberId: id, source: 'already in the config', needsPin: !pinned(id) };
  }
  const pins = listPins(options.projectDir, host);
  if (pins.length === 1) return { memberId: pins[0].member_id, source: `the ${host} pin`, needsPin: false };
  return { memberId: mintMemberId(), source: 'new', needsPin: true };
}

function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true });
}

function describePath(projectDir: string, path: string): string {
  const rel = relative(projectDir, path);
  return rel.startsWith('..') ? path : rel;
}

function failureOf(err: unknown, warn: (text: string) => void, verb: string): number {
  if (err instanceof InstallFailure) {
    warn(`opencomms: ${err.message}`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  warn(`opencomms: ${verb} stopped: ${message}; fix the cause and run it again.`);
  return 1;
}

function applyChange(change: FileChange): void {
  if (change.after === undefined) {
    unlinkSync(change.path);
    try {
      rmdirSync(dirname(change.path)); // only succeeds when we left the folder empty
    } catch {
      // the folder holds other files: keep it
    }
    return;
  }
  ensureDir(dirname(change.path));
  replaceFile(NODE_FS, change.path, change.after);
}

function printDryRun(change: FileChange, write: (text: string) => void): void {
  if (change.after === undefined) write(`would delete ${change.path}\n`);
  else write(`would write ${change.path}:\n${change.after}${change.after.endsWith('\n') ? '' : '\n'}`);
}

/** Returns the exit code: 0 done, 1 failure (nothing written), 2 usage. */
export function runInstall(options: InstallOptions): number {
  try {
    return install(options);
  } catch (err) {
    return failureOf(err, options.warn, 'install');
  }
}

function install(options: InstallOptions): number {
  const host = checkHost(options.host);
  if (options.plugin) {
    throw new InstallFailure('install --plugin is not available in this build; run the install without --plugin.', 2);
  }
  const { projectDir, write } = options;
  const files = readConfigs(projectDir, host);
  const identity = chooseIdentity(options, host, files);
  const bundle = bundlePathIn(projectDir);
  const launch: Launch = { host, projectDir, bundle, memberId: identity.memberId };

  const changes: FileChange[] = [];
  for (const file of files) {
    const after = file.edit.install(file.before, launch);
    if (after !== file.before) changes.push({ path: file.path, after, what: file.edit.what });
  }
  let bundleBytes: Buffer;
  try {
    bundleBytes = tryReadBytes(options.bundlePath) ?? Buffer.alloc(0);
  } catch (err) {
    throw new InstallFailure(`Cannot read the running bundle ${options.bundlePath} (${(err as Error).message}); run install from dist/opencomms.js.`, 1);
  }
  if (bundleBytes.length === 0) throw new InstallFailure(`The running bundle ${options.bundlePath} is missing or empty; run install from dist/opencomms.js.`, 1);
  const isBundleCurrent = tryReadBytes(bundle)?.equals(bundleBytes) === true;
  const packageJsonPath = bundlePackageJsonPathIn(projectDir);
  const isPackageJsonCurrent = tryReadBytes(packageJsonPath)?.toString('utf8') === BUNDLE_PACKAGE_JSON;
  const snippet = snippetFor(host, launch);
  const isNoop = changes.length === 0 && isBundleCurrent && isPackageJsonCurrent && !identity.needsPin;

  if (options.dryRun) {
    write(`Dry run: install ${host} in ${projectDir}; nothing is written.\n`);
    write(identity.needsPin
      ? `member id ${identity.memberId} (${identity.source}); would pin it as ${host} in ${join('.opencomms', 'pins', `${identity.memberId}.json`)}\n`
      : `member id ${identity.memberId} (${identity.source})\n`);
    if (!isBundleCurrent) write(`would write ${bundle}: a copy of ${options.bundlePath} (${bundleBytes.length} bytes, executable)\n`);
    if (!isPackageJsonCurrent) write(`would write ${packageJsonPath}:\n${BUNDLE_PACKAGE_JSON}`);
    for (const change of changes) printDryRun(change, write);
    for (const file of files) if (!changes.some((c) => c.path === file.path)) write(`unchanged ${file.path}\n`);
    if (snippet) write(`would print this for ${snippet.where}:\n${snippet.text}`);
    return 0;
  }

  ensureDir(dirname(bundle));
  if (!isBundleCurrent) {
    replaceFile(NODE_FS, bundle, bundleBytes);
    makeExecutable(bundle);
  }
  if (!isPackageJsonCurrent) replaceFile(NODE_FS, packageJsonPath, BUNDLE_PACKAGE_JSON);
  if (identity.needsPin) writePin(projectDir, { member_id: identity.memberId, host });
  for (const change of changes) applyChange(change);

  write(`member id ${identity.memberId} (${identity.source}${identity.needsPin ? `, pinned as ${host}` : ''})\n`);
  if (isNoop) write(`${host}: already installed in ${projectDir}; nothing changed.\n`);
  else {
    if (!isBundleCurrent) write(`wrote ${describePath(projectDir, bundle)}\n`);
    for (const change of changes) write(`wrote ${describePath(projectDir, change.path)} (${change.what})\n`);
  }
  if (snippet) write(`Paste this into ${snippet.where}:\n${snippet.text}`);
  if (options.apply) options.warn(`opencomms: --apply has nothing to run for ${host}; the files above are the whole install.`);
  return 0;
}

export function runUninstall(options: UninstallOptions): number {
  try {
    return uninstall(options);
  } catch (err) {
    return failureOf(err, options.warn, 'uninstall');
  }
}

function uninstall(options: UninstallOptions): number {
  const host = checkHost(options.host);
  const { projectDir, write } = options;
  const files = readConfigs(projectDir, host);
  const changes: FileChange[] = [];
  for (const file of files) {
    if (file.before === undefined) continue;
    const after = file.edit.uninstall(file.before);
    if (after !== file.before) changes.push({ path: file.path, after, what: file.edit.what });
  }
  const snippet = snippetFor(host, { host, projectDir, bundle: bundlePathIn(projectDir), memberId: 'x' });
  if (options.dryRun) {
    write(`Dry run: uninstall ${host} from ${projectDir}; nothing is written.\n`);
    for (const change of changes) printDryRun(change, write);
  } else {
    for (const change of changes) {
      applyChange(change);
      write(`${change.after === undefined ? 'removed' : 'updated'} ${describePath(projectDir, change.path)} (took out ${change.what})\n`);
    }
  }
  if (snippet) write(`${host} is configured outside the project: remove the opencomms entry from ${snippet.where.replace(/, then .*$/, '')}.\n`);
  else if (changes.length === 0) write(`${host}: OpenComms is not installed in ${projectDir}; nothing changed.\n`);
  if (!options.dryRun) write('Kept .opencomms/ (state, pins and opencomms.js, which other hosts may still use).\n');
  return 0;
}
