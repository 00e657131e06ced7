// `opencomms uninstall <host>`: takes out exactly what install wrote, so the
// user's files get back every byte of their own.
import { join } from 'node:path';
import { tryReadBytes } from './bundle';
import { uninstallClaudePlugin } from './claude-plugin-install';
import { checkHost, describePath, failureOf, readOwnBytes } from './install-common';
import { additionsNote, applyFileChange, printDryRun, readConfigs, type FileChange } from './config-files';
import { CLAUDE_GITIGNORE_LINES, GITIGNORE_LINES, hasStateIgnoreBlock, planGitignoreUninstall } from './gitignore';
import { forgetInstallWrites, recordedOriginal } from './install-record';
import { opencodePluginPathIn, removeOpencodePlugin } from './opencode-plugin-copy';
import { claudePluginDirIn } from './claude-plugin';
import { snippetFor } from './snippets';
import { CONFIG_EDITS } from './config-edits';
import { HOST_NAMES, HostName } from './launch';
import { throughNote } from './user-file';
import { removeUserTrust } from './user-trust';

export interface UninstallOptions {
  projectDir: string;
  host: string;
  dryRun: boolean;
  /** The environment (HOME, CODEX_HOME: where --apply wrote a host's trust); defaults to an empty one. */
  env?: NodeJS.ProcessEnv;
  write: (text: string) => void;
  warn: (text: string) => void;
}

export function runUninstall(options: UninstallOptions): number {
  try {
    return uninstall(options);
  } catch (err) {
    return failureOf(err, options.warn, 'uninstall');
  }
}

/** The other hosts whose entries are in the project (a file that cannot be read counts as one). */
function otherInstalls(projectDir: string, host: HostName): string[] {
  const found: string[] = [];
  for (const other of HOST_NAMES) {
    if (other === host) continue;
    const isInstalled = CONFIG_EDITS[other].some((edit) => [edit.file, ...(edit.alternates ?? [])].some((name) => {
      try {
        const text = tryReadBytes(join(projectDir, name))?.toString('utf8');
        return text !== undefined && edit.hasOurs(text);
      } catch {
        return true;
      }
    }));
    if (isInstalled) found.push(other);
  }
  if (host !== 'opencode' && tryReadBytes(opencodePluginPathIn(projectDir)) !== undefined) found.push('opencode');
  if (host !== 'claude-code' && readOwnBytes(projectDir, join(claudePluginDirIn(projectDir), '.claude-plugin', 'plugin.json')) !== undefined) {
    found.push('claude-code --plugin');
  }
  return found;
}

function uninstall(options: UninstallOptions): number {
  const host = checkHost(options.host);
  const { projectDir, write } = options;
  const files = readConfigs(projectDir, host, 'uninstall');
  const changes: FileChange[] = [];
  for (const file of files) {
    if (file.before === undefined) continue;
    // A link is kept: what is left of the file is written through it, even when that is nothing of the user's.
    const isLink = file.file.through !== undefined;
    const structural = file.edit.uninstall(file.before, isLink);
    const recorded = recordedOriginal(projectDir, file.path, file.before, structural);
    const after = recorded && (recorded.original !== undefined || !isLink) ? recorded.original : structural;
    if (after !== file.before) changes.push({ file: file.file, path: file.path, after, what: file.edit.what, note: additionsNote(file) });
  }
  // The state lines stay while another host still keeps its state under .opencomms/.
  const others = hasStateIgnoreBlock(projectDir) ? [...new Set(otherInstalls(projectDir, host))] : [];
  const gitignore = planGitignoreUninstall(projectDir, [...(host === 'claude-code' ? [CLAUDE_GITIGNORE_LINES] : []), ...(others.length === 0 ? [GITIGNORE_LINES] : [])]);
  if (gitignore) changes.push({ ...gitignore, what: others.length === 0 ? 'the OpenComms lines' : `the ${CLAUDE_GITIGNORE_LINES[1]} line` });
  const snippet = snippetFor(host, { host, projectDir });
  const opencodePluginPath = opencodePluginPathIn(projectDir);
  const hasOpencodePlugin = host === 'opencode' && tryReadBytes(opencodePluginPath) !== undefined;
  if (options.dryRun) {
    write(`Dry run: uninstall ${host} from ${projectDir}; nothing is written.\n`);
    for (const change of changes) {
      printDryRun(change, write);
      if (change.note) write(`(${describePath(projectDir, change.path)}: our ${change.what}${change.note})\n`);
    }
    if (hasOpencodePlugin) write(`would delete ${opencodePluginPath}\n`);
  } else {
    forgetInstallWrites(projectDir, files.map((file) => file.path));
    for (const change of changes) {
      applyFileChange(change);
      write(`${change.after === undefined ? 'removed' : 'updated'} ${describePath(projectDir, change.path)} (took out ${change.what})${throughNote(change.file)}${change.note ?? ''}\n`);
    }
    if (hasOpencodePlugin && removeOpencodePlugin(projectDir)) write(`removed ${describePath(projectDir, opencodePluginPath)} (the OpenCode plugin)\n`);
  }
  if (others.length > 0) write(`kept the OpenComms state lines in .gitignore: ${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} still installed here.\n`);
  removeUserTrust(host, projectDir, options.env ?? {}, options.dryRun, write);
  const hadPlugin = host === 'claude-code' && uninstallClaudePlugin(projectDir, options.dryRun, write, options.warn);
  if (snippet) write(`${host} is configured outside the project: remove the opencomms entry from ${snippet.where.replace(/, then .*$/, '')}.\n`);
  else if (changes.length === 0 && !hasOpencodePlugin && !hadPlugin) write(`${host}: OpenComms is not installed in ${projectDir}; nothing changed.\n`);
  if (!options.dryRun) write('Kept .opencomms/ (state, pins and opencomms.js, which other hosts may still use).\n');
  return 0;
}
