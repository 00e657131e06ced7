// Who a person's command speaks as, and where it refuses to run. Shared by
// say, read, pause, resume and the watch view's keys; loaded only by them.
import { userInfo } from 'node:os';
import { personMemberId } from '../engine';
import { findAgentHost } from '../process/agent-host';

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

/**
 * Why `command` must not run here, or undefined: it runs inside an agent
 * host (its environment, or a host among our ancestors). One sentence.
 */
export function agentHostProblem(command: string, env: NodeJS.ProcessEnv, parentPid: number): string | undefined {
  const found = findAgentHost(env, parentPid);
  if (!found) return undefined;
  return `opencomms ${command} is for a person at a terminal, and this runs inside ${found.host} (${found.evidence}). `
    + 'Agents speak through their tools (opencomms_send, opencomms_pull, opencomms_resume); run this command from a terminal of your own.';
}

/** The project id a person's membership is stamped with, as the tools stamp an agent's. */
export function projectIdOf(env: NodeJS.ProcessEnv): string {
  const raw = env.OPENCOMMS_PROJECT_ID;
  return raw && raw.trim() !== '' ? raw.trim() : 'local-project';
}
