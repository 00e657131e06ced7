// doctor's host checks: each host config install writes, read as install
// reads it, starts this opencomms.js on the store doctor checked, and its
// hooks are in place.
import { existsSync, lstatSync, readFileSync, type Stats } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { printableLabel, type Check, type StoreJson } from '../store';
import { replaceFile } from '../files/replace-file';
import { NODE_FS, PROGRAM_MODE } from '../files/fs-port';
import { STATE_DIR_NAME } from '../local/state-dir';
import { readUserFile } from '../hosts/user-file';
import { isJsonObject, parseJsonObject } from '../hosts/json-config';
import { STRICT_JSON_FILES, strictJsonProblem } from '../hosts/strict-json';
import { locateOurServer, readOurServer } from '../hosts/toml';
import { storeOfEnv, type StoreChoice } from '../hosts/launch';
import { bundleBuildOf, type BundleBuild } from '../hosts/bundle';
import { expandConfigPath, isInCheckout } from '../hosts/checkout-paths';
import { checkCheckouts, type CheckoutFile } from './doctor-checkout';

/**
 * The host config files install writes, and where our server entry sits in
 * each. They are read with the parsers install uses (JSON with comments for
 * every JSON file, the TOML scanner for Codex), so a file install can edit is
 * a file doctor can read; a file its host reads as strict JSON is held to
 * that, as install holds it (strict-json.ts).
 */
const HOST_CONFIGS: readonly { host: string; file: string; format: 'json' | 'toml'; path: readonly string[] }[] = [
  { host: 'claude-code', file: '.mcp.json', format: 'json', path: ['mcpServers', 'opencomms'] },
  { host: 'codex', file: '.codex/config.toml', format: 'toml', path: [] },
  { host: 'gemini-cli', file: '.gemini/settings.json', format: 'json', path: ['mcpServers', 'opencomms'] },
  { host: 'opencode', file: 'opencode.json', format: 'json', path: ['mcp', 'opencomms'] },
  { host: 'opencode', file: 'opencode.jsonc', format: 'json', path: ['mcp', 'opencomms'] },
  { host: 'cursor', file: '.cursor/mcp.json', format: 'json', path: ['mcpServers', 'opencomms'] },
  { host: 'vscode', file: '.vscode/mcp.json', format: 'json', path: ['servers', 'opencomms'] },
  { host: 'claude-code plugin', file: '.opencomms/claude-plugin/.mcp.json', format: 'json', path: ['mcpServers', 'opencomms'] },
];

/** Where each hooked host keeps its hooks, and the events install registers. */
const HOOK_CONFIGS: readonly { host: string; file: string }[] = [
  { host: 'claude-code', file: '.claude/settings.json' },
  { host: 'codex', file: '.codex/hooks.json' },
  { host: 'gemini-cli', file: '.gemini/settings.json' },
  { host: 'claude-code plugin', file: '.opencomms/claude-plugin/hooks/hooks.json' },
];

/** The install arguments that (re)create a host's entries. */
function installArgs(host: string): string {
  return host === 'claude-code plugin' ? 'claude-code --plugin' : host;
}

/** Every file above, once, with where its server entry is, for the check that it starts this checkout's server and hooks. */
const CHECKOUT_FILES: readonly CheckoutFile[] = [
  ...HOST_CONFIGS.map((c) => ({ host: c.host, file: c.file, install: installArgs(c.host), place: c.format === 'toml' ? { format: 'toml' as const } : { format: 'json' as const, path: c.path } })),
  ...HOOK_CONFIGS.filter((h) => !HOST_CONFIGS.some((c) => c.file === h.file)).map((h) => ({ host: h.host, file: h.file, install: installArgs(h.host) })),
];

/** What the host checks need of doctor's options. */
export interface HostCheckOptions {
  projectDir: string;
  fix: boolean;
  version: string;
  /** The opencomms.js that is running, to compare installed copies against. */
  bundlePath?: string;
  /** Set when the selected store could not be configured: then no store was checked to compare configs with. */
  storeProblem?: unknown;
}

function statConfigFile(path: string): Stats | undefined {
  return lstatSync(path, { throwIfNoEntry: false });
}

function readConfigValue(projectDir: string, config: (typeof HOST_CONFIGS)[number]): { args?: string[]; env?: unknown; error?: string } | undefined {
  const path = join(projectDir, config.file);
  if (statConfigFile(path) === undefined) return undefined;
  let text: string | undefined;
  try {
    // Read as install would: a link only when it leads to a file inside the project.
    text = readUserFile(projectDir, path).text;
  } catch (err) {
    return { error: (err as Error).message.replace(/ Nothing was changed\.$/, '') };
  }
  if (text === undefined) return undefined;
  if (config.format === 'toml') {
    try {
      if (!locateOurServer(text)) return undefined;
      const server = readOurServer(text);
      return { args: server?.args ?? [], env: server?.env };
    } catch (err) {
      return { error: `it is not TOML OpenComms can read (${(err as Error).message})` };
    }
  }
  let value: unknown;
  try {
    value = parseJsonObject(text);
  } catch (err) {
    return { error: (err as Error).message };
  }
  const strictProblem = strictJsonProblem(config.file, text);
  if (strictProblem !== undefined) return { error: strictProblem };
  for (const key of config.path) value = isJsonObject(value) ? value[key] : undefined;
  if (!isJsonObject(value)) return undefined;
  const argv = Array.isArray(value.command) ? value.command.slice(1) : value.args;
  return { args: Array.isArray(argv) ? argv.map(String) : [], env: value.env ?? value.environment };
}

/** Whether the hooks file holds a hook of ours, read as install reads it. */
function hasOurHook(path: string): boolean {
  let doc: unknown;
  try {
    doc = existsSync(path) ? parseJsonObject(readFileSync(path, 'utf8')) : undefined;
  } catch {
    return false;
  }
  const hooks = isJsonObject(doc) ? doc.hooks : undefined;
  if (!isJsonObject(hooks)) return false;
  return Object.values(hooks).some((list) => Array.isArray(list) && list.some((entry) => isJsonObject(entry) && Array.isArray(entry.hooks) &&
    entry.hooks.some((hook) => isJsonObject(hook) && typeof hook.command === 'string' && /opencomms\.c?js"? hook/.test(hook.command))));
}

export function checkHosts(options: HostCheckOptions, checked: StoreJson): Check[] {
  // First, so that with --fix the checks below read the configs pointed at this checkout.
  const checks: Check[] = checkCheckouts(options.projectDir, CHECKOUT_FILES, options.fix);
  for (const config of HOST_CONFIGS) {
    const found = readConfigValue(options.projectDir, config);
    if (!found) continue;
    const name = `${config.host} (${config.file})`;
    if (found.error) {
      checks.push({ name, status: 'fail', message: `${config.file}: ${found.error}. Fix the file, then run \`opencomms install ${installArgs(config.host)}\`.` });
      continue;
    }
    const written = (found.args ?? []).find((a) => a.endsWith('opencomms.js') || a.endsWith('opencomms.cjs'));
    // A server in another checkout has its FAIL line above.
    const expanded = written === undefined ? undefined : expandConfigPath(options.projectDir, written);
    if (expanded !== undefined && !isInCheckout(options.projectDir, expanded)) continue;
    const script = written === undefined ? undefined : scriptPathOf(options.projectDir, written);
    if (!script) {
      checks.push({ name, status: 'fail', message: `the opencomms entry does not start opencomms.js; run \`opencomms install ${installArgs(config.host)}\`` });
      continue;
    }
    if (!existsSync(script)) {
      checks.push({ name, status: 'fail', message: `it points at ${script}, which does not exist; run \`opencomms install ${installArgs(config.host)}\`` });
      continue;
    }
    checks.push(checkBundle(name, config.host, script, options));
    const storeMismatch = checkConfigStore(config.host, storeOfEnv(found.env), options, checked);
    if (storeMismatch) checks.push(storeMismatch);
  }
  const refused = checkStrictFiles(options.projectDir);
  for (const hooks of HOOK_CONFIGS) {
    if (!checks.some((c) => c.name.startsWith(`${hooks.host} (`))) continue;
    // A hooks file its host refuses has its FAIL line: its hooks do not run.
    if ([...checks, ...refused].some((c) => c.status === 'fail' && c.name === `${hooks.host} (${hooks.file})`)) continue;
    checks.push(
      hasOurHook(join(options.projectDir, hooks.file))
        ? { name: `${hooks.host} hooks`, status: 'ok', message: `present in ${hooks.file}` }
        : {
            name: `${hooks.host} hooks`,
            status: 'warn',
            message: `no opencomms hook in ${hooks.file}: mail reaches the agent only when it calls opencomms_pull; run \`opencomms install ${installArgs(hooks.host)}\``,
          },
    );
  }
  checks.push(...refused);
  return checks;
}

/**
 * The files a host reads as strict JSON that hold no server entry of ours
 * (Claude Code's settings, Codex's hooks; those with one were checked with
 * it): a FAIL for each one the host would refuse, broken JSON included.
 */
function checkStrictFiles(projectDir: string): Check[] {
  const checks: Check[] = [];
  for (const [file, { host }] of Object.entries(STRICT_JSON_FILES)) {
    const name = `${host} (${file})`;
    if (HOST_CONFIGS.some((c) => c.file === file)) continue;
    const path = join(projectDir, file);
    if (statConfigFile(path) === undefined) continue;
    let text: string | undefined;
    try {
      text = readUserFile(projectDir, path).text;
    } catch {
      continue; // a link install will not follow: install names it
    }
    if (text === undefined) continue;
    let problem: string | undefined;
    try {
      parseJsonObject(text);
      problem = strictJsonProblem(file, text);
    } catch (err) {
      problem = (err as Error).message;
    }
    if (problem !== undefined) checks.push({ name, status: 'fail', message: `${file}: ${problem}. Fix the file, then run \`opencomms install ${host}\`.` });
  }
  return checks;
}

/**
 * Whether a host config names the store this doctor checked: a server started
 * from it on another store would keep its own channels, apart from everyone
 * else's. Nothing to compare when the store doctor was given could not be set up.
 */
function checkConfigStore(host: string, written: StoreChoice | undefined, options: HostCheckOptions, checkedStore: StoreJson): Check | undefined {
  if (options.storeProblem !== undefined) return undefined;
  const checked = 'url' in checkedStore ? { url: checkedStore.url, projectId: checkedStore.project_id } : undefined;
  if (written?.url === checked?.url && written?.projectId === checked?.projectId) return undefined;
  const name = `${host} store`;
  const shown = (store: StoreChoice): string => `${store.url}, project ${printableLabel(store.projectId)}`;
  if (written === undefined) {
    return {
      name, status: 'warn',
      message: `its server uses this machine's .opencomms folder, not ${shown(checked!)}: its sessions would not see the channels on the store. Run \`opencomms install ${installArgs(host)} --store ${checked!.url}\``,
    };
  }
  const what = `its server uses ${printableLabel(shown(written))}`;
  if (checked === undefined) {
    return {
      name, status: 'warn',
      message: `${what}, which this doctor did not check (it checked the project's files): run doctor with OPENCOMMS_STORE and OPENCOMMS_PROJECT_ID set as that config has them (and the password variable) to check that store`,
    };
  }
  return {
    name, status: 'warn',
    message: `${what}, not ${shown(checked)} that this doctor checked: one of the two splits the project. Re-install with the right --store, or run doctor with that config's store`,
  };
}

/**
 * Where a config's script argument points, for this project: the variables
 * install writes (Claude Code's `${CLAUDE_PROJECT_DIR:-.}`, Cursor's and VS
 * Code's `${workspaceFolder}`) stand for the project, and a relative path
 * (Gemini CLI starts servers in the project) is taken from it.
 */
function scriptPathOf(projectDir: string, written: string): string {
  const expanded = written.replace(/\$\{(?:CLAUDE_PROJECT_DIR(?::-[^}]*)?|workspaceFolder)\}/g, () => projectDir);
  return resolvePath(projectDir, expanded);
}

/** A build as the findings name it: its source commit (12 digits) and version. */
function describeBuild(build: BundleBuild): string {
  const commit = /^[0-9a-f]+$/.test(build.commit) ? `source commit ${build.commit.slice(0, 12)}` : `${build.commit} sources`;
  return build.version === undefined ? commit : `${commit} (version ${build.version})`;
}

/** Why the copy differs, by what each bundle says it was built from: two builds of one version differ by commit. */
function describeDifference(installed: Buffer, running: Buffer): string {
  const copy = bundleBuildOf(installed);
  const ours = bundleBuildOf(running);
  if (copy.commit === ours.commit) {
    return `was built from ${describeBuild(copy)} like this opencomms, but its bytes differ (built with other tools, or edited)`;
  }
  return `was built from ${describeBuild(copy)}, this opencomms from ${describeBuild(ours)}`;
}

/** The finding's reason when the server copy is not this build. */
export const COPY_DIFFERS_REASON = 'server_copy_differs';

function checkBundle(name: string, host: string, script: string, options: HostCheckOptions): Check & { fix?: string } {
  if (!options.bundlePath || !existsSync(options.bundlePath)) {
    return { name, status: 'ok', message: `starts ${script}` };
  }
  const installed = readFileSync(script);
  const running = readFileSync(options.bundlePath);
  if (installed.equals(running)) return { name, status: 'ok', message: `starts ${script} (version ${options.version})` };
  const differs = `${script} ${describeDifference(installed, running)}`;
  const install = `opencomms install ${installArgs(host)}`;
  // Only the project's own copy is doctor's to replace; another file in the project may be the user's own build.
  const ownCopy = join(options.projectDir, STATE_DIR_NAME, 'opencomms.js');
  if (resolvePath(script) !== ownCopy) {
    return { name, status: 'warn', reason: COPY_DIFFERS_REASON, fix: install, message: `${differs}; it is not the project's server copy, so doctor leaves it alone (run \`${install}\` to use the copy)` };
  }
  if (!options.fix) {
    return { name, status: 'warn', reason: COPY_DIFFERS_REASON, fix: install, message: `${differs}; run \`${install}\` or \`opencomms doctor --fix\` to refresh the copy` };
  }
  replaceFile(NODE_FS, script, running, PROGRAM_MODE);
  return { name, status: 'ok', message: `${differs}; replaced with this build`, fixed: true };
}
