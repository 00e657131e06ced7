// `opencomms pause CHANNEL` / `opencomms resume CHANNEL` for a person: no
// membership needed, and a resume lifts a loop-guard pause, which agents
// cannot (opencomms_resume answers person_required). Both are refused inside
// an agent host, or an agent could lift the guard from its shell tool.
import * as engine from '../engine';
import { openStore, type StoreSelection } from '../store';
import { printable } from '../watch/format';
import { agentHostProblem, personId } from './person';

export interface PauseOptions {
  projectDir: string;
  selection?: StoreSelection;
  env: NodeJS.ProcessEnv;
  parentPid: number;
  channel: string;
  write: (text: string) => void;
  warn: (text: string) => void;
}

/** Sets the channel's pause as a person; resolves to the exit code. */
export async function runPersonPause(options: PauseOptions, paused: boolean): Promise<number> {
  const command = paused ? 'pause' : 'resume';
  const problem = agentHostProblem(command, options.env, options.parentPid);
  if (problem) {
    options.warn(`opencomms: ${problem}`);
    return 1;
  }
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  try {
    const result = await store.mutate((state, ctx) => engine.personSetPause(state, { channel: options.channel, paused, person_id: personId(options.env) }, ctx));
    if (!result.ok) {
      options.warn(`opencomms: ${printable(result.message, 600)} (reason: ${String(result.data?.reason)})`);
      return 1;
    }
    options.write(`${printable(result.message, 600)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/** `opencomms pause CHANNEL`. */
export function runPause(options: PauseOptions): Promise<number> {
  return runPersonPause(options, true);
}
