// The Redis store: the same Store contract as the file store, on a Redis (or
// Valkey) that several machines share. A change loads the live state, its
// version and the history it needs in one atomic read (state-load.ts), runs
// the engine on it (pure and synchronous, as with files), and commits with
// one Lua script that applies it only if the version is still the one loaded
// (state-commit.ts); a conflict
// puts the writer in line (turns.ts) and runs it again on its turn, up to the
// lock timeout (PROTOCOL.md "Redis store").
import { join, resolve as resolvePath } from 'node:path';
import type { EngineCtx, State, ToolResult } from '../../engine/types';
import type { StateCodec } from '../codec';
import { StoreFault } from '../../files/faults';
import { isValidChannelId } from '../limits';
import { addError } from '../../engine/error-log';
import { noteRejection, parseStateText, rejectionNote, type ParsedText, type ParseMemo } from '../parse';
import { applyChange } from '../change';
import { LOCK_TIMEOUT_MS } from '../limits';
import { createEngineCtx } from '../ctx';
import type { Store, StoreTx } from '../contract';
import { changeFnOf, type LocalChange, type LocalEdits } from '../change-call';
import { describeSelection } from '../describe';
import { STATE_DIR_NAME } from '../../local/state-dir';
import { isArchiveRecord } from '../archive-shape';
import { HISTORY_KEEP_RECORDS } from '../limits';
import { RedisClient } from './client';
import type { RedisStoreConfig } from './config';
import { displayUrl } from './url';
import { HistoryCache, HistoryNotLoaded } from './history-cache';
import { clientFor, keysOf, type RedisKeys } from './keys';
import { streamHistoryPager } from './history-pages';
import { commitRedisState, type CommitSite, type StagedArchives } from './state-commit';
import { loadRedisState, type LoadedState } from './state-load';
import { redisArchiveShelf, redisBoardShelf } from './archive-shelf';
import { subscribeToCommits, watchRedisState, type CommitListener } from './commit-watch';
import { checkRedisStore } from './self-check';
import { createTurnLine, turnKeysOf, type Place } from './turns';

/** An operation that keeps meeting channels it has not loaded stops here (a bug guard). */
const MAX_HISTORY_ROUNDS = 1_000;

export interface RedisStoreOptions {
  config: RedisStoreConfig;
  codec: StateCodec;
  /** The local project folder: pins and local files stay there (PROTOCOL.md). */
  projectDir: string;
  now?: () => number;
  /** How long a change keeps retrying conflicts before `lock_timeout`. */
  lockTimeoutMs?: number;
  /** How long the writer whose turn it is keeps it without a heartbeat before the turn passes on (turns.ts). */
  turnLeaseMs?: number;
  historyKeep?: number;
  /** A client to use instead of one made from `config` (tests). */
  client?: RedisClient;
  random?: () => number;
  /** Awaited between running a change and committing it: tests commit a rival change here. */
  beforeCommit?: () => Promise<void>;
}

/** A Store on Redis. Reads that must see the server's latest state are asynchronous: `readLatest`, or `refresh` then `read`. */
export interface RedisStore extends Store, LocalEdits {
  readonly keys: RedisKeys;
  readonly client: RedisClient;
  /** The version of the last load or commit of this process ('' before any, or for a project with no state yet). */
  loadedVersion(): string | undefined;
  /**
   * Listens, on a connection of its own, for the notice every commit
   * publishes (any process, any machine). `onSubscribed` runs each time the
   * subscription is (re)made: commits in the gap before it were not
   * announced, so a listener looks at the state then.
   */
  watchCommits(listener: CommitListener): { close(): void };
}

export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const { config, codec } = options;
  const projectDir = resolvePath(options.projectDir);
  const stateDir = join(projectDir, STATE_DIR_NAME);
  const keys = keysOf(config.keyPrefix);
  const where = displayUrl(config);
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const lockTimeoutMs = options.lockTimeoutMs ?? LOCK_TIMEOUT_MS;
  const keep = options.historyKeep ?? HISTORY_KEEP_RECORDS;
  const newClient = (): RedisClient => clientFor(config, { random });
  const client = options.client ?? newClient();
  const cache = new HistoryCache(keep);
  const turnKeys = turnKeysOf(config.keyPrefix);
  const turns = createTurnLine({ client, openListener: newClient, keys: turnKeys, leaseMs: options.turnLeaseMs });
  // Strict while the store runs an engine operation: a channel not loaded
  // then stops the operation (HistoryNotLoaded) instead of reading as empty.
  let isInOperation = false;
  const history = cache.view(() => isInOperation);
  const ctx = createEngineCtx(now, history);
  const memo: ParseMemo = {};
  let current: LoadedState | undefined;
  const commitSite: CommitSite = { client, keys, turns, cache, codec, memo, keep, where, now };
  // One change at a time per process, as with the file store: conflicts are
  // for other processes, not for our own calls.
  let queue: Promise<unknown> = Promise.resolve();

  function enqueue<T>(work: () => Promise<T>): Promise<T> {
    const turn = queue.then(work);
    queue = turn.catch(() => undefined);
    return turn;
  }

  async function load(): Promise<LoadedState> {
    current = await loadRedisState({ client, keys, cache, where, turnKeys });
    return current;
  }

  // `learn` (parseStateText): worth its extra serialization for views that
  // read one text many times; a change under contention seldom sees a text
  // twice and does not pay for it (its own commits teach the memo instead).
  function parse(text: string | null, learn: boolean): ParsedText {
    if (text === null) {
      const state = codec.emptyState();
      return { state, baseline: codec.serializeState(state) };
    }
    return parseStateText(codec, text, now(), memo, learn);
  }

  // Runs `step` on a fresh parse of the loaded state; a channel whose
  // history is not loaded yet is loaded (with a fresh, consistent state) and
  // `step` runs again from scratch. With `isSkipped`, a first load it judges
  // runs nothing and answers undefined.
  async function runLoaded<R>(step: (parsed: ParsedText, tx: StoreTx, staged: StagedArchives) => R, isChange: boolean): Promise<Run<R>>;
  async function runLoaded<R>(
    step: (parsed: ParsedText, tx: StoreTx, staged: StagedArchives) => R, isChange: boolean, isSkipped: (loaded: LoadedState) => boolean,
  ): Promise<Run<R> | undefined>;
  async function runLoaded<R>(
    step: (parsed: ParsedText, tx: StoreTx, staged: StagedArchives) => R, isChange: boolean, isSkipped?: (loaded: LoadedState) => boolean,
  ): Promise<Run<R> | undefined> {
    let loaded = await load();
    if (isSkipped?.(loaded)) return undefined;
    for (let round = 0; ; round++) {
      const staged: StagedArchives = { puts: new Map(), deletes: new Set() };
      const tx: StoreTx = {
        putArchive(archive) {
          if (!isArchiveRecord(archive) || !isValidChannelId(archive.channel_id)) throw new Error('not a valid archive record');
          staged.deletes.delete(archive.channel_id);
          staged.puts.set(archive.channel_id, JSON.stringify(archive));
        },
        deleteArchive(channelId) {
          if (!isValidChannelId(channelId)) return;
          staged.puts.delete(channelId);
          staged.deletes.add(channelId);
        },
      };
      const parsed = parse(loaded.text, !isChange);
      // The copy's key is fixed here, so the note, the quarantine record and the commit name the same one.
      const rejectedKey = parsed.rejection !== undefined && isChange ? keys.corrupt(now()) : undefined;
      if (parsed.rejection !== undefined) noteRejection(parsed.state, now(), `state in ${keys.state}`, parsed.rejection, rejectedKey);
      isInOperation = true;
      try {
        return { outcome: step(parsed, tx, staged), loaded, rejectedText: parsed.rejection === undefined ? undefined : loaded.text ?? undefined, rejectedKey, staged };
      } catch (err) {
        if (!(err instanceof HistoryNotLoaded) || round >= MAX_HISTORY_ROUNDS) throw err;
        cache.track(err.channelId);
      } finally {
        isInOperation = false;
      }
      loaded = await load();
    }
  }

  interface Run<R> {
    outcome: R;
    loaded: LoadedState;
    /** The rejected state text, which the commit preserves before replacing it. */
    rejectedText: string | undefined;
    rejectedKey: string | undefined;
    /** Archive writes and deletes the change asked for, committed with it. */
    staged: StagedArchives;
  }

  function lockTimeout(attempts: number): StoreFault {
    return new StoreFault('lock_timeout', `gave up after ${attempts} attempts in ${lockTimeoutMs} ms: other writers held ${keys.state} on ${where} the whole time`);
  }

  const description = describeSelection({ kind: 'redis', config }, projectDir);
  // One change under optimistic commits (each retry is one script): a burst needs nothing written down as data.
  function commitChange<T extends ToolResult>(fn: LocalChange<T>): Promise<T> {
    return enqueue(async () => {
      const started = Date.now();
      const place: Place = { ticket: undefined };
      try {
        for (let attempt = 1; ; attempt++) {
          const run = await runLoaded((parsed, tx, staged) => applyChange(
            parsed, codec, now(), (state) => fn(state, ctx, tx), () => staged.puts.size > 0 || staged.deletes.size > 0,
          ), true, (loaded) => place.ticket === undefined && loaded.isLineBusy);
          if (!run) {
            // Others wait in line: running the change now would only be refused.
            if (!(await turns.join(place, started + lockTimeoutMs))) throw lockTimeout(attempt);
            continue;
          }
          const { result, write } = run.outcome;
          if (!write) return result;
          await options.beforeCommit?.();
          // A refused change saves only the fallback text, never its archive work.
          const work = write.isFallback ? { puts: new Map(), deletes: new Set<string>() } : run.staged;
          const outcome = await commitRedisState(commitSite, {
            expected: run.loaded.version, text: write.text, moved: write.finished, retired: write.retired,
            rejectedText: run.rejectedText, rejectedKey: run.rejectedKey, staged: work, place,
          });
          if (outcome.committed) current = outcome.committed;
          if (outcome.isCommitted) {
            place.ticket = undefined; // the commit passed our turn on
            return result;
          }
          if (Date.now() - started >= lockTimeoutMs || !(await turns.waitForTurn(place, outcome.turn, started + lockTimeoutMs))) {
            throw lockTimeout(attempt);
          }
        }
      } finally {
        await turns.leave(place);
      }
    });
  }

  const store: RedisStore = {
    keys,
    client,
    projectDir,
    stateDir,
    location: description.location,
    history,
    archives: redisArchiveShelf(client, keys),
    boardHistory: redisBoardShelf(client, keys),

    describe: () => description,

    hasState: () => current?.version !== '',

    mutate: ((name: string, args: unknown): Promise<ToolResult> => {
      const apply = changeFnOf(name);
      const plain = args === undefined ? undefined : JSON.parse(JSON.stringify(args)) as unknown; // as a file store would see it
      return commitChange((state, changeCtx, tx) => apply(state, plain, changeCtx, tx));
    }) as Store['mutate'],

    editLocally: commitChange,

    read<T>(fn: (state: State, ctx: EngineCtx) => T): T {
      return fn(store.snapshot(), ctx);
    },

    snapshot(): State {
      if (!current) {
        throw new Error('the Redis store was read before it was loaded: await refresh() (or use readLatest) first');
      }
      const parsed = parse(current.text, true);
      if (parsed.rejection !== undefined) addError(parsed.state, now(), rejectionNote(`state in ${keys.state}`, parsed.rejection));
      return parsed.state;
    },

    async refresh(): Promise<void> {
      await enqueue(load);
    },

    async readLatest<T>(fn: (state: State, ctx: EngineCtx) => T): Promise<T> {
      return (await enqueue(() => runLoaded((parsed) => fn(parsed.state, ctx), false))).outcome;
    },

    loadedVersion: () => current?.version,

    watchCommits(listener: CommitListener): { close(): void } {
      return subscribeToCommits({ newClient, channel: keys.notices, where }, listener);
    },

    watch: (watchOptions) => watchRedisState(store, watchOptions),

    check: (checkOptions) => checkRedisStore({ ...checkOptions, config, projectDir }),


    // On a connection of its own, closed with the pager: a long read never holds up the store's commands.
    pageHistory: () => streamHistoryPager(newClient(), keys.history),

    dropHistory(channelId: string): Promise<void> {
      return enqueue(async () => {
        if (!isValidChannelId(channelId)) return;
        const replies = await client.pipeline([['MULTI'], ['DEL', keys.history(channelId)], ['INCR', keys.epoch], ['EXEC']]);
        replies.forEach((r, i) => client.check(r, ['MULTI', 'DEL', 'INCR', 'EXEC'][i]!));
        cache.forget(channelId);
      });
    },

    async close(): Promise<void> {
      await Promise.all([client.close(), turns.close()]);
    },
  };
  return store;
}

