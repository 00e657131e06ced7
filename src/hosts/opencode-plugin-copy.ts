// `install opencode` also puts the OpenCode plugin bundle (dist/opencode-plugin.js)
// at <project>/.opencode/plugin/opencomms.js, where OpenCode loads project
// plugins from. The bundle is looked for next to the running opencomms.js; a
// copy is also kept in .opencomms/ so installing from .opencomms/opencomms.js finds it.
import { rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OPENCODE_PLUGIN_FILE } from '../opencode/project-dir';
import { STATE_DIR_NAME } from '../local/state-dir';
import { tryReadBytes } from './bundle';
import { ensureDir, readOwnBytes, writeOwnFile } from './install-common';
import { readUserFile, throughNote, writeUserFile, type UserFile } from './user-file';

export const OPENCODE_PLUGIN_BUNDLE = 'opencode-plugin.js';

/** One file to bring up to date. */
export interface ByteCopy {
  path: string;
  bytes: Buffer;
  /** Set for the live copy in .opencode/, a user's folder (written through a link there, as configs are). */
  user?: UserFile;
}

export interface OpencodePluginPlan {
  /** Files whose bytes differ from the plugin bundle (empty when all are current). */
  copies: ByteCopy[];
  /** Set when the plugin bundle was not found: the warning to print. */
  missing?: string;
}

export function opencodePluginPathIn(projectDir: string): string {
  return join(projectDir, OPENCODE_PLUGIN_FILE);
}

export function planOpencodePlugin(projectDir: string, bundlePath: string): OpencodePluginPlan {
  const source = join(dirname(bundlePath), OPENCODE_PLUGIN_BUNDLE);
  const bytes = tryReadBytes(source);
  if (bytes === undefined || bytes.length === 0) {
    return {
      copies: [],
      missing: `the OpenCode plugin bundle ${source} was not found, so ${OPENCODE_PLUGIN_FILE} was not written ` +
        '(MCP tools still work; mail is not pushed when a session goes idle). Run install from dist/opencomms.js to add it.',
    };
  }
  const copies: ByteCopy[] = [];
  const live = opencodePluginPathIn(projectDir);
  if (live !== source) {
    const user = readUserFile(projectDir, live);
    if (user.text !== bytes.toString('utf8')) copies.push({ path: live, bytes, user });
  }
  const spare = join(projectDir, STATE_DIR_NAME, OPENCODE_PLUGIN_BUNDLE);
  if (spare !== source && readOwnBytes(projectDir, spare)?.equals(bytes) !== true) copies.push({ path: spare, bytes });
  return { copies };
}

/** Writes one planned copy: the live one as a user's file, the spare one as ours. */
export function writePluginCopy(projectDir: string, copy: ByteCopy): void {
  if (copy.user === undefined) {
    writeOwnFile(projectDir, copy.path, copy.bytes);
    return;
  }
  ensureDir(dirname(copy.user.realPath));
  writeUserFile(copy.user, copy.bytes);
}

/** " through the link to …" when the copy is written through a link. */
export function pluginCopyNote(copy: ByteCopy): string {
  return copy.user === undefined ? '' : throughNote(copy.user);
}

/** Removes the installed plugin file, then .opencode/plugin/ and .opencode/ when that left them empty. */
export function removeOpencodePlugin(projectDir: string): boolean {
  const path = opencodePluginPathIn(projectDir);
  if (tryReadBytes(path) === undefined) return false;
  unlinkSync(path);
  for (let dir = dirname(path); dir !== projectDir; dir = dirname(dir)) {
    try {
      rmdirSync(dir); // only succeeds when empty
    } catch {
      break;
    }
  }
  return true;
}
