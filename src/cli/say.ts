// `opencomms say CHANNEL [--to ROLE|ID] [--type …] [--reply-to ID] [--role ROLE] TEXT|-`:
// a person posts to a channel as their person member, joining it on the
// first say. The send is the engine's (engine personSay): the same checks
// as an agent's, and it lifts a loop-guard pause. It runs only from the
// person's terminal (cli/person), which the message records.
import { openStore, type StoreSelection } from '../store';
import { printable } from '../watch/format';
import { personId, projectIdOf, type PersonHere } from './person';

export interface SayOptions {
  projectDir: string;
  selection?: StoreSelection;
  env: NodeJS.ProcessEnv;
  /** Whether a person action may run here, and from which terminal (checkPersonHere). */
  personHere: (command: string) => PersonHere;
  channel: string;
  /** The message; read from stdin already when the command line said `-`. */
  text: string;
  to?: string;
  type?: string;
  replyTo?: string;
  role?: string;
  write: (text: string) => void;
  warn: (text: string) => void;
}

/** Resolves to the exit code: 0 sent, 1 refused (the reason on stderr). */
export async function runSay(options: SayOptions): Promise<number> {
  const here = options.personHere('say');
  if (!here.ok) {
    options.warn(`opencomms: ${here.problem}`);
    return 1;
  }
  if (options.text.trim() === '') {
    options.warn('opencomms: say needs a message: give it as the last argument, or - to read it from stdin.');
    return 1;
  }
  const me = personId(options.env);
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  try {
    const result = await store.mutate('person_say', {
      channel: options.channel, person_id: me, terminal: here.terminal, content: options.text, role: options.role ?? null, type: options.type ?? null,
      reply_to: options.replyTo ?? null, to: options.to ?? null, project_id: projectIdOf(options.env), worktree: store.location,
    });
    if (!result.ok) {
      options.warn(`opencomms: ${printable(result.message, 600)} (reason: ${String(result.data?.reason)})`);
      return 1;
    }
    const ids = result.data?.message_ids ?? [];
    options.write(`${printable(result.message, 600)}\nsent as ${me}: ${ids.join(', ')}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
