// The server copy every config points at: <project>/.opencomms/opencomms.js,
// plus a package.json that keeps it CommonJS inside a "type": "module" project.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATE_DIR_NAME } from '../local/state-dir';

export const BUNDLE_NAME = 'opencomms.js';
export const BUNDLE_PACKAGE_JSON = '{"type":"commonjs"}\n';

export function bundlePathIn(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME, BUNDLE_NAME);
}

export function bundlePackageJsonPathIn(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME, 'package.json');
}

/** The file's bytes, or undefined when it does not exist. Other read errors are thrown. For files outside .opencomms/ (install-common's readOwnBytes reads ours). */
export function tryReadBytes(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** What a bundle's header says it was built from (scripts/build.mjs writes it): the version and the source commit. */
export interface BundleBuild {
  version?: string;
  /** A commit id, or `uncommitted` / `unknown` as scripts/source-commit.mjs names them. */
  commit: string;
}

/** Reads the header of a bundle (its first lines only: nothing of it is run). A file without one is `unknown`. */
export function bundleBuildOf(bytes: Buffer): BundleBuild {
  const head = bytes.subarray(0, 4096).toString('utf8');
  const version = /^\/\/ OpenComms (\S+):/m.exec(head)?.[1];
  const commit = /^\/\/ Source commit: ([0-9a-f]{40,64})$/m.exec(head)?.[1]
    ?? (/^\/\/ Source commit: none\b/m.test(head) ? 'uncommitted' : 'unknown');
  return { ...(version === undefined ? {} : { version }), commit };
}
