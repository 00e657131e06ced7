// How a Redis store watches: every commit (any process, any machine)
// publishes its new version on the project's notices channel. A watch
// subscribes on a connection of its own, loads the new state before it wakes
// anyone, and loads now and then without a notice too (a safety net under
// pub/sub, which drops what it cannot deliver).
import type { StoreWatchOptions } from '../contract';
import type { StateWatcher } from '../../local/state-dir-watch';
import type { RedisClient } from './client';

/** Re-subscription delays after a lost or refused subscription: doubling from the base to the cap. */
export const RESUBSCRIBE_BASE_MS = 100;
export const RESUBSCRIBE_MAX_MS = 5_000;
/** How often a Redis watcher loads the state even without a notice (a safety net under pub/sub). */
export const REDIS_SAFETY_POLL_MS = 15_000;

export interface CommitListener {
  /** A commit was published, with the version it made. */
  onCommit(version: string): void;
  onSubscribed(): void;
  log(line: string): void;
}

export interface NoticeChannel {
  /** Makes the connection the subscription lives on (never the store's own: a subscribed connection runs nothing else). */
  newClient: () => RedisClient;
  channel: string;
  /** The server, as log lines name it. */
  where: string;
}

/**
 * Listens, on a connection of its own, for the notice every commit
 * publishes. `onSubscribed` runs each time the subscription is (re)made:
 * commits in the gap before it were not announced, so a listener looks at
 * the state then.
 */
export function subscribeToCommits(notices: NoticeChannel, listener: CommitListener): { close(): void } {
  const subscriber = notices.newClient();
  let isClosed = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  const subscribe = (): void => {
    timer = undefined;
    if (isClosed) return;
    subscriber.subscribe(notices.channel, (_channel, version) => listener.onCommit(version)).then(
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
    listener.log(`lost the commit notices of ${notices.where} (${fault.code}): ${fault.message}; subscribing again`);
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
}

/** What a Redis watch needs of its store. */
export interface CommitSource {
  refresh(): Promise<void>;
  loadedVersion(): string | undefined;
  watchCommits(listener: CommitListener): { close(): void };
}

/**
 * Wakes listeners when a commit is announced, after loading it (`refresh`,
 * or `options.load`), so a listener's synchronous `snapshot()` sees it, and
 * only when the loaded version is new. Loads never overlap: notices that
 * arrive during one fold into one more load after it.
 */
export function watchRedisState(source: CommitSource, options: StoreWatchOptions = {}): StateWatcher {
  const load = options.load ?? (() => source.refresh());
  const log = options.log ?? (() => undefined);
  const listeners = new Set<() => void>();
  let isClosed = false;
  let isLoading = false;
  let isDirty = false;
  let lastVersion: string | undefined;
  const wake = (): void => {
    if (isClosed) return;
    if (isLoading) {
      isDirty = true;
      return;
    }
    isLoading = true;
    load().then(
      () => {
        isLoading = false;
        if (isClosed) return;
        const version = source.loadedVersion();
        const isNew = version !== lastVersion;
        lastVersion = version;
        if (isNew) for (const listener of [...listeners]) callListener(listener, log);
        if (isDirty) {
          isDirty = false;
          wake();
        }
      },
      (err: unknown) => {
        isLoading = false;
        isDirty = false;
        log(`could not load the state after a change: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  };
  const notices = source.watchCommits({ onCommit: wake, onSubscribed: wake, log });
  const poll = setInterval(wake, options.pollMs ?? REDIS_SAFETY_POLL_MS);
  poll.unref();
  return {
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      isClosed = true;
      clearInterval(poll);
      notices.close();
      listeners.clear();
    },
  };
}

function callListener(listener: () => void, log: (line: string) => void): void {
  try {
    listener();
  } catch (err) {
    log(`state watcher listener failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
