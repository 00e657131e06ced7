// The host process a server or hook runs under: the nearest ancestor that is
// not a shell or a package runner. Hosts that tell their servers no session
// id (Gemini CLI, older Claude Code) are told apart by it. It is named by
// pid AND start time, so a pid the system hands out again never matches.
import { readFileSync } from 'node:fs';
import { processStartTicks, thisProcessPlace } from '../process/place';

/** Programs that only start another: a host runs its hooks (and sometimes its servers) through them. */
const GO_BETWEENS = new Set([
  'sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'ash', 'busybox', 'env', 'timeout', 'nice', 'nohup', 'stdbuf', 'setsid',
  'npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'bunx', 'cmd.exe', 'powershell', 'pwsh',
]);
/** How far up the tree the search goes. */
const MAX_ANCESTOR_HOPS = 8;

interface ProcessFacts {
  ppid: number;
  name: string;
  /** A start time that tells this process from a later one with the same pid. */
  start: string;
}

/** Whether a process with this command name only starts another program. */
export function isGoBetween(name: string): boolean {
  const base = name.trim().split('/').pop()!.toLowerCase();
  const first = base.split(' ')[0]!;
  return GO_BETWEENS.has(first) || GO_BETWEENS.has(base) || first.startsWith('npm') || /^-(ba|z|k|da)?sh$/.test(base);
}

/**
 * `<pid>@<start>` of the nearest ancestor that is not a go-between, qualified
 * by the pid namespace where /proc tells it; undefined when the tree cannot
 * be read (the caller then has no process to go by). `startPid` is for tests.
 */
export function hostProcessId(startPid: number = process.ppid): string | undefined {
  let pid = startPid;
  for (let depth = 0; depth < MAX_ANCESTOR_HOPS && pid > 1; depth += 1) {
    const facts = readFacts(pid);
    if (!facts) return undefined;
    if (!isGoBetween(facts.name)) {
      const ns = thisProcessPlace().ns;
      return `${ns === undefined ? '' : `${ns}/`}${pid}@${facts.start}`;
    }
    pid = facts.ppid;
  }
  return undefined;
}

function readFacts(pid: number): ProcessFacts | undefined {
  if (thisProcessPlace().isProcOurs) return readProcFacts(pid);
  return readPsFacts(pid);
}

function readProcFacts(pid: number): ProcessFacts | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  const start = processStartTicks(pid);
  if (open < 0 || !Number.isSafeInteger(ppid) || start === undefined) return undefined;
  return { ppid, name: readCommand(pid) ?? text.slice(open + 1, close), start: String(start) };
}

// The program's own name from its command line (the stat name is cut to 15
// characters and is the thread's name, which Node programs may change).
function readCommand(pid: number): string | undefined {
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    return argv0 === undefined || argv0 === '' ? undefined : argv0;
  } catch {
    return undefined;
  }
}

// Where there is no /proc (macOS, BSD): ask ps, one process at a time.
function readPsFacts(pid: number): ProcessFacts | undefined {
  let out: string;
  try {
    // Required here, not at the top: only hosts without /proc ever need it.
    const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
    out = execFileSync('ps', ['-o', 'ppid=', '-o', 'lstart=', '-o', 'comm=', '-p', String(pid)], {
      encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return undefined;
  }
  const match = /^\s*(\d+)\s+(\w{3} \w{3}\s+\d+ [\d:]+ \d{4})\s+(.+?)\s*$/m.exec(out);
  if (!match) return undefined;
  return { ppid: Number(match[1]), start: match[2]!.replace(/\s+/g, '_'), name: match[3]! };
}
