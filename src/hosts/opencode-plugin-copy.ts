// `install opencode` also puts the OpenCode plugin bundle (dist/opencode-plugin.js)
// at <project>/.opencode/plugin/opencomms.js, where OpenCode loads project
// plugins from. The bundle is looked for next to the running opencomms.js; a
// copy is also kept in .opencomms/ so installing from .opencomms/opencomms.js finds it.
import { rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OPENCODE_PLUGIN_FILE } from '../opencode/project-dir';
import { STATE_DIR_NAME } from '../store';
import { tryReadBytes } from './bundle';

export const OPENCODE_PLUGIN_BUNDLE = 'opencode-plugin.js';

/** One file to bring up to date. */
export interface ByteCopy {
  path: string;
  bytes: Buffer;
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
  const targets = [opencodePluginPathIn(projectDir), join(projectDir, STATE_DIR_NAME, OPENCODE_PLUGIN_BUNDLE)];
  const copies = targets.filter((path) => path !== source && tryReadBytes(path)?.equals(bytes) !== true).map((path) => ({ path, bytes }));
  return { copies };
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
