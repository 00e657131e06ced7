// `opencomms install <host>`: the host's config entries, the server copy in
// .opencomms/, the .gitignore lines and, with --apply, the host's own trust.
import { join } from 'node:path';
import { readPin, writePin } from '../local/pins';
import { STATE_DIR_NAME } from '../local/state-dir';
import { installClaudePlugin } from './claude-plugin-install';
import {
  checkHost, chooseFixedIdentity, compileCacheFrom, describeBundleCopy, describeCompileCache, describeIdentity, ensureCompileCacheDir, describePath, failureOf, InstallFailure,
  planBundleCopy, readOwnBytes, writeBundleCopy,
} from './install-common';
import { applyFileChange, printDryRun, readConfigs, type FileChange } from './config-files';
import { GitignoreInstall, planGitignoreInstall } from './gitignore';
import { recordInstallWrites, type InstallWrite } from './install-record';
import { OpencodePluginPlan, planOpencodePlugin, pluginCopyNote, writePluginCopy } from './opencode-plugin-copy';
import { claudePluginDirIn } from './claude-plugin';
import { snippetFor } from './snippets';
import type { ConfigEdit } from './config-edits';
import { ABSOLUTE_PATH_REASON, hookCommand, HostName, Launch } from './launch';
import { chooseStore, describeStore } from './store-choice';
import { trustReminder } from './trust-reminders';
import { throughNote } from './user-file';
import { applyRefusal, planUserTrust, showUserTrust } from './user-trust';

export interface InstallOptions {
  /** Absolute project directory. */
  projectDir: string;
  /** The host name as typed (validated here). */
  host: string;
  /** --member: write this fixed member id (an opt-in; without it no id is written and each session finds its own). */
  memberId?: string;
  dryRun: boolean;
  /** --plugin (claude-code only): install as a Claude Code plugin. */
  plugin: boolean;
  /** --apply: run the host's own commands where that is part of the install. */
  apply: boolean;
  /** --i-have-read-the-project-config: --apply may trust a project whose host config holds what OpenComms did not write. */
  hasReadProjectConfig?: boolean;
  /** --store: `file`, or the Redis store URL (checked here with OPENCOMMS_PROJECT_ID from `env`; no password needed). */
  store?: string;
  /** Absolute path of the opencomms.js that is running (copied into .opencomms/). */
  bundlePath: string;
  version: string;
  /** The environment (for PATH, to find the host CLI that --apply runs); defaults to an empty one. */
  env?: NodeJS.ProcessEnv;
  /** The user's home folder, given when the Node running install has a compile cache (Node ≥ 22.1): the configs then name one there. */
  compileCacheHome?: string;
  write: (text: string) => void;
  warn: (text: string) => void;
  /** How the person starts this program (`opencomms`, `node dist/opencomms.js`): the commands install suggests. */
  command?: string;
}

/** Returns the exit code: 0 done, 1 failure (nothing written), 2 usage. */
export function runInstall(options: InstallOptions): number {
  try {
    return installHosts(options);
  } catch (err) {
    return failureOf(err, options.warn, 'install');
  }
}

/** What changed in one file between `before` and `after`, named for the output: ids taken out, paths replaced. */
function describeRewrite(edit: ConfigEdit, before: string | undefined, after: string | undefined): string[] {
  if (before === undefined || after === undefined) return [];
  const old = edit.ours(before);
  const now = edit.ours(after);
  const notes: string[] = [];
  const dropped = old.memberIds.filter((id) => !now.memberIds.includes(id));
  if (dropped.length > 0) notes.push(`took out ${dropped.map((id) => `OPENCOMMS_MEMBER_ID=${id}`).join(', ')}`);
  if (old.serverScript !== undefined && now.serverScript !== undefined && old.serverScript !== now.serverScript) {
    notes.push(`server ${old.serverScript} → ${now.serverScript}`);
  }
  const oldHooks = old.hookScripts.filter((script) => !now.hookScripts.includes(script));
  if (oldHooks.length > 0 && now.hookScripts.length > 0) notes.push(`hooks ${oldHooks.join(', ')} → ${now.hookScripts.join(', ')}`);
  return notes;
}

function installHosts(options: InstallOptions): number {
  const host = checkHost(options.host);
  if (options.plugin) {
    if (host !== 'claude-code') throw new InstallFailure(`--plugin is only for claude-code, not ${host}.`, 2);
    return installClaudePlugin({ ...options, env: options.env ?? {} });
  }
  const { projectDir, write } = options;
  const files = readConfigs(projectDir, host, 'install');
  const fixed = options.memberId === undefined ? undefined : chooseFixedIdentity(projectDir, options.memberId);
  const store = chooseStore(options.store, options.env ?? {}, files.flatMap((f) => (f.before === undefined ? [] : [f.edit.ours(f.before).store])));
  const launch: Launch = { host, projectDir, memberId: fixed?.memberId, store: store.choice, compileCache: compileCacheFrom(options.compileCacheHome) };

  const changes: FileChange[] = [];
  const droppedIds: string[] = [];
  const writes: InstallWrite[] = [];
  for (const file of files) {
    const after = file.edit.install(file.before, launch);
    if (after === undefined || after === file.before) continue;
    writes.push({ path: file.path, before: file.before, after, hadOurs: file.before !== undefined && file.edit.hasOurs(file.before) });
    const notes = describeRewrite(file.edit, file.before, after);
    for (const id of file.before === undefined ? [] : file.edit.ours(file.before).memberIds) {
      if (id !== launch.memberId && !droppedIds.includes(id)) droppedIds.push(id);
    }
    changes.push({ file: file.file, path: file.path, after, what: notes.length > 0 ? `${file.edit.what}: ${notes.join('; ')}` : file.edit.what });
  }
  const gitignore = planGitignoreInstall(projectDir, host);
  if (gitignore.plan) changes.push({ ...gitignore.plan, what: GITIGNORE_WHAT });
  const copy = planBundleCopy(projectDir, options.bundlePath);
  const opencodePlugin: OpencodePluginPlan = host === 'opencode' ? planOpencodePlugin(projectDir, options.bundlePath) : { copies: [] };
  const snippet = snippetFor(host, launch);
  const afterOf = (rel: string): string | undefined => {
    const path = join(projectDir, rel);
    return changes.find((c) => c.path === path)?.after ?? files.find((f) => f.path === path)?.before;
  };
  const userTrust = planUserTrust(host, projectDir, options.env ?? {}, afterOf, hookCommand(launch));
  const applyMode = { apply: options.apply, dryRun: options.dryRun, hasRead: options.hasReadProjectConfig === true, command: options.command };
  const refusal = options.apply && !options.dryRun && userTrust ? applyRefusal(userTrust, projectDir, applyMode.hasRead) : undefined;
  if (refusal !== undefined) throw new InstallFailure(refusal, 1);
  const isNoop = changes.length === 0 && copy.isCurrent && copy.isPackageJsonCurrent && fixed?.needsPin !== true &&
    opencodePlugin.copies.length === 0;

  if (options.dryRun) {
    write(`Dry run: install ${host} in ${projectDir}; nothing is written.\n`);
    write(describeIdentity(host, fixed, true));
    write(describeStore(host, store));
    write(describeCompileCache(launch.compileCache));
    describeBundleCopy(copy, write);
    for (const change of changes) printDryRun(change, write);
    for (const file of files) if (file.before !== undefined && !changes.some((c) => c.path === file.path)) write(`unchanged ${file.path}\n`);
    for (const plugin of opencodePlugin.copies) write(`would write ${plugin.path}: the OpenCode plugin (${plugin.bytes.length} bytes)\n`);
    if (opencodePlugin.missing) options.warn(`opencomms: ${opencodePlugin.missing}`);
    if (snippet) write(`would print this for ${snippet.where}:\n${snippet.text}`);
    writeNotes(host, files.map((f) => describePath(projectDir, f.path)), gitignore, write);
    if (userTrust) showUserTrust(userTrust, projectDir, applyMode, write, options.warn);
    return 0;
  }

  writeBundleCopy(projectDir, copy);
  if (fixed?.needsPin) writePin(projectDir, { member_id: fixed.memberId, host });
  ensureCompileCacheDir(launch.compileCache);
  recordInstallWrites(projectDir, writes);
  for (const change of changes) applyFileChange(change);
  for (const plugin of opencodePlugin.copies) writePluginCopy(projectDir, plugin);

  write(describeIdentity(host, fixed, false));
  write(describeStore(host, store));
  write(describeCompileCache(launch.compileCache));
  if (isNoop) write(`${host}: already installed in ${projectDir}; nothing changed.\n`);
  else {
    if (!copy.isCurrent) write(`wrote ${describePath(projectDir, copy.path)}\n`);
    for (const change of changes) write(`wrote ${describePath(projectDir, change.path)} (${change.what})${throughNote(change.file)}\n`);
    for (const plugin of opencodePlugin.copies) write(`wrote ${describePath(projectDir, plugin.path)} (the OpenCode plugin)${pluginCopyNote(plugin)}\n`);
  }
  for (const id of droppedIds) {
    const pin = readPin(projectDir, id);
    if (pin) write(`kept ${join(STATE_DIR_NAME, 'pins', `${id}.json`)}: the first ${pin.host} session to start here takes ${id} over, with its channels and mail\n`);
  }
  if (opencodePlugin.missing) options.warn(`opencomms: ${opencodePlugin.missing}`);
  if (snippet) {
    // The JSON snippets show their wrapper so they are valid JSON on their own: say what to merge.
    const [place, ...then] = snippet.where.split(', then ');
    write(snippet.text.startsWith('{')
      ? `Add the "opencomms" entry below to ${place}, beside your other servers (the outer braces only make the snippet valid JSON)${then.length > 0 ? `, then ${then.join(', then ')}` : ''}:\n${snippet.text}`
      : `Paste this into ${snippet.where}:\n${snippet.text}`);
  }
  writeNotes(host, files.map((f) => describePath(projectDir, f.path)), gitignore, write);
  if (host === 'claude-code' && readOwnBytes(projectDir, join(claudePluginDirIn(projectDir), '.claude-plugin', 'plugin.json')) !== undefined) {
    options.warn(`opencomms: ${describePath(projectDir, claudePluginDirIn(projectDir))} (the --plugin install) is there too; with both, every hook runs twice. Keep one: \`opencomms uninstall claude-code\` removes both.`);
  }
  const reminder = trustReminder(host, false);
  if (reminder) write(`${reminder}\n`);
  if (userTrust) showUserTrust(userTrust, projectDir, applyMode, write, options.warn);
  else if (options.apply) options.warn(`opencomms: --apply has nothing to run for ${host}; the files above are the whole install.`);
  return 0;
}

const GITIGNORE_WHAT = 'ignores .opencomms/ but keeps the server copy opencomms.js and its package.json committed; for claude-code, ignores .claude/settings.local.json';

/** The notes after the file list: absolute paths a host needs, and a .gitignore we could not use. */
function writeNotes(host: HostName, files: string[], gitignore: GitignoreInstall, write: (text: string) => void): void {
  const reason = ABSOLUTE_PATH_REASON[host];
  if (reason) {
    const where = files.length === 0 ? 'the entry to paste names' : `${files.join(' and ')} ${files.length === 1 ? 'names' : 'name'}`;
    write(`note: ${where} the project by its absolute path (${reason}); run install again after moving the project, and in each clone.\n`);
  }
  if (gitignore.blockedPath !== undefined) {
    write(`note: ${gitignore.blockedPath} ignores all of .opencomms/, so the server copy there cannot be committed; replace that line with the ones in docs/hosts.md ("Commit or ignore?"), or have each teammate run install.\n`);
  }
}
