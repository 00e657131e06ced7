// doctor's delivery checks (docs/delivery.md): for each host set up here,
// which of its sessions' states (busy, finishing, idle, ended) mail reaches,
// from what can be seen on this machine: its hooks, the Claude Code plugin,
// the Claude Code inbox (only from inside a session, whose environment names
// it: the auth line is written, never a message), the `codex` program.
// Findings are ok or WARN, never FAIL: a missed state delays mail, it loses none.
import { existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { formatIsoTime, unwokenLine, unwokenMailOf, type State } from '../engine';
import type { Check } from '../store';
import { inboxAddressOf, probeInbox } from '../delivery/inbox-door';
import { codexBinOf } from '../delivery/codex-door';
import { codexHookTrust } from './doctor-trust';

export interface DeliveryCheckOptions {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** The checks doctor made so far: which hosts are set up, and whether their hooks are. */
  earlier: readonly Check[];
  /** The project's state as the store read it, for mail a door rang without waking its member. */
  state?: State;
}

function isSetUp(earlier: readonly Check[], host: string): boolean {
  return earlier.some((c) => c.name.startsWith(`${host} (`) && c.status !== 'fail');
}

function hasHooks(earlier: readonly Check[], host: string): boolean {
  return earlier.some((c) => c.name === `${host} hooks` && c.status === 'ok');
}

/** Whether `bin` names a program this machine can run (a path, or a name found on PATH). */
function isOnPath(bin: string, env: NodeJS.ProcessEnv): boolean {
  const isFile = (path: string): boolean => {
    try {
      return statSync(path).isFile();
    } catch {
      return false;
    }
  };
  if (isAbsolute(bin) || bin.includes('/')) return isFile(bin);
  return (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '').some((dir) => isFile(join(dir, bin)));
}

function deliveryVerdict(host: string, missed: string[], lines: string[]): Check {
  const message = `${lines.join('; ')}${missed.length === 0 ? '' : `. Missed here: ${missed.join(', ')} sessions (their mail waits for the next hook or pull)`}`;
  return { name: `${host} delivery`, status: missed.length === 0 ? 'ok' : 'warn', message };
}

async function claudeCode(options: DeliveryCheckOptions): Promise<Check> {
  const { earlier, env } = options;
  const missed: string[] = [];
  const lines: string[] = [];
  const hooks = hasHooks(earlier, 'claude-code') || hasHooks(earlier, 'claude-code plugin');
  if (hooks) lines.push('busy, finishing and resumed sessions: through the hooks');
  else missed.push('busy', 'finishing', 'resumed');
  const address = inboxAddressOf(env);
  if (address !== undefined) {
    const probe = await probeInbox(address);
    if (probe.ok) lines.push(`idle sessions: woken through the Claude Code inbox (the socket took the auth line${probe.answer ? `, answering ${probe.answer}` : ''})`);
    else {
      lines.push(`idle sessions: the Claude Code inbox did not take the auth line (${probe.problem}); check the crossSessionInbound setting`);
      missed.push('idle');
    }
  } else if (hasHooks(earlier, 'claude-code plugin')) {
    lines.push('idle sessions: woken by the plugin\'s hook --wait waiter');
  } else {
    lines.push('idle sessions: woken through the Claude Code inbox by the session\'s own server (not checked here: run `opencomms doctor` from the agent\'s own shell to check it)');
  }
  return deliveryVerdict('claude-code', missed, lines);
}

function codex(options: DeliveryCheckOptions): Check {
  const { earlier, env } = options;
  const missed: string[] = [];
  const lines: string[] = [];
  const trust = hasHooks(earlier, 'codex') ? codexHookTrust(options.projectDir, env) : undefined;
  if (trust === 'untrusted') {
    lines.push('busy, finishing and resumed sessions: the hooks are installed but not trusted in ~/.codex/config.toml, and Codex skips untrusted hooks without a word (`opencomms install codex --apply` trusts them)');
    missed.push('busy', 'finishing', 'resumed');
  } else if (trust !== undefined) lines.push(`busy, finishing and resumed sessions: through the hooks (${trust === 'trusted' ? 'trusted' : 'Codex runs them once you trust them'})`);
  else missed.push('busy', 'finishing', 'resumed');
  const bin = codexBinOf(env);
  if (isOnPath(bin, env)) lines.push(`idle sessions: woken by \`${bin} queue\``);
  // Not found where doctor runs is most often no Codex on this machine at all: said, not warned.
  else lines.push(`idle sessions: \`${bin}\` is not found here; if Codex runs on this machine, its idle sessions miss their wake-up until OPENCOMMS_CODEX_BIN names the codex program`);
  return deliveryVerdict('codex', missed, lines);
}

function gemini(options: DeliveryCheckOptions): Check {
  const missed = hasHooks(options.earlier, 'gemini-cli') ? [] : ['busy', 'finishing', 'resumed'];
  const lines = missed.length === 0 ? ['busy, finishing and resumed sessions: through the hooks'] : [];
  // Gemini CLI has no door: an idle session gets its mail at the next prompt, by design, not a set-up fault.
  lines.push('idle sessions: at their next prompt (Gemini CLI has no door to wake them)');
  return deliveryVerdict('gemini-cli', missed, lines);
}

/** Where install copies the OpenCode plugin. */
const OPENCODE_PLUGIN = join('.opencode', 'plugin', 'opencomms.js');

function opencodeDelivery(projectDir: string): Check {
  return existsSync(join(projectDir, OPENCODE_PLUGIN))
    ? { name: 'opencode delivery', status: 'ok', message: 'the plugin prompts sessions in every state' }
    : { name: 'opencode delivery', status: 'warn', message: 'no OpenCode plugin (.opencode/plugin/opencomms.js): sessions get mail only when they call opencomms_pull; run `opencomms install opencode`' };
}

/** Mail whose door rang its bounded times without waking the member (engine/unwoken): a WARN while it waits. */
function unwokenCheck(state: State | undefined): Check[] {
  const unwoken = state === undefined ? [] : unwokenMailOf(Object.values(state.messages));
  if (unwoken.length === 0) return [];
  const lines = unwoken.map((u) => unwokenLine(u, formatIsoTime(u.last_rung_at)));
  return [{ name: 'delivery wake-ups', status: 'warn', message: `${lines.join('; ')}. Look at that session (is it running, is its inbox or codex queue refused?); its hooks or a pull still bring the mail in` }];
}

/** One check per host set up here; none when no host is. Never throws. */
export async function checkDelivery(options: DeliveryCheckOptions): Promise<Check[]> {
  const { earlier, projectDir } = options;
  const checks: Check[] = [];
  try {
    if (isSetUp(earlier, 'claude-code') || isSetUp(earlier, 'claude-code plugin')) checks.push(await claudeCode(options));
    if (isSetUp(earlier, 'codex')) checks.push(codex(options));
    if (isSetUp(earlier, 'gemini-cli')) checks.push(gemini(options));
    if (isSetUp(earlier, 'opencode') || existsSync(join(projectDir, OPENCODE_PLUGIN))) checks.push(opencodeDelivery(projectDir));
    checks.push(...unwokenCheck(options.state));
  } catch (err) {
    checks.push({ name: 'delivery', status: 'warn', message: `could not check the delivery paths (${err instanceof Error ? err.message : String(err)})` });
  }
  return checks;
}
