// The Claude Code plugin that `install claude-code --plugin` writes to
// <project>/.opencomms/claude-plugin/. The folder is its own local marketplace
// (.claude-plugin/marketplace.json lists the plugin with source "./", which
// Claude Code resolves from the marketplace root), so one folder holds both.
// Files: .claude-plugin/plugin.json (manifest), .mcp.json (our server),
// hooks/hooks.json (the plain install's five hooks plus an asyncRewake Stop
// hook running `hook --wait`), monitors/monitors.json (with --member, a
// monitor running `watch --member ID`, whose every stdout line reaches the
// idle model; without, none: a monitor follows one member, and the rewake
// hook already wakes each session for its own mail). The plugin is registered
// per project path (its marketplace name), so its files name the project by
// its absolute path.
import { sha256Hex } from '../process/crypto';
import { join } from 'node:path';
import { STATE_DIR_NAME } from '../local/state-dir';
import { bundlePathIn } from './bundle';
import { JsonObject, renderJson } from './json-config';
import { CLAUDE_WRITE_TOOLS } from './config-edits';
import { hookCommand, Launch, serverArgs, serverEnv, shellQuote, storePrefix } from './launch';

export const PLUGIN_NAME = 'opencomms';
export const CLAUDE_PLUGIN_DIR_NAME = 'claude-plugin';
const HOOK_TIMEOUT_S = 15;
/** How long one `hook --wait` waits for mail, and the host timeout just above it. */
export const REWAKE_WAIT = '30m';
const REWAKE_TIMEOUT_S = 31 * 60;
export const PLAIN_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'] as const;
const DESCRIPTION = 'OpenComms: messages between the AI coding sessions of this repository (MCP server, hooks, and an idle wake-up).';

/** Relative to the plugin folder; every file the plugin consists of. */
export const PLUGIN_FILES = [
  '.claude-plugin/plugin.json',
  '.claude-plugin/marketplace.json',
  '.mcp.json',
  'hooks/hooks.json',
  'monitors/monitors.json',
] as const;

export function claudePluginDirIn(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME, CLAUDE_PLUGIN_DIR_NAME);
}

/**
 * The marketplace name. Claude Code keeps one marketplace per name for a
 * user, so each project gets its own: "opencomms-" and 8 hex digits of its path.
 */
export function marketplaceNameFor(projectDir: string): string {
  return `opencomms-${sha256Hex(projectDir).slice(0, 8)}`;
}

export function pluginIdFor(projectDir: string): string {
  return `${PLUGIN_NAME}@${marketplaceNameFor(projectDir)}`;
}

export function rewakeCommand(launch: Launch): string {
  return hookCommand(launch, `hook --wait --timeout ${REWAKE_WAIT}`);
}

/** The mail monitor follows one member, so it needs a fixed --member id; undefined without one. */
export function monitorCommand(launch: Launch): string | undefined {
  if (launch.memberId === undefined) return undefined;
  return `OPENCOMMS_MEMBER_ID=${launch.memberId} ${storePrefix(launch)}node ${shellQuote(bundlePathIn(launch.projectDir))} watch --member ${launch.memberId} --project ${shellQuote(launch.projectDir)}`;
}

function pluginHooksJson(launch: Launch): JsonObject {
  const plain = { type: 'command', command: hookCommand(launch), timeout: HOOK_TIMEOUT_S };
  const rewake = { type: 'command', command: rewakeCommand(launch), async: true, asyncRewake: true, timeout: REWAKE_TIMEOUT_S };
  const hooks: JsonObject = {};
  for (const event of PLAIN_HOOK_EVENTS) {
    // The reservation check runs only for Claude Code's file-writing tools.
    const matcher = event === 'PreToolUse' ? { matcher: CLAUDE_WRITE_TOOLS } : {};
    hooks[event] = [{ ...matcher, hooks: event === 'Stop' ? [plain, rewake] : [plain] }];
  }
  return { description: 'OpenComms: deliver pending mail; wake an idle session when mail arrives.', hooks };
}

/** Every file of the plugin, keyed by its path relative to the plugin folder. */
export function pluginFileTexts(launch: Launch, version: string): Record<string, string> {
  const marketplace = marketplaceNameFor(launch.projectDir);
  const env = serverEnv(launch);
  const monitor = monitorCommand(launch);
  return {
    '.claude-plugin/plugin.json': renderJson({
      name: PLUGIN_NAME, version, description: DESCRIPTION, author: { name: 'OpenComms' },
    }),
    '.claude-plugin/marketplace.json': renderJson({
      name: marketplace,
      description: 'The OpenComms plugin of one project, installed from that project.',
      owner: { name: 'OpenComms (local install)' },
      plugins: [{ name: PLUGIN_NAME, source: './', description: DESCRIPTION, version }],
    }),
    '.mcp.json': renderJson({ mcpServers: { opencomms: { type: 'stdio', command: 'node', args: serverArgs(launch), ...(env ? { env } : {}) } } }),
    'hooks/hooks.json': renderJson(pluginHooksJson(launch)),
    'monitors/monitors.json': `${JSON.stringify(monitor === undefined ? [] : [{
      name: 'opencomms-mail',
      command: monitor,
      description: `New OpenComms mail for ${launch.memberId}`,
      when: 'always',
    }], null, 2)}\n`,
  };
}

/** Whether a plugin.json is the one we write (so the folder is ours to remove). */
export function isOurManifest(text: string): boolean {
  try {
    return JSON.parse(text)?.name === PLUGIN_NAME;
  } catch {
    return false;
  }
}

/** The commands that register the marketplace and install the plugin, run from the project (local scope). */
export function claudeInstallCommands(projectDir: string): string[][] {
  return [
    ['plugin', 'marketplace', 'add', claudePluginDirIn(projectDir), '--scope', 'local'],
    ['plugin', 'install', pluginIdFor(projectDir), '--scope', 'local'],
  ];
}

export function claudeUninstallCommands(projectDir: string): string[][] {
  return [
    ['plugin', 'uninstall', pluginIdFor(projectDir), '--scope', 'local'],
    ['plugin', 'marketplace', 'remove', marketplaceNameFor(projectDir)],
  ];
}
