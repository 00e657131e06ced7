// `opencomms doctor [--fix] [--json]`: checks a project's OpenComms set-up and
// repairs what is safe to repair. Each check says what it saw and what to do.
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { formatIsoTime, isSpokenFor as isSpokenForIn, parseState } from '../engine';
import type { State } from '../engine';
import {
  findLeftovers, isValidMemberId, listPins, NODE_FS, PROGRAM_MODE, removeLeftovers, replaceFile, STATE_DIR_NAME, tryReadFile, type PinRecord,
} from '../store';
import { isOwnedByUs, isShared, kindOf, narrowEntry } from '../store/fs-port';
import { breakAbandonedLock, inspectLock, LOCK_STALE_MS } from '../store/lock';
import { isPidAlive } from '../process/liveness';
import { processHostTag } from '../process/place';
import { readUserFile } from '../hosts/user-file';
import { isJsonObject, parseJsonObject } from '../hosts/json-config';
import { locateOurServer, readOurServer } from '../hosts/toml';
import { storeOfEnv, type StoreChoice } from '../hosts/launch';
import { StoreFault } from '../store/faults';
import type { StoreSelection } from '../store/redis/config';
import { displayUrl } from '../store/redis/url';

export interface DoctorOptions {
  projectDir: string;
  fix: boolean;
  json: boolean;
  version: string;
  /** The opencomms.js that is running, to compare installed copies against. */
  bundlePath?: string;
  /** The store --store / OPENCOMMS_STORE selects; the project's files when absent. */
  store?: StoreSelection;
  /** Why the selected store could not even be configured (a StoreFault from resolveStoreSelection). */
  storeProblem?: unknown;
  /** OPENCOMMS_STORE_CA, to name it in the TLS line. */
  caPath?: string;
  write: (text: string) => void;
}

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
  fixed?: boolean;
  /** The reason code of a store finding (store_auth_failed, store_forbidden, …). */
  reason?: string;
}

const MIN_NODE_MAJOR = 18;
/** A lock older than this whose holder cannot be checked (another machine) is worth a warning. */
const OLD_LOCK_MS = 15_000;

/**
 * The host config files install writes, and where our server entry sits in
 * each. They are read with the parsers install uses (JSON with comments for
 * every JSON file, the TOML scanner for Codex), so a file install can edit is
 * a file doctor can read.
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

// A check that cannot even look (a file where a folder should be, a folder
// where a file should be, no permission) is itself a finding, never a crash:
// doctor exists for exactly those broken set-ups.
function guarded(name: string, run: () => Check | Check[]): Check[] {
  try {
    const result = run();
    return Array.isArray(result) ? result : [result];
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return [{ name, status: 'fail', message: `could not check (${detail}); fix or move what it names, then run doctor again` }];
  }
}

/** Runs every check and prints the report; asynchronous only when a Redis store is to be checked. */
export function runDoctor(options: DoctorOptions): number | Promise<number> {
  const { projectDir } = options;
  const selection = options.store ?? { kind: 'file' };
  if (selection.kind === 'file' && options.storeProblem === undefined) {
    return reportChecks(options, [
      ...guarded('node', () => checkNode()),
      ...guarded('state', () => checkState(projectDir)),
      ...guarded('entries', () => checkEntries(projectDir)),
      ...guarded('modes', () => checkModes(projectDir, options.fix)),
      ...guarded('lock', () => checkLock(projectDir, options.fix)),
      ...guarded('leftovers', () => checkLeftovers(projectDir, options.fix)),
      ...guarded('members', () => checkMembers(projectDir, loadState(projectDir))),
      ...guarded('hosts', () => checkHosts(options)),
    ]);
  }
  // On Redis the state, its lock and its temp files are the server's: those
  // checks give way to the store's own. What stays on this machine (pins,
  // the host configs, the server copy, the modes under .opencomms/) is
  // checked as with files.
  const storeChecks = selection.kind === 'redis'
    ? (require('./doctor-store') as typeof import('./doctor-store')).checkRedisStore({ config: selection.config, caPath: options.caPath })
    : Promise.resolve({ checks: [storeProblemCheck(options.storeProblem)], state: undefined });
  return storeChecks.then(({ checks, state }) => reportChecks(options, [
    ...guarded('node', () => checkNode()),
    ...checks,
    { name: 'state', status: 'ok', message: 'in Redis, see the store checks' },
    ...guarded('entries', () => checkEntries(projectDir)),
    ...guarded('modes', () => checkModes(projectDir, options.fix)),
    ...guarded('members', () => checkMembers(projectDir, state)),
    ...guarded('hosts', () => checkHosts(options)),
  ]));
}

function storeProblemCheck(problem: unknown): Check {
  if (problem instanceof StoreFault) return { name: 'store', status: 'fail', reason: problem.code, message: `${problem.code}: ${problem.message}` };
  return { name: 'store', status: 'fail', message: `the store could not be set up (${problem instanceof Error ? problem.message : String(problem)})` };
}

function reportChecks(options: DoctorOptions, checks: Check[]): number {
  const isHealthy = !checks.some((c) => c.status === 'fail');
  if (options.json) {
    const selection = options.store ?? { kind: 'file' };
    const store = selection.kind === 'redis'
      ? { kind: 'redis', url: displayUrl(selection.config), project_id: selection.config.projectId }
      : { kind: options.storeProblem === undefined ? 'file' : 'redis' };
    options.write(`${JSON.stringify({ ok: isHealthy, project: options.projectDir, version: options.version, store, checks }, null, 2)}\n`);
  } else {
    const mark: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' };
    const lines = [`OpenComms doctor ${options.version} for ${options.projectDir}`];
    for (const c of checks) lines.push(`${mark[c.status]} ${c.name}: ${c.message}${c.fixed ? ' (fixed)' : ''}`);
    lines.push(isHealthy ? 'No problems that stop OpenComms from working.' : 'Problems found: see the FAIL lines above.');
    options.write(`${lines.join('\n')}\n`);
  }
  return isHealthy ? 0 : 1;
}

function checkNode(): Check {
  const major = Number(process.versions.node.split('.')[0]);
  return major >= MIN_NODE_MAJOR
    ? { name: 'node', status: 'ok', message: `Node ${process.versions.node}` }
    : { name: 'node', status: 'fail', message: `Node ${process.versions.node} is too old: OpenComms needs Node ${MIN_NODE_MAJOR} or newer.` };
}

function stateDirOf(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME);
}

function loadState(projectDir: string): State | undefined {
  try {
    const bytes = tryReadFile(NODE_FS, join(stateDirOf(projectDir), 'state.json'));
    const parsed = bytes === undefined ? undefined : parseState(bytes.toString('utf8'), Date.now());
    return parsed?.ok ? parsed.state : undefined;
  } catch {
    return undefined;
  }
}

function lstatOrNone(path: string): Stats | undefined {
  return lstatSync(path, { throwIfNoEntry: false });
}

function checkState(projectDir: string): Check[] {
  const dir = stateDirOf(projectDir);
  const path = join(dir, 'state.json');
  const checks: Check[] = [];
  const dirStat = lstatOrNone(dir);
  if (dirStat !== undefined && !dirStat.isDirectory()) {
    const what = dirStat.isSymbolicLink() ? `a link to ${readlinkSync(dir)}` : kindOf(dirStat);
    return [{ name: 'state', status: 'fail', message: `${dir} is ${what}, not a folder: OpenComms refuses every call until it is removed or moved.` }];
  }
  const stat = lstatOrNone(path);
  if (stat === undefined) {
    checks.push({ name: 'state', status: 'ok', message: 'no state.json yet (the first opencomms_create writes it)' });
  } else if (!stat.isFile()) {
    // Refused on every call (fs-port), never preserved, replaced or deleted: say so, and how to get going again.
    const what = stat.isSymbolicLink() ? `a link to ${readlinkSync(path)}` : kindOf(stat);
    const how = stat.isSymbolicLink()
      ? `remove the link (rm "${path}"), after finding out how it got there`
      : `move it out of .opencomms/ (mv "${path}" "${join(projectDir, 'opencomms-state-moved-aside')}")`;
    checks.push({
      name: 'state',
      status: 'fail',
      message: `${path} is ${what}, not a file. OpenComms neither reads nor replaces it, so every call is refused until you ${how}; the next change then starts an empty state.`,
    });
  } else {
    let problem: string | undefined;
    let isUnreadable = false;
    try {
      const parsed = parseState((tryReadFile(NODE_FS, path) ?? Buffer.alloc(0)).toString('utf8'), Date.now());
      if (!parsed.ok) problem = parsed.reason.replace(/\s+/g, ' ');
    } catch (err) {
      problem = (err as Error).message.replace(/\s+/g, ' ');
      isUnreadable = true;
    }
    if (problem === undefined) checks.push({ name: 'state', status: 'ok', message: `${path} loads` });
    else if (isUnreadable) {
      checks.push({ name: 'state', status: 'fail', message: `${path} cannot be read (${problem}); every call that needs the state fails until that is fixed.` });
    } else {
      checks.push({
        name: 'state',
        status: 'fail',
        message: `${path} cannot be loaded (${problem}). The next change will preserve it as state.corrupt-<time>.json and start empty; restore a good copy first if you have one.`,
      });
    }
  }
  const corrupt = lstatOrNone(dir)?.isDirectory() ? readdirSync(dir).filter((f) => /^state\.corrupt-\d+.*\.json$/.test(f)) : [];
  if (corrupt.length > 0) {
    checks.push({
      name: 'preserved state',
      status: 'warn',
      message: `${corrupt.length} state file(s) that failed to load were preserved: ${corrupt.join(', ')}. Inspect them, then delete them when done.`,
    });
  }
  return checks;
}

/** One entry under .opencomms/, found without following links. */
interface Entry {
  /** Shown as `.opencomms/<rel>`. */
  shown: string;
  path: string;
  rel: string;
  stat: Stats;
}

// Deep enough for .opencomms/claude-plugin/<folder>/<file>, the deepest we make.
const WALK_DEPTH = 3;
/** Folders OpenComms keeps under .opencomms/, and those of them that hold only files. */
const OWN_FOLDERS = new Set(['history', 'pins', 'archives', 'claude-plugin']);
const FILE_FOLDERS = new Set(['history', 'pins', 'archives']);

function walkStateDir(projectDir: string): Entry[] {
  const root = stateDirOf(projectDir);
  const entries: Entry[] = [];
  const visit = (path: string, rel: string, depth: number): void => {
    const stat = lstatOrNone(path);
    if (stat === undefined) return;
    entries.push({ shown: rel === '' ? STATE_DIR_NAME : join(STATE_DIR_NAME, rel), path, rel, stat });
    if (!stat.isDirectory() || depth >= WALK_DEPTH) return;
    for (const name of readdirSync(path).sort()) visit(join(path, name), rel === '' ? name : join(rel, name), depth + 1);
  };
  visit(root, '', 0);
  return entries;
}

// What OpenComms would refuse about an entry (see fs-port), or undefined.
function entryProblem(entry: Entry): string | undefined {
  const { stat, rel } = entry;
  if (stat.isSymbolicLink()) return `${entry.shown} is a link to ${readlinkSync(entry.path)}`;
  if ((rel === '' || OWN_FOLDERS.has(rel)) && !stat.isDirectory()) return `${entry.shown} is ${kindOf(stat)} where a folder belongs`;
  if (FILE_FOLDERS.has(dirname(rel)) && !stat.isFile()) return `${entry.shown} is ${kindOf(stat)} where a file belongs`;
  if (!stat.isFile() && !stat.isDirectory()) return `${entry.shown} is ${kindOf(stat)}`;
  if (!isOwnedByUs(stat)) return `${entry.shown} belongs to another user (uid ${stat.uid})`;
  return undefined;
}

function checkEntries(projectDir: string): Check {
  // state.json has its own check above.
  const problems = walkStateDir(projectDir).filter((e) => e.rel !== 'state.json').map(entryProblem).filter((p) => p !== undefined);
  if (problems.length === 0) return { name: 'entries', status: 'ok', message: 'no links, misplaced or foreign entries under .opencomms' };
  return {
    name: 'entries',
    status: 'fail',
    message: `OpenComms refuses these (it never follows a link under .opencomms, and uses only its own files): ${problems.join('; ')}. ` +
      'Find out how they got there, then remove or move them; doctor leaves them alone.',
  };
}

function checkModes(projectDir: string, fix: boolean): Check {
  if (process.platform === 'win32') return { name: 'modes', status: 'ok', message: 'not checked on Windows' };
  const entries = walkStateDir(projectDir);
  if (entries.length === 0) return { name: 'modes', status: 'ok', message: 'no .opencomms folder yet' };
  const wide = entries.filter((e) => (e.stat.isFile() || e.stat.isDirectory()) && isOwnedByUs(e.stat) && isShared(e.stat));
  if (wide.length === 0) return { name: 'modes', status: 'ok', message: 'folders and files under .opencomms are private to you' };
  const list = wide.slice(0, 5).map((e) => `${e.shown} ${(e.stat.mode & 0o777).toString(8)}`).join(', ') + (wide.length > 5 ? ', …' : '');
  const what = `${wide.length} folder(s) or file(s) under .opencomms that other users can read or enter (${list})`;
  if (!fix) return { name: 'modes', status: 'warn', message: `${what}; run doctor --fix to make folders 0700 and files 0600` };
  const left = wide.filter((e) => !narrowEntry(NODE_FS, e.path));
  if (left.length > 0) return { name: 'modes', status: 'warn', message: `${what}; could not narrow ${left.map((e) => e.shown).join(', ')}: chmod go-rwx them` };
  return { name: 'modes', status: 'ok', message: `narrowed ${what}`, fixed: true };
}

function checkLock(projectDir: string, fix: boolean): Check {
  const options = { port: NODE_FS, lockPath: join(stateDirOf(projectDir), '.state.lock'), host: hostname() };
  let seen: ReturnType<typeof inspectLock>;
  try {
    seen = inspectLock(options);
  } catch {
    // a link or a foreign file: the entries check names it
    return { name: 'lock', status: 'warn', message: 'the lock file cannot be read safely; see the entries check' };
  }
  if (!seen) return { name: 'lock', status: 'ok', message: 'not held' };
  const { owner } = seen;
  const who = owner ? `process ${owner.pid} on ${printableLabel(owner.host)}` : 'an unreadable stamp';
  if (seen.isAbandoned) {
    const what = `left behind by ${who}, which is gone`;
    if (!fix) return { name: 'lock', status: 'warn', message: `${what}; the next writer breaks it at once (or run doctor --fix)` };
    if (breakAbandonedLock(options)) return { name: 'lock', status: 'ok', message: `${what}; removed`, fixed: true };
    return { name: 'lock', status: 'ok', message: 'released or taken over by another process while checking' };
  }
  if (seen.isLocal) return { name: 'lock', status: 'ok', message: `held right now by live ${who}` };
  const ageS = Math.round(seen.ageMs / 1000);
  if (seen.ageMs < OLD_LOCK_MS) return { name: 'lock', status: 'ok', message: `held right now by ${who}` };
  return {
    name: 'lock',
    status: 'warn',
    message: `held by ${who} for ${ageS} s; writers break it after ${LOCK_STALE_MS / 1000} s without a refresh. If that machine is gone, delete ${options.lockPath}.`,
  };
}

// A lock stamp's host is whatever its writer put there: never print it raw.
function printableLabel(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}

function checkLeftovers(projectDir: string, fix: boolean): Check {
  const options = { port: NODE_FS, stateDir: stateDirOf(projectDir), isPidAlive, now: Date.now() };
  const found = findLeftovers(options);
  if (found.length === 0) return { name: 'leftovers', status: 'ok', message: 'no temp or lock files left by dead processes' };
  const what = `${found.length} temp or lock file(s) left by processes that died mid-save (${found.slice(0, 3).map((p) => p.slice(options.stateDir.length + 1)).join(', ')}${found.length > 3 ? ', …' : ''})`;
  if (!fix) return { name: 'leftovers', status: 'warn', message: `${what}; harmless, but run doctor --fix to delete them` };
  removeLeftovers(options);
  return { name: 'leftovers', status: 'ok', message: `deleted ${what}`, fixed: true };
}

// Members are per agent session (PROTOCOL 6.1): the report lists each member
// with its host sessions, channels and away mark, and the pins of older
// installs with whether a session has adopted them yet.
function checkMembers(projectDir: string, state: State | undefined): Check[] {
  const checks: Check[] = [];
  const pinsFolder = join(stateDirOf(projectDir), 'pins');
  const pins = lstatOrNone(pinsFolder)?.isDirectory() ? listPins(projectDir) : [];
  if (lstatOrNone(pinsFolder)?.isDirectory()) {
    const files = readdirSync(pinsFolder).filter((f) => f.endsWith('.json'));
    const broken = files.filter((f) => !pins.some((p) => `${p.member_id}.json` === f));
    if (broken.length > 0) {
      checks.push({
        name: 'pins',
        status: 'warn',
        message: `ignored pin file(s) (unreadable, or member_id differs from the file name): ${broken.join(', ')}; delete them or pin again`,
      });
    }
  }
  const links = Object.values(state?.session_links ?? {});
  const unclaimed = unclaimedPinsByHost(pins, state);
  for (const [host, hostPins] of unclaimed) {
    if (hostPins.length < 2) continue;
    checks.push({
      name: `pins ${host}`,
      status: 'warn',
      message: `${hostPins.length} unclaimed pins of host ${host} from older installs: ${hostPins.map((p) => p.member_id).join(', ')}. `
        + `A new ${host} session adopts none of them (several are never guessed between) and gets a member of its own. `
        + `Retire the pins you no longer need by deleting ${hostPins.map((p) => `.opencomms/pins/${p.member_id}.json`).join(', ')} `
        + '(a single one left is adopted by the next session), or set OPENCOMMS_MEMBER_ID to the member a session should be.',
    });
  }
  const ids = new Set<string>(links.map((l) => l.member_id));
  for (const channel of Object.values(state?.channels ?? {})) for (const m of channel.members) ids.add(m.session_id);
  for (const pin of pins) ids.add(pin.member_id);
  for (const entry of state?.errors ?? []) if (entry.member_id !== undefined) ids.add(entry.member_id);
  if (ids.size === 0) {
    return [...checks, { name: 'members', status: 'ok', message: 'none yet: each agent session gets a member of its own on its first OpenComms call' }];
  }
  for (const id of [...ids].sort()) {
    if (!isValidMemberId(id)) continue;
    const memberships = Object.values(state?.channels ?? {}).flatMap((c) => c.members.filter((m) => m.session_id === id).map((m) => ({ c, m })));
    const sessions = links.filter((l) => l.member_id === id);
    const pin = pins.find((p) => p.member_id === id);
    const hosts = [...new Set([...memberships.map(({ m }) => m.host), ...sessions.map((l) => l.host), ...(pin ? [pin.host] : [])])];
    const parts = [`host ${hosts.join(', ') || 'unknown'}`];
    parts.push(memberships.length === 0 ? 'not in a channel yet' : `member of ${memberships.map(({ c }) => c.name).join(', ')}`);
    if (sessions.length > 0) {
      const seen = Math.max(...sessions.map((l) => l.last_seen));
      parts.push(`${sessions.length} host session link(s), last seen ${formatIsoTime(seen)}`);
    } else if (pin && isPinSpokenFor(state, pin.member_id)) {
      parts.push('pinned by an older install; a live process speaks as it through OPENCOMMS_MEMBER_ID, so no new session adopts it');
    } else if (pin && (unclaimed.get(pin.host)?.length ?? 0) > 1) {
      parts.push(`pinned by an older install; not adopted: host ${pin.host} has several unclaimed pins (see pins ${pin.host})`);
    } else if (pin) {
      parts.push(`pinned by an older install; the first ${pin.host} session to start adopts it`);
    } else if (!memberships.some(({ m }) => m.host_session_id)) {
      parts.push('no host session linked (set by OPENCOMMS_MEMBER_ID, or linked before this version)');
    }
    const away = memberships.find(({ m }) => m.stale);
    if (away) parts.push(`away since ${away.m.stale_at === null ? 'an unknown time' : formatIsoTime(away.m.stale_at)} (its session ended; its mail waits for it)`);
    const problem = [...(state?.errors ?? [])].reverse().find((e) => e.member_id === id);
    if (problem) parts.push(`last problem (${formatIsoTime(problem.at)}): ${problem.message}`);
    checks.push({ name: `member ${id}`, status: problem ? 'warn' : 'ok', message: parts.join('; ') });
  }
  return checks;
}

/** Whether a live process speaks as `memberId` through OPENCOMMS_MEMBER_ID (engine/speaker-leases). */
function isPinSpokenFor(state: State | undefined, memberId: string): boolean {
  if (state === undefined) return false;
  return isSpokenForIn(state, memberId, (lease) => (lease.host === processHostTag() ? isPidAlive(lease.pid) : Date.now() <= lease.until));
}

/** The pins of each host that a new session could adopt: no session linked to them, no live process speaking as them. */
function unclaimedPinsByHost(pins: readonly PinRecord[], state: State | undefined): Map<string, PinRecord[]> {
  const taken = new Set(Object.values(state?.session_links ?? {}).map((l) => l.member_id));
  const byHost = new Map<string, PinRecord[]>();
  for (const pin of pins) {
    if (taken.has(pin.member_id) || isPinSpokenFor(state, pin.member_id)) continue;
    byHost.set(pin.host, [...(byHost.get(pin.host) ?? []), pin]);
  }
  return byHost;
}

function readConfigValue(projectDir: string, config: (typeof HOST_CONFIGS)[number]): { args?: string[]; env?: unknown; error?: string } | undefined {
  const path = join(projectDir, config.file);
  if (lstatOrNone(path) === undefined) return undefined;
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

function checkHosts(options: DoctorOptions): Check[] {
  const checks: Check[] = [];
  for (const config of HOST_CONFIGS) {
    const found = readConfigValue(options.projectDir, config);
    if (!found) continue;
    const name = `${config.host} (${config.file})`;
    if (found.error) {
      checks.push({ name, status: 'fail', message: `${config.file}: ${found.error}. Fix the file, then run \`opencomms install ${installArgs(config.host)}\`.` });
      continue;
    }
    const written = (found.args ?? []).find((a) => a.endsWith('opencomms.js') || a.endsWith('opencomms.cjs'));
    const script = written === undefined ? undefined : scriptPathOf(options.projectDir, written);
    if (!script) {
      checks.push({ name, status: 'fail', message: `the opencomms entry does not start opencomms.js; run \`opencomms install ${installArgs(config.host)}\`` });
      continue;
    }
    if (!existsSync(script)) {
      checks.push({ name, status: 'fail', message: `it points at ${script}, which does not exist; run \`opencomms install ${installArgs(config.host)}\`` });
      continue;
    }
    checks.push(checkBundle(name, script, options));
    const storeMismatch = checkConfigStore(config.host, storeOfEnv(found.env), options);
    if (storeMismatch) checks.push(storeMismatch);
  }
  for (const hooks of HOOK_CONFIGS) {
    if (!checks.some((c) => c.name.startsWith(`${hooks.host} (`))) continue;
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
  return checks;
}

/**
 * Whether a host config names the store this doctor checked: a server started
 * from it on another store would keep its own channels, apart from everyone
 * else's. Nothing to compare when the store doctor was given could not be set up.
 */
function checkConfigStore(host: string, written: StoreChoice | undefined, options: DoctorOptions): Check | undefined {
  if (options.storeProblem !== undefined) return undefined;
  const selection = options.store ?? { kind: 'file' };
  const checked = selection.kind === 'redis' ? { url: displayUrl(selection.config), projectId: selection.config.projectId } : undefined;
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

function checkBundle(name: string, script: string, options: DoctorOptions): Check {
  if (!options.bundlePath || !existsSync(options.bundlePath)) {
    return { name, status: 'ok', message: `starts ${script}` };
  }
  const installed = readFileSync(script);
  const running = readFileSync(options.bundlePath);
  if (installed.equals(running)) return { name, status: 'ok', message: `starts ${script} (version ${options.version})` };
  // Only the project's own copy is ours to replace; a file elsewhere may be someone else's install.
  const ownCopy = join(options.projectDir, STATE_DIR_NAME, 'opencomms.js');
  if (resolvePath(script) !== ownCopy) {
    return { name, status: 'warn', message: `${script} differs from this opencomms ${options.version}; it is outside this project, so doctor leaves it alone (run \`opencomms install\` to use the project copy)` };
  }
  if (!options.fix) {
    return { name, status: 'warn', message: `${script} differs from this opencomms ${options.version}; run doctor --fix to update the copy` };
  }
  replaceFile(NODE_FS, script, running, PROGRAM_MODE);
  return { name, status: 'ok', message: `${script} updated to version ${options.version}`, fixed: true };
}
