// The Redis store: the same Store contract as the file store, on a Redis (or
// Valkey) that several machines share. A change loads the live state, its
// version and the history it needs in one atomic read, runs the engine on
// it (pure and synchronous, as with files), and commits with one Lua script
// that applies it only if the version is still the one loaded; a conflict
// puts the writer in line (turns.ts) and runs it again on its turn, up to the
// lock timeout (PROTOCOL.md "Redis store").
import { join, resolve as resolvePath } from 'node:path';
import type { EngineCtx, HistoryRecord, State, ToolResult } from '../../engine/types';
import type { StateCodec } from '../codec';
import { randomHex } from '../../process/crypto';
import { StoreFault } from '../faults';
import { isValidChannelId } from '../history';
import { addError, parseStateText, rejectionNote, type ParsedText, type ParseMemo } from '../load';
import { applyChange } from '../change';
import { LOCK_TIMEOUT_MS } from '../lock';
import { createEngineCtx, STATE_DIR_NAME, type ArchiveShelf, type Store, type StoreTx } from '../store';
import { archiveOfText, isArchiveRecord, type ArchiveRecord } from '../archives';
import { HISTORY_KEEP_RECORDS } from '../history';
import { RedisClient } from './client';
import type { RedisStoreConfig } from './config';
import { displayUrl } from './url';
import { HistoryCache, HistoryNotLoaded, type StreamEntry } from './history-cache';
import type { RespArg, RespValue } from './resp';
import { COMMIT_SCRIPT, commitScriptSha1 } from './scripts';
import { RespError } from './resp';
import { commitTurnArgs, createTurnLine, turnAnswerOf, turnKeysOf, type Place, type TurnAnswer } from './turns';

/** Stream entries read per XRANGE page. */
export const HISTORY_PAGE = 500;
/** Commit tokens the server remembers, to settle a commit whose reply was lost. */
export const REMEMBERED_COMMITS = 256;
/** An operation that keeps meeting channels it has not loaded stops here (a bug guard). */
const MAX_HISTORY_ROUNDS = 1_000;

/** The keys of one project: all under `oc:{<project id>}:`, one hash slot. */
export interface RedisKeys {
  state: string;
  version: string;
  commits: string;
  epoch: string;
  /** Hash: archive (channel) id → the archive record's JSON, as the file store's archive file holds it. */
  archives: string;
  /** Pub/sub channel: every commit publishes the new version here. */
  notices: string;
  history(channelId: string): string;
  corrupt(at: number): string;
  /** The pattern an ACL user needs on keys (and pub/sub channels). */
  pattern: string;
}

export function keysOf(prefix: string): RedisKeys {
  return {
    state: `${prefix}state`,
    version: `${prefix}version`,
    commits: `${prefix}commits`,
    epoch: `${prefix}history-epoch`,
    archives: `${prefix}archives`,
    notices: `${prefix}notices`,
    history: (channelId) => `${prefix}history:${channelId}`,
    corrupt: (at) => `${prefix}state.corrupt-${at}`,
    pattern: `${prefix}*`,
  };
}

/**
 * The commands the store's ACL user needs (besides the key pattern
 * ~oc:{<project id>}:*); PROTOCOL.md gives the same list to operators.
 */
export const STORE_ACL_COMMANDS = '-@all +@connection +select +get +mget +set +del +incr +lpush +ltrim +lrange +blpop +pexpire +hget +hgetall +hset +hdel +multi +exec +discard +eval +evalsha +xadd +xrange +xrevrange +publish +subscribe';

/** What a user of this store needs from the server, for NOPERM messages. */
export function aclHint(keys: RedisKeys): string {
  return `~${keys.pattern} and ${STORE_ACL_COMMANDS} (PROTOCOL.md, "Redis store")`;
}

export interface RedisStoreOptions {
  config: RedisStoreConfig;
  codec: StateCodec;
  /** The local project folder: pins and local files stay there (PROTOCOL.md). */
  projectDir: string;
  now?: () => number;
  /** How long a change keeps retrying conflicts before `lock_timeout`. */
  lockTimeoutMs?: number;
  /** How long the writer whose turn it is may take before the turn passes on (turns.ts). */
  turnLeaseMs?: number;
  historyKeep?: number;
  /** A client to use instead of one made from `config` (tests). */
  client?: RedisClient;
  random?: () => number;
  /** Awaited between running a change and committing it: tests commit a rival change here. */
  beforeCommit?: () => Promise<void>;
}

/** A Store on Redis. Reads that must see the server's latest state are asynchronous: `readLatest`, or `refresh` then `read`. */
export interface RedisStore extends Store {
  readonly kind: 'redis';
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
  close(): Promise<void>;
}

export interface CommitListener {
  /** A commit was published, with the version it made. */
  onCommit(version: string): void;
  onSubscribed(): void;
  log(line: string): void;
}

/** Re-subscription delays after a lost or refused subscription: doubling from the base to the cap. */
export const RESUBSCRIBE_BASE_MS = 100;
export const RESUBSCRIBE_MAX_MS = 5_000;

/** A client for a project's store configuration (its own connection); `timeoutMs` replaces the configured bound. */
export function clientFor(config: RedisStoreConfig, options: { timeoutMs?: number; random?: () => number } = {}): RedisClient {
  return new RedisClient({
    host: config.host,
    port: config.port,
    isTls: config.isTls,
    ca: config.ca,
    username: config.username,
    password: config.password,
    db: config.db,
    timeoutMs: options.timeoutMs ?? config.timeoutMs,
    permissionHint: aclHint(keysOf(config.keyPrefix)),
    random: options.random,
  });
}

/** Whether a store is a Redis store (its reads can be made fresh with refresh/readLatest). */
export function isRedisStore(store: Store): store is RedisStore {
  return (store as Partial<RedisStore>).kind === 'redis';
}

// One atomic read: the version, the state text (null when absent), the
// history epoch, and whatever the tracked channels gained.
interface Loaded {
  version: string;
  text: string | null;
  /** Writers wait in line (turns.ts): a change without a ticket joins it rather than run. */
  isLineBusy: boolean;
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
  const turns = createTurnLine({ client, openWaiter: newClient, keys: turnKeys, leaseMs: options.turnLeaseMs });
  // Strict while the store runs an engine operation: a channel not loaded
  // then stops the operation (HistoryNotLoaded) instead of reading as empty.
  let isInOperation = false;
  const history = cache.view(() => isInOperation);
  const ctx = createEngineCtx(now, history);
  const memo: ParseMemo = {};
  let current: Loaded | undefined;
  // One change at a time per process, as with the file store: conflicts are
  // for other processes, not for our own calls.
  let queue: Promise<unknown> = Promise.resolve();

  function enqueue<T>(work: () => Promise<T>): Promise<T> {
    const turn = queue.then(work);
    queue = turn.catch(() => undefined);
    return turn;
  }

  async function load(): Promise<Loaded> {
    const tracked = cache.tracked();
    // Nothing of history to catch up on: one MGET is already an atomic read.
    if (tracked.length === 0) return loadPlain();
    const commands: RespArg[][] = [['MULTI'], ['GET', keys.version], ['GET', keys.state], ['GET', keys.epoch]];
    for (const { channelId, lastId } of tracked) {
      commands.push(['XRANGE', keys.history(channelId), `(${lastId}`, '+', 'COUNT', HISTORY_PAGE]);
      commands.push(['XREVRANGE', keys.history(channelId), '+', '-', 'COUNT', 1]);
    }
    commands.push(['GET', turnKeys.next], ['GET', turnKeys.serving], ['EXEC']);
    const replies = await client.pipeline(commands);
    for (let i = 0; i < replies.length - 1; i++) client.check(replies[i]!, String(commands[i]![0]));
    const exec = client.check(replies[replies.length - 1]!, 'EXEC');
    if (!Array.isArray(exec) || exec.length !== commands.length - 2) throw protocolFault('EXEC answered an unexpected shape');
    const wrong = exec.findIndex((value) => value instanceof RespError && value.prefix === 'WRONGTYPE');
    if (wrong >= 0) throw await wrongTypeAt(String(commands[wrong + 1]![1]), String(commands[wrong + 1]![0]));
    const results = exec.map((value, i) => client.check(value, String(commands[i + 1]![0])));
    const loaded: Loaded = {
      version: textOf(results[0]!) ?? '', text: textOf(results[1]!), isLineBusy: isLineBusy(results[results.length - 2]!, results[results.length - 1]!),
    };
    cache.checkEpoch(textOf(results[2]!) ?? '0');
    for (let i = 0; i < tracked.length; i++) {
      const { channelId } = tracked[i]!;
      if (!cache.isTracked(channelId)) continue; // the epoch changed: read again on demand
      const entries = streamEntries(results[3 + 2 * i]!);
      cache.apply(channelId, entries);
      const top = streamEntries(results[4 + 2 * i]!)[0]?.id;
      if (entries.length === HISTORY_PAGE && top !== undefined) await pageUpTo(channelId, top);
    }
    current = loaded;
    return loaded;
  }

  async function loadPlain(): Promise<Loaded> {
    const reply = client.check(await client.command(['MGET', keys.version, keys.state, keys.epoch, turnKeys.next, turnKeys.serving]), 'MGET');
    if (!Array.isArray(reply) || reply.length !== 5) throw protocolFault('MGET answered an unexpected shape');
    cache.checkEpoch(textOf(reply[2]!) ?? '0');
    current = { version: textOf(reply[0]!) ?? '', text: textOf(reply[1]!), isLineBusy: isLineBusy(reply[3]!, reply[4]!) };
    return current;
  }

  // Entries up to `top` are settled (streams only grow at the end, and are
  // trimmed at the start), so the rest of a long catch-up can be read in
  // pages outside the atomic read and still match the state it loaded.
  async function pageUpTo(channelId: string, top: string): Promise<void> {
    for (;;) {
      const lastId = cache.lastIdOf(channelId);
      if (lastId === undefined || compareStreamIds(lastId, top) >= 0) return;
      const page = streamEntries(await client.command(['XRANGE', keys.history(channelId), `(${lastId}`, top, 'COUNT', HISTORY_PAGE]));
      if (page.length === 0) return;
      cache.apply(channelId, page);
    }
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
    step: (parsed: ParsedText, tx: StoreTx, staged: StagedArchives) => R, isChange: boolean, isSkipped: (loaded: Loaded) => boolean,
  ): Promise<Run<R> | undefined>;
  async function runLoaded<R>(
    step: (parsed: ParsedText, tx: StoreTx, staged: StagedArchives) => R, isChange: boolean, isSkipped?: (loaded: Loaded) => boolean,
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
      if (parsed.rejection !== undefined) {
        addError(parsed.state, now(), rejectionNote(`state in ${keys.state}`, parsed.rejection, isChange ? keys.corrupt(now()) : undefined));
      }
      isInOperation = true;
      try {
        return { outcome: step(parsed, tx, staged), loaded, rejectedText: parsed.rejection === undefined ? undefined : loaded.text ?? undefined, staged };
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
    loaded: Loaded;
    /** The rejected state text, which the commit preserves before replacing it. */
    rejectedText: string | undefined;
    /** Archive writes and deletes the change asked for, committed with it. */
    staged: StagedArchives;
  }

  interface StagedArchives {
    puts: Map<string, string>;
    deletes: Set<string>;
  }

  interface CommitOutcome {
    isCommitted: boolean;
    /** A refused commit's place in line. */
    turn?: TurnAnswer;
  }

  async function commit(
    expected: string, text: string, moved: Map<string, HistoryRecord[]>, rejectedText: string | undefined, staged: StagedArchives, place: Place,
  ): Promise<CommitOutcome> {
    const token = randomHex(12);
    const streams = [...moved.keys()];
    const turn = commitTurnArgs(turns, place);
    const keyList = [keys.version, keys.state, keys.commits, keys.corrupt(now()), keys.archives, ...turn.keys, ...streams.map((c) => keys.history(c))];
    const args: RespArg[] = [expected, token, text, keep, rejectedText ?? '', REMEMBERED_COMMITS, keys.notices, ...turn.args];
    args.push(staged.puts.size);
    for (const [id, record] of staged.puts) args.push(id, record);
    args.push(staged.deletes.size, ...staged.deletes);
    for (const channelId of streams) {
      const records = moved.get(channelId)!;
      args.push(records.length, ...records.map((r) => JSON.stringify(r)));
    }
    let reply: RespValue;
    try {
      reply = await runCommitScript([keyList.length, ...keyList, ...args]);
    } catch (err) {
      if (!(err instanceof StoreFault) || err.code !== 'store_unreachable') throw err;
      return settleUnknown(err, token);
    }
    if (!Array.isArray(reply) || (reply[0] !== 0 && reply[0] !== 1 && reply[0] !== 2)) throw protocolFault('the commit script answered an unexpected shape');
    if (reply[0] === 0) return { isCommitted: false, turn: turnAnswerOf(reply) };
    if (reply[0] === 2) throw await wrongTypeAt(textOf(reply[1]!) ?? '', 'the commit', textOf(reply[2]!) ?? undefined);
    const version = textOf(reply[1]!) ?? '';
    const ids = Array.isArray(reply[2]) ? reply[2].map((id) => textOf(id) ?? '') : [];
    // Our stream entries directly follow what the load read (the version
    // proved nothing came between), so the cache takes them as they are.
    let at = 0;
    for (const channelId of streams) {
      const records = moved.get(channelId)!;
      if (cache.isTracked(channelId)) {
        cache.apply(channelId, records.map((r, i): StreamEntry => ({ id: ids[at + i] ?? '0-0', fields: ['r', JSON.stringify(r)] })));
      }
      at += records.length;
    }
    current = { version, text, isLineBusy: false };
    // The codec wrote this text from a state that was valid: the next load of it (the usual case
    // without contention) needs no validation.
    if (codec.reparse && rejectedText === undefined) memo.text = text;
    return { isCommitted: true };
  }

  // By its SHA1, which the server keeps once it has seen the script: a
  // commit then carries 40 bytes instead of the script. A server that has
  // not seen it (first use, a restart, SCRIPT FLUSH) says NOSCRIPT, which
  // means the script did not run, and gets the whole script once.
  async function runCommitScript(rest: RespArg[]): Promise<RespValue> {
    const [first] = await client.pipeline([['EVALSHA', commitScriptSha1(), ...rest]]);
    if (first instanceof RespError && first.prefix === 'NOSCRIPT') return client.command(['EVAL', COMMIT_SCRIPT, ...rest]);
    return client.check(first!, 'EVALSHA');
  }

  // The commit's reply was lost with the connection: it may or may not have
  // run. The server remembers recent commit tokens; asking it settles the
  // question whenever it can be reached again within one more timeout.
  // (A commit still queued in the old connection's server-side buffer could
  // in theory run after this check; Redis reads a closed client's buffer
  // before dropping it, so the window is the server's own read latency.)
  async function settleUnknown(cause: StoreFault, token: string): Promise<CommitOutcome> {
    let tokens: RespValue;
    try {
      tokens = await client.command(['LRANGE', keys.commits, 0, REMEMBERED_COMMITS - 1]);
    } catch {
      throw new StoreFault('store_unreachable', `${cause.message}. This change may or may not have been saved: check with status or history before repeating it`, cause, true);
    }
    return { isCommitted: Array.isArray(tokens) && tokens.some((t) => textOf(t) === token) };
  }

  // A key of the project holds another type than the store keeps there, and
  // nothing was written. What it holds is told by which of our reads does not
  // meet WRONGTYPE: TYPE is not among the commands the store's ACL user has.
  async function wrongTypeAt(key: string, commandName: string, expected?: string): Promise<StoreFault> {
    const probes: [string, RespArg[]][] = [
      ['string', ['GET', key]], ['hash', ['HGET', key, '']], ['list', ['LRANGE', key, 0, 0]], ['stream', ['XREVRANGE', key, '+', '-', 'COUNT', 1]],
    ];
    let found: string | undefined;
    try {
      const replies = await client.pipeline(probes.map(([, command]) => command));
      found = probes[replies.findIndex((r) => !(r instanceof RespError))]?.[0];
    } catch {
      found = undefined; // the refusal stands without the type
    }
    return client.wrongTypeFault(key, commandName, expected, found);
  }

  function lockTimeout(attempts: number): StoreFault {
    return new StoreFault('lock_timeout', `gave up after ${attempts} attempts in ${lockTimeoutMs} ms: other writers kept committing to ${keys.state} on ${where}`);
  }

  function protocolFault(what: string): StoreFault {
    return new StoreFault('store_protocol_error', `The Redis store at ${where}: ${what}`, undefined, true);
  }

  // Saved sessions: one hash, read as it is now; written only by commits.
  const archives: ArchiveShelf = {
    async list(): Promise<ArchiveRecord[]> {
      const reply = client.check(await client.command(['HGETALL', keys.archives]), 'HGETALL');
      const fields = Array.isArray(reply) ? reply : [];
      const found: ArchiveRecord[] = [];
      for (let i = 0; i + 1 < fields.length; i += 2) {
        const [id, text] = [textOf(fields[i]!), textOf(fields[i + 1]!)];
        const record = id === null || text === null ? undefined : archiveOfText(text, id);
        if (record) found.push(record);
      }
      return found.sort((a, b) => b.saved_at - a.saved_at);
    },
    async get(channelId: string): Promise<ArchiveRecord | undefined> {
      if (!isValidChannelId(channelId)) return undefined;
      const text = textOf(client.check(await client.command(['HGET', keys.archives, channelId]), 'HGET'));
      return text === null ? undefined : archiveOfText(text, channelId);
    },
  };

  const store: RedisStore = {
    kind: 'redis',
    keys,
    client,
    projectDir,
    stateDir,
    statePath: `${where} ${keys.state}`,
    lockPath: `${where} ${keys.version}`,
    history,

    mutate<T extends ToolResult>(fn: (state: State, ctx: EngineCtx, tx: StoreTx) => T): Promise<T> {
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
            const outcome = await commit(run.loaded.version, write.text, write.finished, run.rejectedText, work, place);
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
    },

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
      const subscriber = newClient();
      let isClosed = false;
      let failures = 0;
      let timer: NodeJS.Timeout | undefined;
      const subscribe = (): void => {
        timer = undefined;
        if (isClosed) return;
        subscriber.subscribe(keys.notices, (_channel, version) => listener.onCommit(version)).then(
          () => {
            failures = 0;
            if (!isClosed) listener.onSubscribed();
          },
          () => undefined, // onConnectionLost has logged it and scheduled the next try
        );
      };
      // Our own backoff too: a refused AUTH is an answer the client retries at once.
      const again = (): void => {
        if (isClosed || timer) return;
        failures++;
        const delay = Math.min(RESUBSCRIBE_MAX_MS, RESUBSCRIBE_BASE_MS * 2 ** Math.min(failures - 1, 10));
        timer = setTimeout(subscribe, delay);
        timer.unref();
      };
      subscriber.onConnectionLost = (fault) => {
        if (isClosed) return;
        listener.log(`lost the commit notices of ${where} (${fault.code}): ${fault.message}; subscribing again`);
        again();
      };
      subscribe();
      return {
        close() {
          isClosed = true;
          if (timer) clearTimeout(timer);
          void subscriber.close();
        },
      };
    },

    archives,

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

/** A reply as text: bulk and simple strings, numbers; null for a null reply and anything else. */
export function textOf(value: RespValue): string | null {
  if (value === null) return null;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return String(value);
  return null;
}

// Tickets were handed out that are not all served: the last ticket is at or past the one served.
// An absent serving key means one past the last ticket (turn-scripts.ts).
function isLineBusy(next: RespValue, serving: RespValue): boolean {
  const last = Number(textOf(next) ?? '0');
  const servingText = textOf(serving);
  return servingText !== null && last >= Number(servingText);
}

function streamEntries(value: RespValue): StreamEntry[] {
  if (!Array.isArray(value)) return [];
  const entries: StreamEntry[] = [];
  for (const item of value) {
    if (!Array.isArray(item) || item.length !== 2 || !Array.isArray(item[1])) continue;
    const id = textOf(item[0]!);
    if (id === null) continue;
    entries.push({ id, fields: item[1].map((f) => textOf(f) ?? '') });
  }
  return entries;
}

/** Orders stream ids (`<ms>-<seq>`) numerically. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-').map((p) => BigInt(p || '0'));
  const [bm, bs] = b.split('-').map((p) => BigInt(p || '0'));
  if (am !== bm) return am! < bm! ? -1 : 1;
  if (as !== bs) return (as ?? 0n) < (bs ?? 0n) ? -1 : 1;
  return 0;
}
