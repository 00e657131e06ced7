// The trust a host keeps in the user's own files, outside the project:
// Codex's ~/.codex/config.toml (the project, and each hook by its hash) and
// Gemini CLI's ~/.gemini/trustedFolders.json. Install always shows the exact
// lines; only --apply writes them, after showing them. Uninstall takes out
// exactly what --apply added. Tests point HOME (and CODEX_HOME) at a temp folder.
// Trusting a project hands the host the whole project config, so --apply
// refuses while that config holds anything OpenComms did not write, unless
// the user says they have read it (project-review.ts).
import { realpathSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { replaceUserFile } from '../files/replace-file';
import { NODE_FS } from '../files/fs-port';
import { STATE_DIR_NAME } from '../local/state-dir';
import { tryReadBytes } from './bundle';
import { applyCodexTrust, codexTrustEntries, readCodexTrust, removeCodexTrust, renderCodexTrust, type CodexTrustEntry } from './codex-trust';
import { applyGeminiTrust, GEMINI_TRUST_VALUE, readGeminiTrust, removeGeminiTrust } from './gemini-trust';
import { ensureDir, InstallFailure, readOwnBytes, writeOwnFile } from './install-common';
import { isJsonObject, parseJsonObject, renderJson } from './json-config';
import type { HostName } from './launch';
import { reviewProjectConfig, showText, type ForeignEntry } from './project-review';

/** The flag that says the user has read what --apply would trust besides OpenComms. */
export const READ_PROJECT_CONFIG_FLAG = '--i-have-read-the-project-config';

/** The user's home folder as the hosts find it. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || (require('node:os') as typeof import('node:os')).homedir();
}

/** Codex's config.toml: under CODEX_HOME when set, else ~/.codex. */
export function codexUserConfigPath(env: NodeJS.ProcessEnv): string {
  return join(env.CODEX_HOME || join(homeOf(env), '.codex'), 'config.toml');
}

export function geminiTrustPath(env: NodeJS.ProcessEnv): string {
  return join(homeOf(env), '.gemini', 'trustedFolders.json');
}

/** What --apply added to a user file, kept in .opencomms/ for uninstall (Gemini's JSON can hold no marker of ours). */
const RECORD_FILE = 'user-trust.json';

interface GeminiRecord {
  file: string;
  key: string;
  created: boolean;
}

function trustRecordPath(projectDir: string): string {
  return join(projectDir, STATE_DIR_NAME, RECORD_FILE);
}

function readRecord(projectDir: string): Record<string, unknown> {
  try {
    const text = readOwnBytes(projectDir, trustRecordPath(projectDir))?.toString('utf8');
    const doc = text === undefined ? {} : parseJsonObject(text);
    return isJsonObject(doc) ? doc : {};
  } catch {
    return {};
  }
}

function readTrustFile(path: string): string | undefined {
  try {
    return tryReadBytes(path)?.toString('utf8');
  } catch (err) {
    throw new InstallFailure(`Cannot read ${path} (${(err as Error).message}); fix its permissions and run again. Nothing was changed.`, 1);
  }
}

/** Writes a user file through a link (a dotfile manager's), keeping its mode. */
function writeText(path: string, text: string): void {
  let target = path;
  let mode: number | undefined;
  try {
    target = realpathSync(path);
    mode = statSync(target).mode & 0o7777;
  } catch {
    ensureDir(dirname(path));
  }
  replaceUserFile(NODE_FS, target, text, mode);
}

/** One planned change to a user file. */
export interface UserTrustPlan {
  host: 'codex' | 'gemini-cli';
  path: string;
  /** The lines that trust the project, to show. */
  lines: string;
  /** The file after --apply; undefined when it already trusts everything. */
  after?: string;
  /** Set when the file exists but could not be read as the host writes it: --apply refuses, the lines still show. */
  problem?: string;
  /** Short notes: what is missing, what --apply leaves to the user. */
  missing: string[];
  refusals: string[];
  isCreated: boolean;
  /** Whether `after` trusts the project itself (not only our hooks in a project the user trusts already). */
  trustsProject: boolean;
  /** What the project's host config holds that OpenComms did not write: trusted with the project, except hooks. */
  foreign: ForeignEntry[];
}

/**
 * The trust a fresh or repeated install needs in the user's files for
 * `host`, given the project files as install leaves them and the hook command
 * it writes; undefined for hosts that keep no trust there.
 */
export function planUserTrust(host: HostName, projectDir: string, env: NodeJS.ProcessEnv, projectText: (rel: string) => string | undefined, ourHookCommand: string): UserTrustPlan | undefined {
  if (host !== 'codex' && host !== 'gemini-cli') return undefined;
  const foreign = reviewProjectConfig(host, projectDir, projectText, ourHookCommand);
  return host === 'codex' ? planCodex(projectDir, env, projectText('.codex/hooks.json'), ourHookCommand, foreign) : planGemini(projectDir, env, foreign);
}

function planCodex(projectDir: string, env: NodeJS.ProcessEnv, hooksJson: string | undefined, ourHookCommand: string, foreign: ForeignEntry[]): UserTrustPlan {
  const path = codexUserConfigPath(env);
  const entries = codexTrustEntries(projectDir, hooksJson, ourHookCommand);
  const lines = renderCodexTrust(entries);
  const before = readTrustFile(path);
  const plan: UserTrustPlan = { host: 'codex', path, lines, missing: [], refusals: [], isCreated: before === undefined, trustsProject: true, foreign };
  try {
    const applied = applyCodexTrust(before ?? '', projectDir, entries);
    plan.trustsProject = applied.added.some((entry) => entry.name === 'trust_level');
    plan.missing = [...applied.added, ...applied.updated].map((entry) => entry.label);
    plan.refusals = applied.refused.map(({ entry, state }) => (state === 'disabled'
      ? `${entry.label} is turned off there (enabled = false); remove that line to let it run`
      : `the project is marked trust_level = "${(readCodexTrust(before ?? '', [entry])[0]?.found) ?? '?'}" there; change it to "trusted" yourself`));
    if (applied.after !== (before ?? '')) plan.after = applied.after;
  } catch (err) {
    plan.problem = `${path} is not TOML OpenComms can edit safely (${(err as Error).message})`;
    plan.missing = entries.map((entry) => entry.label);
  }
  return plan;
}

function planGemini(projectDir: string, env: NodeJS.ProcessEnv, foreign: ForeignEntry[]): UserTrustPlan {
  const path = geminiTrustPath(env);
  const lines = `${JSON.stringify(projectDir)}: ${JSON.stringify(GEMINI_TRUST_VALUE)}\n`;
  const before = readTrustFile(path);
  const plan: UserTrustPlan = { host: 'gemini-cli', path, lines, missing: [], refusals: [], isCreated: before === undefined, trustsProject: true, foreign };
  try {
    const state = readGeminiTrust(before, projectDir);
    if (state === 'distrusted') plan.refusals.push('the folder is marked DO_NOT_TRUST there; change that yourself to let Gemini CLI run OpenComms here');
    else if (state === 'missing') {
      plan.missing = ['the folder'];
      plan.after = applyGeminiTrust(before, projectDir);
    }
  } catch (err) {
    plan.problem = `${path} is not JSON OpenComms can edit safely (${(err as Error).message})`;
    plan.missing = ['the folder'];
  }
  return plan;
}

const WHY: Record<UserTrustPlan['host'], string> = {
  codex: 'Codex loads this project\'s .codex/config.toml and runs its hooks only when the user\'s config trusts them (`codex exec` skips an untrusted hook without a word)',
  'gemini-cli': 'Gemini CLI starts no MCP server and runs no hook in a folder it does not trust',
};

const HANDS: Record<UserTrustPlan['host'], string> = {
  codex: 'Once the project is trusted, Codex loads its .codex/config.toml (servers and settings); a hook of .codex/hooks.json runs only once its own hash is trusted, and --apply trusts only the ones install wrote',
  'gemini-cli': 'Once the folder is trusted, Gemini CLI starts every server and runs every hook of its .gemini/settings.json, and loads its .env',
};

// Control characters and line breaks: a path holding one would be written into the user's config.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function foreignNote(plan: UserTrustPlan): string {
  const lookalike = ` (carries the OpenComms hook marker, but install did not write it${plan.host === 'codex' ? ': left untrusted' : ''})`;
  const list = plan.foreign.map((entry) => `  ${entry.file}: ${entry.text}${entry.isLookalike ? lookalike : ''}\n`).join('');
  return `${HANDS[plan.host]}. These are not OpenComms's:\n${list}`;
}

/**
 * Why --apply must not write `plan`, as the message to print; undefined when
 * it may. `hasRead`: the user passed READ_PROJECT_CONFIG_FLAG.
 */
export function applyRefusal(plan: UserTrustPlan, projectDir: string, hasRead: boolean): string | undefined {
  if (CONTROL_CHARACTER.test(projectDir)) {
    return `--apply refused: the project path ${showText(JSON.stringify(projectDir))} holds a control character or line break, which OpenComms does not write into ${plan.path}. Move the project to a path without one. Nothing was changed.`;
  }
  if (plan.problem !== undefined) return `--apply cannot add the ${plan.host} trust: ${plan.problem}. Nothing was changed; run without --apply to see the lines to add by hand.`;
  if (plan.after === undefined || !plan.trustsProject || plan.foreign.length === 0 || hasRead) return undefined;
  return `--apply refused: the project config holds what OpenComms did not write. ${foreignNote(plan)}` +
    `Read each of them. To trust ${projectDir} with them, run again with ${READ_PROJECT_CONFIG_FLAG}; or leave out --apply and add the lines yourself. Nothing was changed.`;
}

/** How --apply was asked for. */
export interface ApplyMode {
  apply: boolean;
  dryRun: boolean;
  /** READ_PROJECT_CONFIG_FLAG was passed. */
  hasRead: boolean;
  /** How the person starts this program: the command the plan suggests (`opencomms` when absent). */
  command?: string;
}

/** Prints the plan; with --apply (and not a dry run) writes it. Call applyRefusal first: this writes what it is given. */
export function showUserTrust(plan: UserTrustPlan, projectDir: string, { apply, dryRun, hasRead, command = 'opencomms' }: ApplyMode, write: (text: string) => void, warn: (text: string) => void): void {
  const name = plan.host === 'codex' ? 'Codex' : 'Gemini CLI';
  for (const refused of plan.refusals) warn(`opencomms: ${name} trust: ${refused} (${plan.path}).`);
  const isListed = plan.after !== undefined && plan.problem === undefined && plan.trustsProject && plan.foreign.length > 0;
  for (const entry of plan.host === 'codex' && !isListed ? plan.foreign.filter((f) => f.isLookalike) : []) {
    warn(`opencomms: Codex trust: left untrusted, a hook install did not write though it carries the OpenComms hook marker: ${entry.file}: ${entry.text}`);
  }
  if (plan.after === undefined && plan.problem === undefined) {
    if (plan.refusals.length === 0) write(`${name} trust: ${plan.path} already trusts ${plan.host === 'codex' ? 'this project and the hooks install wrote' : 'this folder'}.\n`);
    return;
  }
  const where = plan.host === 'codex' ? 'these lines in' : 'this entry in the JSON object of';
  write(`${name} trust: ${WHY[plan.host]}. Not trusted yet: ${plan.missing.join(', ')}. ${where[0].toUpperCase()}${where.slice(1)} ${plan.path} trust ${plan.host === 'codex' ? 'them' : 'it'}:\n${plan.lines}`);
  if (plan.problem !== undefined) {
    warn(`opencomms: ${plan.problem}; add the lines above by hand.`);
    return;
  }
  if (!apply) {
    if (isListed) write(foreignNote(plan));
    write(`Run \`${command} install ${plan.host} --apply${isListed ? ` ${READ_PROJECT_CONFIG_FLAG}` : ''}\` to add ${plan.host === 'codex' ? 'them' : 'it'} (it shows them, then writes them; \`${command} uninstall ${plan.host}\` takes them out again), or add ${plan.host === 'codex' ? 'them' : 'it'} yourself.\n`);
    return;
  }
  const refusal = applyRefusal(plan, projectDir, hasRead);
  if (refusal !== undefined) {
    write(`A run without --dry-run would stop here and exit 1: ${refusal}\n`); // a real run stops before anything is written, so only a dry run gets here
    return;
  }
  if (isListed) write(`You passed ${READ_PROJECT_CONFIG_FLAG}: the project is trusted with what follows. ${foreignNote(plan)}`);
  if (dryRun) {
    write(`would write ${plan.path}:\n${plan.after}${plan.after!.endsWith('\n') ? '' : '\n'}`);
    return;
  }
  writeText(plan.path, plan.after!);
  if (plan.host === 'gemini-cli') {
    const record = readRecord(projectDir);
    const entry: GeminiRecord = { file: plan.path, key: projectDir, created: plan.isCreated };
    writeOwnFile(projectDir, trustRecordPath(projectDir), renderJson({ ...record, 'gemini-cli': entry as unknown as Record<string, unknown> }));
  }
  write(`wrote ${plan.path} (${name} trust for ${plan.missing.join(', ')})\n`);
}

/** Takes out what --apply added for `host`; prints what it did. */
export function removeUserTrust(host: HostName, projectDir: string, env: NodeJS.ProcessEnv, dryRun: boolean, write: (text: string) => void): void {
  if (host === 'codex') removeCodexUserTrust(projectDir, env, dryRun, write);
  else if (host === 'gemini-cli') removeGeminiUserTrust(projectDir, env, dryRun, write);
}

function removeCodexUserTrust(projectDir: string, env: NodeJS.ProcessEnv, dryRun: boolean, write: (text: string) => void): void {
  const path = codexUserConfigPath(env);
  const before = readTrustFile(path);
  if (before === undefined) return;
  let after: string;
  try {
    after = removeCodexTrust(before, projectDir);
  } catch {
    return; // a file we cannot follow holds no block we could have written
  }
  if (after === before) return;
  if (dryRun) write(`would write ${path}:\n${after}`);
  else {
    writeText(path, after);
    write(`updated ${path} (took out the Codex trust lines install --apply added for this project)\n`);
  }
}

// The record lies in the project, where a repository can ship one: it is
// obeyed only when it names this project in the user's own trust file, so it
// can never take another folder's trust out, nor touch another file.
function removeGeminiUserTrust(projectDir: string, env: NodeJS.ProcessEnv, dryRun: boolean, write: (text: string) => void): void {
  const record = readRecord(projectDir);
  const entry = record['gemini-cli'];
  if (!isJsonObject(entry) || typeof entry.file !== 'string' || typeof entry.key !== 'string') return;
  const own = geminiTrustPath(env);
  if (entry.file !== own || entry.key !== projectDir) {
    write(`ignored ${join(STATE_DIR_NAME, RECORD_FILE)}: its gemini-cli record names ${showText(JSON.stringify(entry.key))} in ${showText(entry.file)}, not this project in ${own}, so it is not one --apply wrote here; no trust file was changed.\n`);
    return;
  }
  const before = readTrustFile(entry.file);
  let after: string | undefined = before;
  try {
    if (before !== undefined) after = removeGeminiTrust(before, entry.key) ?? (entry.created === true ? undefined : '{}\n');
  } catch {
    after = before;
  }
  if (dryRun) {
    if (after !== before) write(after === undefined ? `would delete ${entry.file}\n` : `would write ${entry.file}:\n${after}`);
    return;
  }
  if (after !== before) {
    if (after === undefined) unlinkSync(entry.file);
    else writeText(entry.file, after);
    write(`${after === undefined ? 'removed' : 'updated'} ${entry.file} (took out the folder trust install --apply added)\n`);
  }
  const { 'gemini-cli': _dropped, ...rest } = record;
  if (Object.keys(rest).length === 0) unlinkSync(trustRecordPath(projectDir));
  else writeOwnFile(projectDir, trustRecordPath(projectDir), renderJson(rest));
}

export type { CodexTrustEntry };
