// Pieces every install flow shares: the failure type, the --member id,
// and the server copy in .opencomms/.
import { mkdirSync } from 'node:fs';
import { imitatesPersonId } from '../engine';
import { dirname, join, relative, sep } from 'node:path';
import { readPin } from '../local/pins';
import { isValidMemberId } from '../local/member-id';
import { replaceFile } from '../files/replace-file';
import { checkOwnDir, ensureOwnDir } from '../files/own-files';
import { NODE_FS, PROGRAM_MODE } from '../files/fs-port';
import { tryReadFile } from '../files/file-read';
import { STATE_DIR_NAME } from '../local/state-dir';
import { bundlePackageJsonPathIn, bundlePathIn, BUNDLE_PACKAGE_JSON, tryReadBytes } from './bundle';
import { COMPILE_CACHE_UNDER_HOME, COMPILE_CACHE_VARIABLE, CompileCacheHome, HOST_NAMES, HostName, isHostName } from './launch';

export class InstallFailure extends Error {
  constructor(message: string, readonly exitCode: 1 | 2) {
    super(message);
  }
}

export function checkHost(host: string): HostName {
  if (isHostName(host)) return host;
  throw new InstallFailure(`Unknown host "${host}"; use one of: ${HOST_NAMES.join(', ')}.`, 2);
}

/** A fixed member id chosen with --member, and whether it still needs a pin. */
export interface FixedIdentity {
  memberId: string;
  needsPin: boolean;
}

/**
 * The --member id, checked. Install writes no id without it: each host
 * session finds its own member when it starts (PROTOCOL 6.1).
 */
export function chooseFixedIdentity(projectDir: string, memberFlag: string): FixedIdentity {
  const id = memberFlag.trim();
  if (!isValidMemberId(id)) {
    throw new InstallFailure(`--member ${JSON.stringify(memberFlag)} is not a member id: use 1-64 letters, digits, _ or -, starting with a letter or digit.`, 2);
  }
  if (imitatesPersonId(id)) {
    throw new InstallFailure(`--member ${JSON.stringify(memberFlag)} reads as the person's id ("person" and a separator, in any letter case), which is reserved for a person at a terminal (opencomms say); an agent host needs an id of its own.`, 2);
  }
  return { memberId: id, needsPin: readPin(projectDir, id) === undefined };
}

/** The identity line of the install output. */
export function describeIdentity(host: string, fixed: FixedIdentity | undefined, dryRun: boolean): string {
  if (!fixed) return `identity: each ${host} session gets a member of its own when it starts; the config names none\n`;
  const pinned = fixed.needsPin ? (dryRun ? `; would pin it as ${host}` : `, pinned as ${host}`) : '';
  return `member id ${fixed.memberId} (from --member${pinned}): every ${host} session here speaks as ${fixed.memberId}; leave --member out to give each session its own\n`;
}

/** The compile cache a written config names, when the Node running install has one (see COMPILE_CACHE_VARIABLE). */
export function compileCacheFrom(home: string | undefined): CompileCacheHome | undefined {
  return home === undefined ? undefined : { home };
}

/**
 * Makes the compile cache folder ahead of the first server or hook, 0700: the
 * code Node keeps there is run by our processes, so only the user may write it.
 */
export function ensureCompileCacheDir(cache: CompileCacheHome | undefined): void {
  if (cache !== undefined) mkdirSync(join(cache.home, COMPILE_CACHE_UNDER_HOME), { recursive: true, mode: 0o700 });
}

/** The install output's compile cache line; '' when none is written. */
export function describeCompileCache(cache: CompileCacheHome | undefined): string {
  if (cache === undefined) return '';
  return `compile cache: ${COMPILE_CACHE_VARIABLE} names ${join(cache.home, COMPILE_CACHE_UNDER_HOME)} (yours, outside the project): Node 22.1 and later keep the compiled server there and start it faster\n`;
}

/** Makes one of the user's folders (host configs): the default mode, as any tool would. */
export function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o777 });
}

// The folders from .opencomms/ down to the one holding `path`.
function ownDirsOf(projectDir: string, path: string): string[] {
  const stateDir = join(projectDir, STATE_DIR_NAME);
  const rel = relative(stateDir, dirname(path));
  const dirs = [stateDir];
  for (const part of rel === '' ? [] : rel.split(sep)) dirs.push(join(dirs[dirs.length - 1], part));
  return dirs;
}

/**
 * Writes a file under .opencomms/ the way the store writes its own: every
 * folder on the way a real private folder of ours, the file private (FILE_MODE
 * unless `mode`), no link followed. Refusals are state_unwritable faults naming the entry.
 */
export function writeOwnFile(projectDir: string, path: string, data: string | Uint8Array, mode?: number): void {
  for (const dir of ownDirsOf(projectDir, path)) ensureOwnDir(NODE_FS, dir);
  replaceFile(NODE_FS, path, data, mode);
}

/** A file under .opencomms/, read without following a link (folders on the way included); undefined when absent. */
export function readOwnBytes(projectDir: string, path: string): Buffer | undefined {
  for (const dir of ownDirsOf(projectDir, path)) if (!checkOwnDir(NODE_FS, dir, false)) return undefined;
  return tryReadFile(NODE_FS, path);
}

export function describePath(projectDir: string, path: string): string {
  const rel = relative(projectDir, path);
  return rel.startsWith('..') ? path : rel;
}

export function failureOf(err: unknown, warn: (text: string) => void, verb: string): number {
  if (err instanceof InstallFailure) {
    warn(`opencomms: ${err.message}`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  warn(`opencomms: ${verb} stopped: ${message}; fix the cause and run it again.`);
  return 1;
}

/** The server copy every config points at, and whether it needs writing. */
export interface BundleCopy {
  /** <project>/.opencomms/opencomms.js */
  path: string;
  source: string;
  bytes: Buffer;
  isCurrent: boolean;
  packageJsonPath: string;
  isPackageJsonCurrent: boolean;
}

export function planBundleCopy(projectDir: string, bundlePath: string): BundleCopy {
  let bytes: Buffer;
  try {
    bytes = tryReadBytes(bundlePath) ?? Buffer.alloc(0);
  } catch (err) {
    throw new InstallFailure(`Cannot read the running bundle ${bundlePath} (${(err as Error).message}); run install from dist/opencomms.js.`, 1);
  }
  if (bytes.length === 0) throw new InstallFailure(`The running bundle ${bundlePath} is missing or empty; run install from dist/opencomms.js.`, 1);
  const path = bundlePathIn(projectDir);
  const packageJsonPath = bundlePackageJsonPathIn(projectDir);
  return {
    path, source: bundlePath, bytes, isCurrent: readOwnBytes(projectDir, path)?.equals(bytes) === true,
    packageJsonPath, isPackageJsonCurrent: readOwnBytes(projectDir, packageJsonPath)?.toString('utf8') === BUNDLE_PACKAGE_JSON,
  };
}

export function describeBundleCopy(copy: BundleCopy, write: (text: string) => void): void {
  if (!copy.isCurrent) write(`would write ${copy.path}: a copy of ${copy.source} (${copy.bytes.length} bytes, mode 0700)\n`);
  if (!copy.isPackageJsonCurrent) write(`would write ${copy.packageJsonPath}:\n${BUNDLE_PACKAGE_JSON}`);
}

export function writeBundleCopy(projectDir: string, copy: BundleCopy): void {
  for (const dir of ownDirsOf(projectDir, copy.path)) ensureOwnDir(NODE_FS, dir);
  if (!copy.isCurrent) replaceFile(NODE_FS, copy.path, copy.bytes, PROGRAM_MODE);
  if (!copy.isPackageJsonCurrent) replaceFile(NODE_FS, copy.packageJsonPath, BUNDLE_PACKAGE_JSON);
}

