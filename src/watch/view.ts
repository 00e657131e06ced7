// What the people view knows at one moment: the state plus every finished
// envelope still in its channel's history log. Finished mail leaves
// state.json on the same save that finishes it, so without the history a
// pull would look like the message simply vanished.
import { boardCounts, channelsAsJudged, claimerAwaySince, isReady, lastSeenByMember, listedTasks, nextReservationLapse, type BoardCounts, type Task } from '../engine';
import { isRecordedProcessAlive } from '../process/liveness';
import type { Channel, Envelope, ErrorEntry, HistoryView, PersonAction, ProcessCheck, State } from '../engine';

export interface WatchView {
  /** Channels by id (state.json keys them by name, which a rename would break). */
  channels: Map<string, Channel>;
  /** Live and finished envelopes of the current channels, by message id. */
  mail: Map<string, Envelope>;
  errors: ErrorEntry[];
  /** The person actions state still keeps, oldest first, each with its terminal. */
  personActions?: PersonAction[];
  /** When each member was last seen through one of its sessions (absent when never). */
  lastSeen?: Map<string, number>;
  /** When the view was taken (epoch ms), to leave out what had expired by then. */
  now?: number;
  /** When the next reservation shown lapses by time alone (epoch ms): the view changes then with no state change. */
  nextLapseAt?: number | null;
  /** The task board: its counts, and the tasks on it (ready first), each with its claimer's away time. */
  board?: { counts: BoardCounts; tasks: Array<{ task: Task; ready: boolean; away_since: number | null }> };
}

/** Builds a view from a fresh snapshot; the history log caches, so this only reads what grew. */
export function takeView(state: State, history: HistoryView): WatchView {
  const now = Date.now();
  const channels = new Map<string, Channel>();
  const isAlive: ProcessCheck = (proc) => isRecordedProcessAlive(proc);
  // Members' away marks and the reservations shown are the hooks' own judgement (engine/presence, isLiveReservation).
  for (const channel of Object.values(channelsAsJudged(state, now, isAlive))) channels.set(channel.id, channel);
  const mail = new Map<string, Envelope>();
  for (const id of channels.keys()) for (const record of history.list(id)) mail.set(record.message_id, record);
  // A crash between the history append and the state save can leave an
  // envelope in both; the live copy is the newer word on it.
  for (const envelope of Object.values(state.messages)) mail.set(envelope.message_id, envelope);
  const board = state.board === undefined ? undefined : {
    counts: boardCounts(state),
    tasks: listedTasks(state, 'open', undefined).map((task) => ({
      task: { ...task }, ready: isReady(state, task), away_since: claimerAwaySince(state, task, now, isAlive),
    })),
  };
  return {
    channels, mail, errors: [...state.errors], personActions: [...(state.person_actions ?? [])], lastSeen: lastSeenByMember(state), now,
    nextLapseAt: nextReservationLapse(state, now, isAlive), ...(board ? { board } : {}),
  };
}

/** The view before any state exists. */
export function emptyView(): WatchView {
  return { channels: new Map(), mail: new Map(), errors: [] };
}
