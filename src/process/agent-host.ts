// Whether this process runs inside an agent host (Claude Code, Codex, Gemini
// CLI, OpenCode): by the variables each host puts in the environment of what
// it runs (its shell tool's commands, its hooks and servers), or by a host
// program among our ancestors. A person's commands (`say`, `read`, `pause`,
// `resume`) refuse to run there: agents speak through their tools, and a
// loop-guard pause must wait for a person. Best effort by nature: a process
// that detaches itself from the host and clears its environment is not
// seen, which is why a person's messages are framed as unverified.
import { readFileSync } from 'node:fs';
import { thisProcessPlace } from './place';

/** What gave a host away. */
export interface AgentHostFinding {
  host: string;
  /** In words: `the environment variable CLAUDECODE`, `the ancestor process claude (pid 4242)`. */
  evidence: string;
}

/** Variables each host sets for what it runs (first match wins, in this order). */
const HOST_VARIABLES: ReadonlyArray<readonly [string, string]> = [
  ['CLAUDECODE', 'Claude Code'], ['CLAUDE_CODE_ENTRYPOINT', 'Claude Code'], ['CLAUDE_CODE_SESSION_ID', 'Claude Code'],
  ['CLAUDE_CODE_MESSAGING_SOCKET', 'Claude Code'],
  ['CODEX_THREAD_ID', 'Codex'], ['CODEX_SANDBOX', 'Codex'], ['CODEX_SANDBOX_NETWORK_DISABLED', 'Codex'], ['CODEX_CI', 'Codex'],
  ['GEMINI_CLI', 'Gemini CLI'],
  ['OPENCODE', 'OpenCode'], ['OPENCODE_SESSION_ID', 'OpenCode'],
];

/** Host programs by the name they run under. */
const HOST_PROGRAMS: Readonly<Record<string, string>> = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', opencode: 'OpenCode' };
/** Packages a host ships as a script run by node (or bun): found in the script's path. */
const HOST_PACKAGES: ReadonlyArray<readonly [string, string]> = [
  ['@anthropic-ai/claude-code', 'Claude Code'], ['@openai/codex', 'Codex'], ['@google/gemini-cli', 'Gemini CLI'], ['opencode-ai', 'OpenCode'],
];
const SCRIPT_RUNNERS = new Set(['node', 'nodejs', 'bun', 'deno']);
/** How far up the tree we look; a host is rarely more than a few shells away. */
const MAX_HOST_ANCESTOR_HOPS = 32;

/** A host named by the environment: a listed variable set to anything but empty, 0 or false. */
export function agentHostFromEnv(env: NodeJS.ProcessEnv): AgentHostFinding | undefined {
  for (const [name, host] of HOST_VARIABLES) {
    const value = env[name]?.trim().toLowerCase();
    if (value !== undefined && value !== '' && value !== '0' && value !== 'false') return { host, evidence: `the environment variable ${name}` };
  }
  return undefined;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop()!.toLowerCase().replace(/\.(exe|cmd|m?js|cjs)$/, '');
}

/** The host a command line runs, if any: its program's name, or the script a node runs. */
export function hostOfCommand(argv: readonly string[]): string | undefined {
  const program = baseName(argv[0] ?? '');
  if (Object.prototype.hasOwnProperty.call(HOST_PROGRAMS, program)) return HOST_PROGRAMS[program];
  if (!SCRIPT_RUNNERS.has(program)) return undefined;
  const script = argv.slice(1).find((arg) => !arg.startsWith('-'));
  if (script === undefined) return undefined;
  const named = baseName(script);
  if (Object.prototype.hasOwnProperty.call(HOST_PROGRAMS, named)) return HOST_PROGRAMS[named];
  return HOST_PACKAGES.find(([pkg]) => script.replace(/\\/g, '/').includes(`/${pkg}/`))?.[1];
}

interface Ancestor { ppid: number; argv: string[] }

function readAncestor(pid: number): Ancestor | undefined {
  if (thisProcessPlace().isProcOurs) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
      return Number.isSafeInteger(ppid) ? { ppid, argv } : undefined;
    } catch {
      return undefined;
    }
  }
  try {
    // Only where there is no /proc (macOS, BSD): ask ps, one process at a time.
    const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
    const out = execFileSync('ps', ['-o', 'ppid=', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] });
    const match = /^\s*(\d+)\s+(.*?)\s*$/m.exec(out);
    return match ? { ppid: Number(match[1]), argv: match[2]!.split(/\s+/) } : undefined;
  } catch {
    return undefined;
  }
}

/** The first host program among the ancestors of `startPid` (our parent by default), if any. */
export function agentHostAncestor(startPid: number = process.ppid, readProcess: (pid: number) => Ancestor | undefined = readAncestor): AgentHostFinding | undefined {
  for (let pid = startPid, hops = 0; pid > 1 && hops < MAX_HOST_ANCESTOR_HOPS; hops += 1) {
    const ancestor = readProcess(pid);
    if (!ancestor) return undefined;
    const host = hostOfCommand(ancestor.argv);
    if (host !== undefined) return { host, evidence: `the ancestor process ${baseName(ancestor.argv[0] ?? '?')} (pid ${pid})` };
    pid = ancestor.ppid;
  }
  return undefined;
}

/** The environment first (no file to read), then the process tree. */
export function findAgentHost(env: NodeJS.ProcessEnv, startPid: number = process.ppid): AgentHostFinding | undefined {
  return agentHostFromEnv(env) ?? agentHostAncestor(startPid);
}
