// `opencomms reservations`: a person's view of every edit reservation that
// holds, judged by the rule the hooks enforce with (engine isLiveReservation),
// and a person's release of one by id or of all one member holds: a person
// action, run only from the person's terminal (cli/person) and recorded with it.
import * as engine from '../engine';
import { openStore, type Store, type StoreSelection } from '../store';
import { printable } from '../watch/format';
import { personId, type PersonHere } from './person';

export interface ReservationsOptions {
  projectDir: string;
  json: boolean;
  /** --release: the id of one reservation to free. */
  release?: string;
  /** --release-member: the member whose reservations all go. */
  releaseMember?: string;
  write: (text: string) => void;
  warn: (text: string) => void;
  /** The store to use; the project's files when absent. */
  selection?: StoreSelection;
  env: NodeJS.ProcessEnv;
  /** Whether a person action may run here, and from which terminal (checkPersonHere); asked only for a release. */
  personHere: (command: string) => PersonHere;
}

/** Lists or releases; resolves to the exit code (1 when nothing matched a release). */
export async function runReservations(options: ReservationsOptions): Promise<number> {
  const target: engine.ReleaseTarget | undefined = options.release !== undefined ? { id: options.release }
    : options.releaseMember !== undefined ? { member_id: options.releaseMember } : undefined;
  let by: engine.PersonActor | undefined;
  if (target !== undefined) {
    const here = options.personHere('id' in target ? 'reservations --release' : 'reservations --release-member');
    if (!here.ok) {
      options.warn(`opencomms: ${here.problem}`);
      return 1;
    }
    by = { person_id: personId(options.env), terminal: here.terminal };
  }
  const store = openStore({ projectDir: options.projectDir, selection: options.selection });
  try {
    return target === undefined || by === undefined ? await listHeld(store, options) : await releaseHeld(store, target, by, options);
  } finally {
    await store.close();
  }
}

async function listHeld(store: Store, options: ReservationsOptions): Promise<number> {
  const rows = await store.readLatest((state, ctx) => engine.listHeldReservations(state, ctx.now(), ctx.isProcessAlive ?? engine.JUDGE_BY_LEASE));
  if (options.json) {
    options.write(`${JSON.stringify({ reservations: rows }, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    options.write('No reservation holds.\n');
    return 0;
  }
  options.write(`${rows.map(describeHeldReservation).join('\n')}\n`);
  return 0;
}

async function releaseHeld(store: Store, target: engine.ReleaseTarget, by: engine.PersonActor, options: ReservationsOptions): Promise<number> {
  const result = await store.mutate('person_release', { ...by, target });
  if (!result.ok) {
    options.warn(`opencomms: ${result.message}`);
    return 1;
  }
  const released = result.data?.released ?? [];
  if (options.json) options.write(`${JSON.stringify({ released }, null, 2)}\n`);
  else options.write(`${released.map((row) => `released ${describeHeldReservation(row)}`).join('\n')}\n`);
  return 0;
}

/** One reservation on one line; every peer-written or hand-written part through printable. */
function describeHeldReservation(row: engine.HeldReservation): string {
  const away = row.holder_away_since === null ? '' : `, holder away since ${engine.formatIsoTime(row.holder_away_since)}`;
  return `${printable(row.id, 64)} ${row.paths.map((p) => printable(p, 120)).join(', ')} by ${printable(row.role, 32)} (${printable(row.member_id, 64)})`
    + `${row.channel === '' ? '' : ` in channel ${printable(row.channel, 64)}`}, ${row.exclusive ? 'exclusive' : 'shared'}`
    + `${row.expires_at === null ? ' while its claim lasts' : ` until ${engine.formatIsoTime(row.expires_at)}`}${away}`
    + `${row.reason ? `: ${printable(row.reason, 120)}` : ''}`;
}
