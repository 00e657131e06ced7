// Pieces every install flow shares: the failure type, the member id choice,
// and the server copy in .opencomms/.
import { mkdirSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { isValidMemberId, listPins, NODE_FS, readPin, replaceFile } from '../store';
import { randomHex } from '../store/crypto';
import { bundlePackageJsonPathIn, bundlePathIn, BUNDLE_PACKAGE_JSON, makeExecutable, tryReadBytes } from './bundle';
import { HOST_NAMES, HostName, isHostName } from './targets';

export class InstallFailure extends Error {
  constructor(message: string, readonly exitCode: 1 | 2) {
    super(message);
  }
}

export function checkHost(host: string): HostName {
  if (isHostName(host)) return host;
  throw new InstallFailure(`Unknown host "${host}"; use one of: ${HOST_NAMES.join(', ')}.`, 2);
}

export interface Identity {
  memberId: string;
  /** How the id was chosen, for the summary line. */
  source: string;
  needsPin: boolean;
}

/** --member, else the first id already in our config, else the host's single pin, else a fresh one. */
export function chooseIdentity(projectDir: string, host: HostName, memberFlag: string | undefined,
  existingIds: readonly (string | undefined)[]): Identity {
  const pinned = (id: string): boolean => readPin(projectDir, id) !== undefined;
  if (memberFlag !== undefined) {
    const id = memberFlag.trim();
    if (!isValidMemberId(id)) {
      throw new InstallFailure(`--member ${JSON.stringify(memberFlag)} is not a member id: use 1-64 letters, digits, _ or -, starting with a letter or digit.`, 2);
    }
    return { memberId: id, source: 'from --member', needsPin: !pinned(id) };
  }
  // The id already in this host's config wins, so a second run changes nothing.
  for (const id of existingIds) {
    if (isValidMemberId(id)) return { memberId: id, source: 'already in the config', needsPin: !pinned(id) };
  }
  const pins = listPins(projectDir, host);
  if (pins.length === 1) return { memberId: pins[0].member_id, source: `the ${host} pin`, needsPin: false };
  return { memberId: `sess_${randomHex(12)}`, source: 'new', needsPin: true };
}

export function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true });
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
    path, source: bundlePath, bytes, isCurrent: tryReadBytes(path)?.equals(bytes) === true,
    packageJsonPath, isPackageJsonCurrent: tryReadBytes(packageJsonPath)?.toString('utf8') === BUNDLE_PACKAGE_JSON,
  };
}

export function describeBundleCopy(copy: BundleCopy, write: (text: string) => void): void {
  if (!copy.isCurrent) write(`would write ${copy.path}: a copy of ${copy.source} (${copy.bytes.length} bytes, executable)\n`);
  if (!copy.isPackageJsonCurrent) write(`would write ${copy.packageJsonPath}:\n${BUNDLE_PACKAGE_JSON}`);
}

export function writeBundleCopy(copy: BundleCopy): void {
  ensureDir(dirname(copy.path));
  if (!copy.isCurrent) {
    replaceFile(NODE_FS, copy.path, copy.bytes);
    makeExecutable(copy.path);
  }
  if (!copy.isPackageJsonCurrent) replaceFile(NODE_FS, copy.packageJsonPath, BUNDLE_PACKAGE_JSON);
}

