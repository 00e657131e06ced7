// Runs requests concurrently but answers them strictly in arrival order, and
// remembers cancellations of requests that have not been answered yet.
import { clipName, INTERNAL_ERROR, METHOD_NOT_FOUND, RpcError } from './errors';
import { parseIncoming, type Params, type RequestId } from './message';

export type Handler = (params: Params, id: RequestId) => unknown | Promise<unknown>;
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
}

/** Stamps the reply for `id`; an absent id (parse errors) leaves the member out entirely. */
function errorReply(id: RequestId | undefined, code: number, message: string, data?: unknown): Outgoing {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

export class Dispatcher {
  private readonly slots: Slot[] = [];
  private idle: (() => void)[] = [];

  constructor(
    private readonly table: MethodTable,
    private readonly send: (message: Outgoing) => void,
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

  /** Resolves once every request read so far has been answered or dropped. */
  whenIdle(): Promise<void> {
    if (this.slots.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
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
      this.log(`notification ${method} failed: ${describe(err)}`);
    }
  }

  private run(id: RequestId, method: string, params: Params): void {
    const slot: Slot = { id, done: false, isCancelled: false };
    this.slots.push(slot);
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
      .then(() => call(params, id))
      .then(
        (result) => this.settle(slot, { jsonrpc: '2.0', id, result }),
        (err: unknown) => this.settle(slot, this.faultReply(id, method, err)),
      );
  }

  private faultReply(id: RequestId, method: string, err: unknown): Outgoing {
    if (err instanceof RpcError) return errorReply(id, err.code, err.message, err.data);
    this.log(`dispatch ${method} failed: ${describe(err)}`);
    return errorReply(id, INTERNAL_ERROR, 'Internal error');
  }

  private enqueue(id: RequestId | undefined, message: Outgoing): void {
    this.slots.push({ id, done: true, isCancelled: false, message });
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
      if (!slot.isCancelled && slot.message) this.send(slot.message);
    }
    if (this.slots.length === 0 && this.idle.length > 0) {
      const waiters = this.idle;
      this.idle = [];
      for (const resolve of waiters) resolve();
    }
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}
