// `opencomms pause CHANNEL` / `opencomms resume CHANNEL` for a person: no
// membership needed, and a resume lifts a loop-guard pause, which agents
// cannot (opencomms_resume answers person_required). Both run only from the
// person's terminal (cli/person), or an agent could lift the guard from its
// shell tool; the change records that terminal.
import { openStore, type StoreSelection } from '../store';
import { printable } from '../watch/format';
import { personId, type PersonHere } from './person';

export interface PauseOptions {
  projectDir: string;
  selection?: StoreSelection;
  env: NodeJS.ProcessEnv;
  /** Whether a person action may run here, and from which terminal (checkPersonHere). */
  personHere: (command: string) => PersonHere;
  channel: string;
  write: (text: string) => void;
  warn: (text: string) => void;
}

/** Sets the channel's pause as a person; resolves to the exit code. */
export async function runPersonPause(options: PauseOptions, paused: boolean): Promise<number> {
  const command = paused ? 'pause' : 'resume';
  const here = options.personHere(command);
  if (!here.ok) {
    options.warn(`opencomms: ${here.problem}`);
    return 1;
  }
  const actor = { person_id: personId(options.env), terminal: here.terminal };
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  try {
    const result = await store.mutate('person_set_pause', { ...actor, channel: options.channel, paused });
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
