// This process's controlling terminal, as the kernel keeps it: what a person
// action asks for (cli/person). A process that detached itself (`setsid`, a
// double fork whose session leader has gone, a daemon) has none, and `env -i`
// cannot give it one: the terminal is kept by the kernel, not the environment.
//   Linux: /proc/self/stat (tty_nr, the process group, the terminal's
//     foreground group, the session), and the /proc entries of the session's
//     leader and of the foreground group's leader.
//   Elsewhere with a /dev/tty (macOS, BSD): /dev/tty opens only with a
//     controlling terminal, and `ps` names it and its foreground group; the
//     session leader is not told.
//   Windows: no controlling terminal exists; a console on stdin is all there is to check.
import { closeSync, openSync, readFileSync } from 'node:fs';

/** What the kernel says about this process and its terminal. */
export interface TerminalFacts {
  /** The controlling terminal's device, e.g. `/dev/pts/3`; undefined when the process has none. */
  tty: string | undefined;
  /** Whether this process runs in the terminal's foreground process group (a job the person started, not one in the background). */
  isForeground: boolean;
  /** The pid of the session leader, which owns the terminal (its shell, `script`, tmux's pane); undefined where it cannot be told; 0 outside our pid namespace. */
  sessionLeader: number | undefined;
  /**
   * The pid that leads the terminal's foreground process group (the job the
   * terminal is running now: the person's command, or an agent host running
   * in the person's terminal); undefined where it cannot be told.
   */
  foregroundLeader: number | undefined;
  /** Which way the facts were found, in words, for a refusal to say. */
  how: string;
}

const NO_TERMINAL: Omit<TerminalFacts, 'how'> = { tty: undefined, isForeground: false, sessionLeader: undefined, foregroundLeader: undefined };

/** The Linux device name of a tty_nr: pseudo-terminals and consoles by name, anything else by number. */
export function ttyDeviceName(ttyNr: number): string {
  const major = (ttyNr >> 8) & 0xfff;
  const minor = (ttyNr & 0xff) | ((ttyNr >> 12) & 0xfff00);
  if (major >= 136 && major <= 143) return `/dev/pts/${(major - 136) * 256 + minor}`;
  if (major === 4) return minor < 64 ? `/dev/tty${minor}` : `/dev/ttyS${minor - 64}`;
  return `/dev/char/${major}:${minor}`;
}

/** Fields 5-8 of a /proc/<pid>/stat line (pgrp, session, tty_nr, tpgid), read after the command name, which may hold spaces and ')'. */
export function parseStatTerminal(stat: string): { pgrp: number; session: number; ttyNr: number; tpgid: number } | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [pgrp, session, ttyNr, tpgid] = [fields[2], fields[3], fields[4], fields[5]].map(Number);
  if (![pgrp, session, ttyNr, tpgid].every((n) => Number.isSafeInteger(n))) return undefined;
  return { pgrp: pgrp!, session: session!, ttyNr: ttyNr!, tpgid: tpgid! };
}

function linuxFacts(): TerminalFacts | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  const parsed = parseStatTerminal(stat);
  if (!parsed) return undefined;
  const how = '/proc/self/stat';
  if (parsed.ttyNr === 0) return { ...NO_TERMINAL, how };
  return {
    tty: ttyDeviceName(parsed.ttyNr), isForeground: parsed.tpgid === parsed.pgrp, sessionLeader: parsed.session,
    foregroundLeader: parsed.tpgid > 0 ? parsed.tpgid : undefined, how,
  };
}

function devTtyFacts(pid: number): TerminalFacts | undefined {
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENXIO: the file exists and says this process has no terminal. Anything else: no /dev/tty to ask.
    return code === 'ENXIO' || code === 'ENOTTY' ? { ...NO_TERMINAL, how: '/dev/tty' } : undefined;
  }
  closeSync(fd);
  // /dev/tty opened, so there is a terminal; where ps cannot tell its name or
  // foreground group, the action is let through on that alone and not judged a background job.
  try {
    const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
    const out = execFileSync('ps', ['-o', 'tty=', '-o', 'pgid=', '-o', 'tpgid=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] });
    const match = /^\s*(\S+)\s+(\d+)\s+(-?\d+)\s*$/m.exec(out);
    if (!match) return { ...NO_TERMINAL, tty: '/dev/tty', isForeground: true, how: '/dev/tty (ps could not tell the foreground group)' };
    const shown = match[1]!;
    const name = shown.startsWith('/') ? shown : `/dev/${shown.startsWith('tty') || shown.includes('/') ? '' : 'tty'}${shown}`;
    return { ...NO_TERMINAL, tty: name, isForeground: match[2] === match[3], how: '/dev/tty and ps' };
  } catch {
    return { ...NO_TERMINAL, tty: '/dev/tty', isForeground: true, how: '/dev/tty (ps could not tell the foreground group)' };
  }
}

/**
 * This process's terminal facts. `hasConsole` (stdin is a TTY) is used only
 * on Windows, which has no controlling terminal to ask about.
 */
export function readTerminalFacts(hasConsole: boolean, platform: NodeJS.Platform = process.platform): TerminalFacts {
  if (platform === 'win32') return { ...NO_TERMINAL, tty: hasConsole ? 'console' : undefined, isForeground: hasConsole, how: 'a console on stdin' };
  return (platform === 'linux' ? linuxFacts() : undefined)
    ?? devTtyFacts(process.pid)
    ?? { ...NO_TERMINAL, how: 'neither /proc/self/stat nor /dev/tty could be read' };
}

/** The program name the kernel keeps for a pid (Linux /proc/<pid>/comm), or undefined. Shown in a record, never trusted. */
export function processName(pid: number): string | undefined {
  try {
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return name === '' ? undefined : name;
  } catch {
    return undefined;
  }
}
