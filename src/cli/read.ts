// `opencomms read [CHANNEL] [--json]`: a person's own mail. The mail goes in
// flight to this process (the pull path the tools use), is printed, and is
// committed as delivered only once every byte of it was written; if printing
// fails it is given back (delivery/handover.ts, as the tools and hooks settle
// theirs), and if this process dies in between, the next reader's sweep
// brings it back (at least once, never lost).
import * as engine from '../engine';
import { openStore, type StoreSelection } from '../store';
import { processHostTag } from '../process/place';
import { isHolderRunning } from '../process/liveness';
import { settleHandover } from '../delivery/handover';
import { printable, printableBlock, terminalSafeJson } from '../watch/format';
import { personId, type PersonHere } from './person';

/** How long the printed mail is held against other processes' sweeps while it is written and committed. */
const READ_LEASE_MS = 60_000;

export interface ReadOptions {
  projectDir: string;
  selection?: StoreSelection;
  env: NodeJS.ProcessEnv;
  /** Whether a person action may run here, and from which terminal (checkPersonHere). */
  personHere: (command: string) => PersonHere;
  channel?: string;
  json: boolean;
  /** Writes to stdout and settles once every byte was written; rejects when it could not be. */
  print: (text: string) => Promise<void>;
  warn: (text: string) => void;
  /** How the person starts this program (cli/invocation): the answer line suggests that form. */
  command?: string;
}

/** One message as a person reads it: a header of our own, then the content, indented. */
function describeMail(mail: engine.PersonMail): string {
  const header = `[${printable(mail.channel, 64)}] ${printable(mail.from_role, 32)} (${printable(mail.from, 64)}) -> you: ${mail.type}`
    + `, ${printable(mail.message_id, 80)} at ${engine.formatIsoTime(mail.timestamp)}${mail.reply_to === null ? '' : `, replying to ${printable(mail.reply_to, 80)}`}`;
  const body = printableBlock(mail.content).split('\n').map((line) => `  ${line}`).join('\n');
  return `${header}\n${body}\n`;
}

function render(messages: readonly engine.PersonMail[], remaining: number, json: boolean, command: string): string {
  if (json) return `${terminalSafeJson({ messages, remaining }, 2)}\n`;
  if (messages.length === 0) return 'No mail for you.\n';
  const first = messages[0]!;
  return `${messages.map(describeMail).join('\n')}\n`
    + `Answer one with: ${command} say ${printable(first.channel, 64)} --reply-to ${printable(first.message_id, 80)} "…"\n`;
}

/** Resolves to the exit code: 0 printed (or nothing to print), 1 refused or not printed. */
export async function runRead(options: ReadOptions): Promise<number> {
  const here = options.personHere('read');
  if (!here.ok) {
    options.warn(`opencomms: ${here.problem}`);
    return 1;
  }
  const me = personId(options.env);
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  try {
    const machine = processHostTag();
    // Holders of in-flight mail are judged here, on this machine; the change re-checks what the state still says.
    const gone = await store.readLatest((state) => engine.findGoneHolders(state, (o) => isHolderRunning(o, machine)));
    const result = await store.mutate('person_read', {
      person_id: me, terminal: here.terminal, channel: options.channel ?? null, owner: { pid: process.pid, host: machine }, lease_ms: READ_LEASE_MS, gone,
    });
    if (!result.ok) {
      options.warn(`opencomms: ${printable(result.message, 600)} (reason: ${String(result.data?.reason)})`);
      return 1;
    }
    const messages = result.data!.messages!;
    const owner = result.data!.owner!;
    const ids = messages.map((m) => m.message_id);
    let printed = true;
    try {
      await options.print(render(messages, result.data!.remaining as number, options.json, options.command ?? 'opencomms'));
    } catch (err) {
      printed = false;
      options.warn(`opencomms: could not print your mail (${err instanceof Error ? err.message : String(err)}); it stays waiting for the next read.`);
    }
    if (ids.length > 0) await settleHandover(store, { memberId: me, owner, ids, via: 'pull' }, printed);
    return printed ? 0 : 1;
  } finally {
    await store.close();
  }
}
