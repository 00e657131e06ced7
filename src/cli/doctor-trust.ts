// doctor's trust checks: for each host installed in the project, whether the
// host would really run what install wrote. A host that has not approved our
// server, granted our tools or trusted our hooks refuses them, and headless
// runs (`claude -p`, `codex exec`) refuse without a word. Each problem names
// the one command that fixes it. The user's own host files are read from
// HOME (CODEX_HOME for Codex), never written.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Check } from '../store';
import { STATE_DIR_NAME } from '../local/state-dir';
import { CONFIG_EDITS } from '../hosts/config-edits';
import { CLAUDE_ALLOW_RULE, CLAUDE_LOCAL_SETTINGS, grantsOf, isOpencommsGrant } from '../hosts/claude-permissions';
import { codexTrustEntries, readCodexTrust, strayCodexTrust } from '../hosts/codex-trust';
import { readGeminiTrust } from '../hosts/gemini-trust';
import { isJsonObject, parseJsonObject, type JsonObject } from '../hosts/json-config';
import type { HostName } from '../hosts/launch';
import { OPENCODE_PLUGIN_BUNDLE, opencodePluginPathIn } from '../hosts/opencode-plugin-copy';
import { showText } from '../hosts/project-review';
import { codexUserConfigPath, geminiTrustPath, homeOf } from '../hosts/user-trust';

/** A trust finding: a Check, with the stable reason of a problem and the command that fixes it. */
export interface TrustCheck extends Check {
  /** The one command that fixes the problem (absent when it is fine, or when only a hand edit can). */
  fix?: string;
}

export interface TrustCheckOptions {
  projectDir: string;
  /** HOME and CODEX_HOME: where the hosts keep their user settings. */
  env: NodeJS.ProcessEnv;
  /** The running opencomms.js, beside which the shipped OpenCode plugin lies. */
  bundlePath?: string;
}

function readIfThere(path: string): string | undefined {
  try {
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

function jsonAt(path: string): JsonObject | undefined {
  const text = readIfThere(path);
  if (text === undefined) return undefined;
  try {
    return parseJsonObject(text);
  } catch {
    return undefined;
  }
}

/** Whether the project holds our entries for `host`, as install wrote them. */
function isHostInstalled(projectDir: string, host: HostName): boolean {
  return CONFIG_EDITS[host].filter((edit) => !edit.isGrant).some((edit) => [edit.file, ...(edit.alternates ?? [])].some((name) => {
    const text = readIfThere(join(projectDir, name));
    try {
      return text !== undefined && edit.hasOurs(text);
    } catch {
      return false;
    }
  }));
}

function trustProblem(name: string, reason: string, message: string, fix?: string): TrustCheck {
  return { name, status: 'fail', reason, message: fix === undefined ? message : `${message} Fix: \`${fix}\``, ...(fix === undefined ? {} : { fix }) };
}

export function checkTrust(options: TrustCheckOptions): TrustCheck[] {
  const { projectDir } = options;
  const checks: TrustCheck[] = [];
  if (isHostInstalled(projectDir, 'claude-code')) checks.push(...checkClaude(options));
  if (isHostInstalled(projectDir, 'codex')) checks.push(checkCodex(options));
  if (isHostInstalled(projectDir, 'gemini-cli')) checks.push(checkGemini(options));
  const opencode = checkOpencode(options);
  if (opencode) checks.push(opencode);
  return checks;
}

function checkClaude({ projectDir, env }: TrustCheckOptions): TrustCheck[] {
  const home = homeOf(env);
  const files = [
    { shown: CLAUDE_LOCAL_SETTINGS, doc: jsonAt(join(projectDir, CLAUDE_LOCAL_SETTINGS)), grantsTools: true },
    { shown: '.claude/settings.json', doc: jsonAt(join(projectDir, '.claude', 'settings.json')), grantsTools: false },
    { shown: '~/.claude/settings.json', doc: jsonAt(join(home, '.claude', 'settings.json')), grantsTools: true },
  ];
  const install = 'opencomms install claude-code';
  const listOf = (doc: JsonObject | undefined, ...path: string[]): unknown[] => {
    let value: unknown = doc;
    for (const key of path) value = isJsonObject(value) ? value[key] : undefined;
    return Array.isArray(value) ? value : [];
  };
  const checks: TrustCheck[] = [];

  // Tools: headless claude refuses every MCP tool no allow rule grants (and reads none from the committed settings.json).
  const denied = files.find((f) => listOf(f.doc, 'permissions', 'deny').some((rule) => typeof rule === 'string' && (isOpencommsGrant(rule) || rule.startsWith(`${CLAUDE_ALLOW_RULE}__`))));
  const granting = files.find((f) => f.grantsTools && f.doc !== undefined && grantsOf(f.doc).allows);
  if (denied) {
    checks.push(trustProblem('claude-code tools', 'claude_tools_denied', `${denied.shown} denies OpenComms tools in permissions.deny: Claude Code refuses them. Take that rule out of ${denied.shown}.`));
  } else if (granting) {
    checks.push({ name: 'claude-code tools', status: 'ok', message: `${granting.shown} allows ${CLAUDE_ALLOW_RULE} (headless claude -p may call the OpenComms tools)` });
  } else {
    const onlyCommitted = files[1].doc !== undefined && grantsOf(files[1].doc).allows;
    checks.push(trustProblem('claude-code tools', 'claude_tools_not_allowed',
      `no allow rule grants the OpenComms tools${onlyCommitted ? ' (.claude/settings.json has one, but Claude Code does not take it from that file)' : ''}: headless \`claude -p\` and spawn-push resumes refuse every one ("you haven't granted it yet").`, install));
  }

  // The project .mcp.json server: approved in settings, or in ~/.claude.json for this project.
  const project = jsonAt(join(home, '.claude.json'))?.projects;
  const projectState = isJsonObject(project) && isJsonObject(project[projectDir]) ? project[projectDir] as JsonObject : undefined;
  const disabled = [...files.map((f) => f.doc), projectState].some((doc) => listOf(doc, 'disabledMcpjsonServers').includes('opencomms'));
  const approvedIn = files.find((f) => f.doc !== undefined && grantsOf(f.doc).approves)?.shown ??
    (listOf(projectState, 'enabledMcpjsonServers').includes('opencomms') ? '~/.claude.json' : undefined);
  if (disabled) {
    checks.push(trustProblem('claude-code server approval', 'claude_server_disabled', 'the .mcp.json server "opencomms" is in disabledMcpjsonServers: Claude Code does not start it. Take it out of that list (or enable it in /mcp).'));
  } else if (approvedIn) {
    checks.push({ name: 'claude-code server approval', status: 'ok', message: `${approvedIn} approves the .mcp.json server "opencomms"` });
  } else {
    checks.push(trustProblem('claude-code server approval', 'claude_server_not_approved',
      'nothing approves the .mcp.json server "opencomms": an interactive claude shows it as "Pending approval" and starts without it until you approve it.', install));
  }

  // Claude Code's own cross-session messages: a setting that holds or refuses them would hold our notices too.
  const inbound = files.find((f) => f.doc?.crossSessionInbound === 'hold' || f.doc?.crossSessionInbound === 'refuse');
  if (inbound) {
    checks.push({
      name: 'claude-code messaging', status: 'warn', reason: 'claude_inbound_held',
      message: `${inbound.shown} sets crossSessionInbound to "${String(inbound.doc!.crossSessionInbound)}": messages from other sessions wait for a person (or are dropped). Set it to "accept" there, or leave it out, for notices to arrive.`,
    });
  }
  return checks;
}

function checkCodex({ projectDir, env }: TrustCheckOptions): TrustCheck {
  const name = 'codex trust';
  const fix = 'opencomms install codex --apply';
  const path = codexUserConfigPath(env);
  let entries;
  try {
    entries = codexTrustEntries(projectDir, readIfThere(join(projectDir, '.codex', 'hooks.json')));
  } catch {
    return trustProblem(name, 'codex_hooks_unreadable', '.codex/hooks.json is not JSON Codex can read.', 'opencomms install codex');
  }
  const text = readIfThere(path) ?? '';
  let findings;
  let stray;
  try {
    findings = readCodexTrust(text, entries);
    stray = strayCodexTrust(text, projectDir, entries);
  } catch (err) {
    return trustProblem(name, 'codex_config_unreadable', `${path} cannot be followed (${(err as Error).message}); check that the project and hooks are trusted there by hand (\`opencomms install codex\` prints the lines).`);
  }
  if (stray.length > 0) {
    return trustProblem(name, 'codex_foreign_hook_trusted',
      `${path} trusts, in the block an earlier \`install codex --apply\` wrote, ${stray.length === 1 ? 'a hook' : `${stray.length} hooks`} that install did not write: ${stray.map((key) => showText(JSON.stringify(key))).join(', ')}. Codex runs ${stray.length === 1 ? 'it' : 'them'} without asking. Running --apply again rewrites the block without ${stray.length === 1 ? 'it' : 'them'}.`,
      fix);
  }
  const bad = findings.filter((f) => f.state !== 'trusted');
  if (bad.length === 0) return { name, status: 'ok', message: `${path} trusts the project and its ${entries.length - 1} OpenComms hooks` };
  const says = bad.map((f) => `${f.entry.label} ${f.state === 'missing' ? 'is not trusted' : f.state === 'disabled' ? 'is turned off' : f.entry.name === 'trust_level' ? `is "${f.found ?? '?'}", not trusted` : 'changed since it was trusted'}`);
  const onlyByHand = bad.every((f) => f.state === 'disabled' || (f.state === 'different' && f.entry.name === 'trust_level'));
  return trustProblem(name, 'codex_not_trusted',
    `in ${path}: ${says.join('; ')}. Codex skips untrusted project config and hooks without a word (\`codex exec\` never asks).${onlyByHand ? ' Change those lines there yourself.' : ''}`,
    onlyByHand ? undefined : fix);
}

/**
 * Whether Codex would run this project's hooks, judged as `checkCodex` judges
 * them (each hook's trust line and hash): "unknown" when the user's Codex
 * config is absent or cannot be followed (no Codex here, most often).
 */
export function codexHookTrust(projectDir: string, env: NodeJS.ProcessEnv): 'trusted' | 'untrusted' | 'unknown' {
  const text = readIfThere(codexUserConfigPath(env));
  if (text === undefined) return 'unknown';
  try {
    const entries = codexTrustEntries(projectDir, readIfThere(join(projectDir, '.codex', 'hooks.json')));
    return readCodexTrust(text, entries).every((f) => f.state === 'trusted') ? 'trusted' : 'untrusted';
  } catch {
    return 'unknown';
  }
}

function checkGemini({ projectDir, env }: TrustCheckOptions): TrustCheck {
  const name = 'gemini-cli folder trust';
  const settings = jsonAt(join(homeOf(env), '.gemini', 'settings.json'));
  const security = settings?.security;
  const folderTrust = isJsonObject(security) ? security.folderTrust : undefined;
  if (isJsonObject(folderTrust) && folderTrust.enabled === false) return { name, status: 'ok', message: '~/.gemini/settings.json turns folder trust off: every folder is trusted' };
  const path = geminiTrustPath(env);
  let state;
  try {
    state = readGeminiTrust(readIfThere(path), projectDir);
  } catch (err) {
    return trustProblem(name, 'gemini_trust_unreadable', `${path} is not JSON (${(err as Error).message}); Gemini CLI trusts no folder from it.`);
  }
  if (state === 'trusted') return { name, status: 'ok', message: `${path} trusts this folder` };
  if (state === 'distrusted') return trustProblem(name, 'gemini_folder_distrusted', `${path} marks this folder DO_NOT_TRUST: Gemini CLI starts no MCP server and runs no hook here. Change that entry yourself.`);
  return trustProblem(name, 'gemini_folder_not_trusted', `${path} does not trust this folder: Gemini CLI starts no MCP server and runs no hook here.`, 'opencomms install gemini-cli --apply');
}

// A module the plugin loads that is neither ours nor Node's would have to come from a registry.
const FOREIGN_IMPORT = /\brequire\(\s*["'](?!node:)([^"'./][^"']*)["']\s*\)|\bimport\s[^;]*?from\s*["'](?!node:)([^"'./][^"']*)["']/;

function checkOpencode({ projectDir, bundlePath }: TrustCheckOptions): TrustCheck | undefined {
  const live = opencodePluginPathIn(projectDir);
  const spare = join(projectDir, STATE_DIR_NAME, OPENCODE_PLUGIN_BUNDLE);
  const installed = readIfThere(live);
  if (installed === undefined && readIfThere(spare) === undefined) return undefined;
  const name = 'opencode plugin';
  if (installed === undefined) return trustProblem(name, 'opencode_plugin_missing', '.opencode/plugin/opencomms.js is gone: OpenCode sessions get no OpenComms tools.', 'opencomms install opencode');
  const foreign = FOREIGN_IMPORT.exec(installed);
  if (foreign) {
    return trustProblem(name, 'opencode_plugin_needs_package', `.opencode/plugin/opencomms.js loads "${foreign[1] ?? foreign[2]}", which OpenCode would have to fetch from a package registry at start.`, 'opencomms install opencode');
  }
  const shipped = bundlePath === undefined ? undefined : readIfThere(join(dirname(bundlePath), OPENCODE_PLUGIN_BUNDLE));
  if (shipped !== undefined && shipped !== installed) {
    return { name, status: 'warn', reason: 'opencode_plugin_stale', fix: 'opencomms install opencode', message: '.opencode/plugin/opencomms.js differs from this opencomms\'s plugin. Fix: `opencomms install opencode`' };
  }
  return { name, status: 'ok', message: '.opencode/plugin/opencomms.js is in place and imports no package at start (its tools use @opencode-ai/plugin, which OpenCode installs itself)' };
}
