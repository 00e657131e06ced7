// Runs requests concurrently but answers them strictly in arrival order,
// remembers cancellations of requests that have not been answered yet, and
// tells a handler whether its reply was written (see AfterReply).
import { clipName, INTERNAL_ERROR, METHOD_NOT_FOUND, RpcError } from './errors';
import { parseIncoming, type Params, type RequestId } from './message';

/**
 * What became of a reply: `sent` once the output accepted all of it (the
 * write callback ran without an error); `not_sent` when the request was
 * cancelled, its handler failed, or the write failed.
 */
export type ReplyFate = 'sent' | 'not_sent';

/** Work that must follow a reply's fate, such as committing or requeuing the mail it carried. */
export type AfterReply = (fate: ReplyFate) => void | Promise<void>;

/** What a handler may ask of the dispatcher about its own request. */
export interface RequestContext {
  readonly id: RequestId;
  /** Runs `action` once this request's reply was written, or is known never to be. */
  afterReply(action: AfterReply): void;
}

export type Handler = (params: Params, request: RequestContext) => unknown | Promise<unknown>;
export type NotificationHandler = (params: Params) => void;

export interface MethodTable {
  /** Resolves a method to its handler, or undefined when it is unknown (→ -32601). */
  requestHandler(method: string, params: Params): Handler | undefined;
  notificationHandler?(method: string): NotificationHandler | undefined;
}

export type Outgoing = Record<string, unknown>;

interface Slot {
  id?: RequestId;
  done: boolean;
  isCancelled: boolean;
  message?: Outgoing;
  /** Whether `message` is the handler's own result (a fault reply carries nothing it handed over). */
  isResult: boolean;
  /** Work to run once the reply's fate is known; null once the slot has been flushed. */
  afterReply: AfterReply[] | null;
}

/** Writes one message; `onWritten` runs once the output took it (or failed to). */
export type Send = (message: Outgoing, onWritten?: (err?: Error | null) => void) => void;

/** Stamps the reply for `id`; an absent id (parse errors) leaves the member out entirely. */
function errorReply(id: RequestId | undefined, code: number, message: string, data?: unknown): Outgoing {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

export class Dispatcher {
  private readonly slots: Slot[] = [];
  private idle: (() => void)[] = [];
  /** Replies whose after-reply work has not finished (their write may still be on its way). */
  private settling = 0;

  constructor(
    private readonly table: MethodTable,
    private readonly send: Send,
    private readonly log: (line: string) => void,
  ) {}

  /** Handles one frame's text. Requests get a slot in the reply order at once. */
  handleLine(text: string): void {
    const incoming = parseIncoming(text);
    switch (incoming.kind) {
      case 'response':
        return; // we never send requests, so there is nothing to match
      case 'invalid':
        this.enqueue(incoming.id, errorReply(incoming.id, incoming.code, incoming.message));
        return;
      case 'notification':
        this.notify(incoming.method, incoming.params);
        return;
      case 'request':
        this.run(incoming.id, incoming.method, incoming.params);
    }
  }

  /** Queues an error reply that has no request behind it (an oversized frame). */
  replyError(code: number, message: string): void {
    this.enqueue(undefined, errorReply(undefined, code, message));
  }

  /**
   * Resolves once every request read so far has been answered or dropped,
   * and the after-reply work of each has finished.
   */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private isIdle(): boolean {
    return this.slots.length === 0 && this.settling === 0;
  }

  get pending(): number {
    return this.slots.length;
  }

  private notify(method: string, params: Params): void {
    if (method === 'notifications/cancelled') {
      const requestId = params && !Array.isArray(params) ? params.requestId : undefined;
      // Every slot still here is unanswered on the wire, even if its handler has finished.
      for (const slot of this.slots) {
        if (slot.id !== undefined && slot.id === requestId) slot.isCancelled = true;
      }
      return;
    }
    const handler = this.table.notificationHandler?.(method);
    if (!handler) return; // unknown notifications are ignored, never answered
    try {
      handler(params);
    } catch (err) {
      this.log(`notification ${method} failed: ${describeError(err)}`);
    }
  }

  private run(id: RequestId, method: string, params: Params): void {
    const slot: Slot = { id, done: false, isCancelled: false, isResult: false, afterReply: [] };
    this.slots.push(slot);
    const request: RequestContext = {
      id,
      afterReply: (action) => {
        // Registered after the slot was flushed (a handler that kept working
        // after it returned): its reply is long gone, so the fate is unknown;
        // treat it as not sent, the safe side for mail.
        if (slot.afterReply === null) this.runAfterReply([action], 'not_sent');
        else slot.afterReply.push(action);
      },
    };
    let handler: Handler | undefined;
    try {
      handler = this.table.requestHandler(method, params);
    } catch (err) {
      this.settle(slot, this.faultReply(id, method, err));
      return;
    }
    if (!handler) {
      this.settle(slot, errorReply(id, METHOD_NOT_FOUND, `Method not found: ${clipName(method)}`));
      return;
    }
    const call = handler;
    Promise.resolve()
      .then(() => call(params, request))
      .then(
        (result) => {
          slot.isResult = true;
          this.settle(slot, { jsonrpc: '2.0', id, result });
        },
        (err: unknown) => this.settle(slot, this.faultReply(id, method, err)),
      );
  }

  private faultReply(id: RequestId, method: string, err: unknown): Outgoing {
    if (err instanceof RpcError) return errorReply(id, err.code, err.message, err.data);
    this.log(`dispatch ${method} failed: ${describeError(err)}`);
    return errorReply(id, INTERNAL_ERROR, 'Internal error');
  }

  private enqueue(id: RequestId | undefined, message: Outgoing): void {
    this.slots.push({ id, done: true, isCancelled: false, message, isResult: false, afterReply: [] });
    this.flush();
  }

  private settle(slot: Slot, message: Outgoing): void {
    slot.done = true;
    slot.message = message;
    this.flush();
  }

  private flush(): void {
    while (this.slots.length > 0 && this.slots[0].done) {
      const slot = this.slots.shift() as Slot;
      const isSending = !slot.isCancelled && slot.message !== undefined;
      const actions = slot.afterReply ?? [];
      slot.afterReply = null;
      if (actions.length === 0) {
        if (isSending) this.send(slot.message as Outgoing);
      } else if (!isSending || !slot.isResult) {
        // Cancelled, or a fault reply instead of the result the work was for:
        // what the handler handed over never reaches the client. Runs now,
        // so work queued by later requests comes after it.
        if (isSending) this.send(slot.message as Outgoing);
        this.runAfterReply(actions, 'not_sent');
      } else {
        this.settling += 1;
        this.send(slot.message as Outgoing, (err) => {
          this.settling -= 1;
          this.runAfterReply(actions, err ? 'not_sent' : 'sent');
        });
      }
    }
    this.wakeIdle();
  }

  // Each action starts synchronously, so whatever it queues (a state change)
  // is queued before the work of any request read after this point.
  private runAfterReply(actions: readonly AfterReply[], fate: ReplyFate): void {
    this.settling += 1;
    const work = actions.map((action) => {
      let started: Promise<void>;
      try {
        started = Promise.resolve(action(fate));
      } catch (err) {
        started = Promise.reject(err);
      }
      return started.catch((err: unknown) => this.log(`after-reply work (${fate}) failed: ${describeError(err)}`));
    });
    void Promise.all(work).then(() => {
      this.settling -= 1;
      this.wakeIdle();
    });
  }

  private wakeIdle(): void {
    if (this.isIdle() && this.idle.length > 0) {
      const waiters = this.idle;
      this.idle = [];
      for (const resolve of waiters) resolve();
    }
  }
}

function describeError(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}
