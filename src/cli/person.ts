// Who a person's command speaks as, and where it refuses to run. Shared by
// say, read, pause, resume, reservations --release and the watch view's keys;
// loaded only by them.
import { userInfo } from 'node:os';
import { personMemberId, type PersonTerminal } from '../engine';
import { agentHostAncestor, findAgentHost, type AgentHostFinding } from '../process/agent-host';
import { processName, readTerminalFacts } from '../process/terminal';

/** The OS user this process runs as (the account, not a variable a caller sets), else USER / USERNAME. */
function osUserName(env: NodeJS.ProcessEnv): string {
  try {
    return userInfo().username;
  } catch {
    return env.USER ?? env.LOGNAME ?? env.USERNAME ?? '';
  }
}

/** The person member of this OS user: `person-<user>`. */
export function personId(env: NodeJS.ProcessEnv): string {
  return personMemberId(osUserName(env));
}

/** Whether a person action may run here, and from which terminal; else why not (one sentence or two, ending with its reason). */
export type PersonHere =
  | { ok: true; terminal: PersonTerminal }
  | { ok: false; reason: 'agent_host' | 'no_person_terminal'; problem: string };

const AGENTS_USE_TOOLS = 'Agents speak through their tools (opencomms_send, opencomms_pull, opencomms_resume); run this command from a terminal of your own.';

function hostRefusal(command: string, where: string, found: AgentHostFinding): PersonHere {
  return { ok: false, reason: 'agent_host', problem: `opencomms ${command} is for a person at a terminal, and ${where} ${found.host} (${found.evidence}). ${AGENTS_USE_TOOLS} (reason: agent_host)` };
}

function terminalRefusal(command: string, why: string): PersonHere {
  return {
    ok: false, reason: 'no_person_terminal',
    problem: `opencomms ${command} is a person's action and needs the person's terminal: ${why}. Without it an agent's shell could speak as the person or lift the loop guard. `
      + 'Run it from your own terminal; a script of yours runs under a terminal, or under `script -qec "…" /dev/null`. (reason: no_person_terminal)',
  };
}

/**
 * Whether `command`, a person action, may run in this process: not inside an
 * agent host (its environment, or a host among our ancestors), and with a
 * controlling terminal, in its foreground, whose session and foreground
 * group are not led from inside an agent host either. The terminal found is
 * what the action records. A program of the same OS user that opens a
 * terminal of its own (`script`) outside any agent's process tree passes:
 * docs/threat-model.md says so.
 */
export function checkPersonHere(command: string, env: NodeJS.ProcessEnv, parentPid: number, hasConsole: boolean): PersonHere {
  const found = findAgentHost(env, parentPid);
  if (found) return hostRefusal(command, 'this runs inside', found);
  const facts = readTerminalFacts(hasConsole);
  if (facts.tty === undefined) {
    return terminalRefusal(command, `this process has no controlling terminal (checked: ${facts.how}); a process an agent's tool starts often has none, `
      + 'one that detached itself (setsid, a double fork) has none, and clearing the environment (env -i) gives none');
  }
  if (!facts.isForeground) return terminalRefusal(command, `this process runs in the background of ${facts.tty}, not as the job the person started there`);
  let leader: string | null = null;
  if (facts.sessionLeader !== undefined) {
    const name = facts.sessionLeader > 0 ? processName(facts.sessionLeader) : undefined;
    if (name === undefined) return terminalRefusal(command, `the session that owns ${facts.tty} is led by a process this one cannot see, so who runs that terminal cannot be told`);
    const above = agentHostAncestor(facts.sessionLeader);
    if (above) return hostRefusal(command, `its terminal ${facts.tty} belongs to a session started inside`, above);
    leader = `${name} (pid ${facts.sessionLeader})`;
  }
  // An agent host running in the person's own terminal leads its foreground
  // group, and a child it did not detach shares that group: such a child
  // passes every check above once it has left the host's tree. A leader that
  // has exited (the first command of a pipeline) leaves our own ancestry to judge.
  const foreground = facts.foregroundLeader !== undefined && processName(facts.foregroundLeader) !== undefined
    ? agentHostAncestor(facts.foregroundLeader) : undefined;
  if (foreground) return hostRefusal(command, `its terminal ${facts.tty} is running, in the foreground,`, foreground);
  return { ok: true, terminal: { tty: facts.tty, session_leader: leader } };
}

/** The project id a person's membership is stamped with, as the tools stamp an agent's. */
export function projectIdOf(env: NodeJS.ProcessEnv): string {
  const raw = env.OPENCOMMS_PROJECT_ID;
  return raw && raw.trim() !== '' ? raw.trim() : 'local-project';
}
