// `install claude-code --plugin` and the plugin half of `uninstall claude-code`.
// The plugin replaces the plain install's .mcp.json entry and
// .claude/settings.json hooks; when those are present too we leave them and
// warn, since both would run (two servers, every hook twice).
import { readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writePin } from '../local/pins';
import { checkOwnDir } from '../files/own-files';
import { NODE_FS } from '../files/fs-port';
import { StoreFault } from '../files/faults';
import { tryReadBytes } from './bundle';
import {
  claudeInstallCommands, claudePluginDirIn, claudeUninstallCommands, isOurManifest, marketplaceNameFor, PLUGIN_FILES,
  pluginFileTexts, pluginIdFor,
} from './claude-plugin';
import { displayCommand, findOnPath, runProgram } from './host-cli';
import {
  chooseFixedIdentity, compileCacheFrom, describeBundleCopy, describeCompileCache, describeIdentity, describePath, ensureCompileCacheDir, InstallFailure,
  planBundleCopy, readOwnBytes, writeBundleCopy, writeOwnFile,
} from './install-common';
import { CONFIG_EDITS } from './config-edits';
import { Launch, storeOfEnv, type StoreChoice } from './launch';
import { chooseStore, describeStore } from './store-choice';
import { isJsonObject, parseJsonObject } from './json-config';
import { trustReminder } from './trust-reminders';

export interface PluginInstallOptions {
  projectDir: string;
  memberId?: string;
  dryRun: boolean;
  apply: boolean;
  /** --store, as given (see store-choice.ts). */
  store?: string;
  bundlePath: string;
  version: string;
  env: NodeJS.ProcessEnv;
  /** As InstallOptions.compileCacheHome. */
  compileCacheHome?: string;
  write: (text: string) => void;
  warn: (text: string) => void;
}

const HOST = 'claude-code';

// A file of the plugin, under .opencomms/: never read through a link (see writeOwnFile).
function readProjectText(projectDir: string, path: string): string | undefined {
  try {
    return readOwnBytes(projectDir, path)?.toString('utf8');
  } catch (err) {
    if (err instanceof StoreFault) throw new InstallFailure(`${err.message}. Nothing was changed.`, 1);
    throw new InstallFailure(`Cannot read ${path} (${(err as Error).message}); fix its permissions and run again. Nothing was changed.`, 1);
  }
}

// One of the plain install's configs, the user's: read only to see whether our entries are in it.
function readUserText(path: string): string | undefined {
  try {
    return tryReadBytes(path)?.toString('utf8');
  } catch (err) {
    throw new InstallFailure(`Cannot read ${path} (${(err as Error).message}); fix its permissions and run again. Nothing was changed.`, 1);
  }
}

/** The plain install's files that still hold our entries. */
function plainInstallFiles(projectDir: string): string[] {
  const files: string[] = [];
  for (const edit of CONFIG_EDITS[HOST].filter((e) => !e.isGrant)) {
    const text = readUserText(join(projectDir, edit.file));
    if (text === undefined) continue;
    try {
      if (edit.uninstall(text) !== text) files.push(edit.file);
    } catch {
      // a file we cannot parse holds nothing we can see; the plugin does not touch it
    }
  }
  return files;
}

function claudeCommandLines(commands: string[][]): string {
  return commands.map((args) => `  ${displayCommand('claude', args)}\n`).join('');
}

export function installClaudePlugin(options: PluginInstallOptions): number {
  const { projectDir, write, warn } = options;
  const pluginDir = claudePluginDirIn(projectDir);
  const manifest = readProjectText(projectDir, join(pluginDir, '.claude-plugin/plugin.json'));
  if (manifest !== undefined && !isOurManifest(manifest)) {
    throw new InstallFailure(`${pluginDir} holds a plugin that is not ours; move it away and run again. Nothing was changed.`, 1);
  }
  const plainFiles = plainInstallFiles(projectDir);
  const fixed = options.memberId === undefined ? undefined : chooseFixedIdentity(projectDir, options.memberId);
  const store = chooseStore(options.store, options.env, [pluginStore(readProjectText(projectDir, join(pluginDir, '.mcp.json')))]);
  const launch: Launch = {
    host: HOST, projectDir, memberId: fixed?.memberId, isAbsolute: true, store: store.choice, compileCache: compileCacheFrom(options.compileCacheHome),
  };
  const texts = pluginFileTexts(launch, options.version);
  const changes = PLUGIN_FILES
    .map((rel) => ({ path: join(pluginDir, rel), after: texts[rel], before: readProjectText(projectDir, join(pluginDir, rel)) }))
    .filter((file) => file.before !== file.after);
  const copy = planBundleCopy(projectDir, options.bundlePath);
  const commands = claudeInstallCommands(projectDir);
  // Look for claude before writing anything, so a failed --apply leaves no half install.
  const claude = options.apply ? findOnPath('claude', options.env) : undefined;
  if (options.apply && claude === undefined) {
    throw new InstallFailure('--apply needs the claude CLI, and none was found on PATH; install Claude Code, or run without --apply to write the plugin and print the commands. Nothing was changed.', 1);
  }

  if (options.dryRun) {
    write(`Dry run: install ${HOST} --plugin in ${projectDir}; nothing is written.\n`);
    write(describeIdentity(HOST, fixed, true));
    write(describeStore(HOST, store));
    write(describeCompileCache(launch.compileCache));
    describeBundleCopy(copy, write);
    for (const change of changes) write(`would write ${change.path}:\n${change.after}`);
    write(`${options.apply ? 'would run' : 'then run'}, from ${projectDir}:\n${claudeCommandLines(commands)}`);
    return 0;
  }

  writeBundleCopy(projectDir, copy);
  if (fixed?.needsPin) writePin(projectDir, { member_id: fixed.memberId, host: HOST });
  ensureCompileCacheDir(launch.compileCache);
  for (const change of changes) writeOwnFile(projectDir, change.path, change.after);
  write(describeIdentity(HOST, fixed, false));
  write(describeStore(HOST, store));
  write(describeCompileCache(launch.compileCache));
  if (changes.length === 0 && copy.isCurrent && fixed?.needsPin !== true) write(`${HOST} plugin: already written in ${describePath(projectDir, pluginDir)}; nothing changed.\n`);
  else for (const change of changes) write(`wrote ${describePath(projectDir, change.path)}\n`);
  write(`note: the plugin names the project by its absolute path (Claude Code registers it per project path); install it again after moving the project.${fixed ? '' : ' It has no mail monitor (that needs a fixed --member); the rewake hook wakes each idle session for its own mail.'}\n`);
  if (plainFiles.length > 0) {
    warn(`opencomms: ${plainFiles.join(' and ')} still hold the plain install's opencomms entries; with the plugin both would run. ` +
      `Run \`opencomms uninstall ${HOST}\` first, then this install again.`);
  }
  const wasInstalled = changes.some((change) => change.before !== undefined);
  if (!options.apply) {
    write(`Add the marketplace and install the plugin (run from ${projectDir}; local scope keeps it to you, in this project):\n${claudeCommandLines(commands)}`);
    if (wasInstalled) write(`Already installed before? Refresh it instead:\n${claudeCommandLines(refreshCommands(projectDir))}`);
    write(`${trustReminder(HOST, true)}\n`);
    return 0;
  }
  for (const args of commands) {
    write(`running: ${displayCommand('claude', args)}\n`);
    const result = runProgram(claude!, args, projectDir, options.env, write, warn);
    if (!result.ok) {
      warn(`opencomms: \`${displayCommand('claude', args)}\` failed (${result.detail}); the plugin files are written, so run the remaining commands by hand from ${projectDir}.`);
      return 1;
    }
  }
  write(`${trustReminder(HOST, true)}\n`);
  return 0;
}

/** The store the plugin's server entry names, if any (an unreadable file names none). */
function pluginStore(text: string | undefined): StoreChoice | undefined {
  if (text === undefined) return undefined;
  try {
    const servers = parseJsonObject(text).mcpServers;
    const entry = isJsonObject(servers) ? servers.opencomms : undefined;
    return isJsonObject(entry) ? storeOfEnv(entry.env) : undefined;
  } catch {
    return undefined;
  }
}

function refreshCommands(projectDir: string): string[][] {
  return [['plugin', 'marketplace', 'update', marketplaceNameFor(projectDir)], ['plugin', 'update', pluginIdFor(projectDir), '--scope', 'local']];
}

/** Removes our plugin folder (only our files, then the folders we emptied); false when there is none of ours. */
export function uninstallClaudePlugin(projectDir: string, dryRun: boolean, write: (text: string) => void, warn: (text: string) => void): boolean {
  const pluginDir = claudePluginDirIn(projectDir);
  const manifest = readProjectText(projectDir, join(pluginDir, '.claude-plugin/plugin.json'));
  if (manifest === undefined) return false;
  if (!isOurManifest(manifest)) {
    warn(`opencomms: ${pluginDir} holds a plugin that is not ours; left it alone.`);
    return false;
  }
  // readText has checked every folder on the way: none is a link, so nothing outside is deleted.
  const present = PLUGIN_FILES.map((rel) => join(pluginDir, rel)).filter((path) => readProjectText(projectDir, path) !== undefined);
  if (dryRun) {
    for (const path of present) write(`would delete ${path}\n`);
  } else {
    for (const path of present) unlinkSync(path);
    for (const dir of ['.claude-plugin', 'hooks', 'monitors', '.'].map((rel) => join(pluginDir, rel))) {
      try {
        if (checkOwnDir(NODE_FS, dir, false) && readdirSync(dir).length === 0) rmdirSync(dir);
      } catch {
        // gone already, or holds files that are not ours: keep it
      }
    }
    write(`removed ${describePath(projectDir, pluginDir)} (the Claude Code plugin)\n`);
  }
  write(`Also take the plugin out of Claude Code (run from ${projectDir}):\n${claudeCommandLines(claudeUninstallCommands(projectDir))}`);
  return true;
}
