// Our Redis client, on node:net and node:tls only: one connection, opened on
// first use, authenticated (HELLO 3 with the ACL user, so RESP3 where the
// server offers it; AUTH on RESP2 where it does not) and on its database
// before any command of ours goes out; commands pipelined in order; every
// call bounded by one timeout that covers backoff, connect, handshake and
// reply; a lost connection reopened on the next call after a jittered
// backoff. Every failure is a StoreFault with a stable code whose message
// names the server and what to check (client-faults.ts); where the socket
// may go is client-address.ts; what the handshake sends and what its answers
// mean is client-handshake.ts; reading pub/sub messages is pub-sub.ts.
import type { Socket } from 'node:net';
import type { StoreFault } from '../../files/faults';
import { openSocket } from './client-address';
import { ClientFaults, KEY_TYPE_READ_BY, type Phase } from './client-faults';
import type { RedisClientOptions } from './client-options';
import { afterHello, helloCommand } from './client-handshake';
import { isSubscribeConfirmation, pubSubMessage } from './pub-sub';
import { describeEndpoint } from './url';
import {
  encodeCommand, RespError, RespParser, RespProtocolError, type RespArg, type RespValue,
} from './resp';

/** Commands waiting for a connection beyond this many are refused rather than queued. */
export const MAX_QUEUED_COMMANDS = 10_000;
/** Bytes the socket may hold unsent before new commands are refused. */
export const MAX_UNSENT_BYTES = 64 * 1024 * 1024;
/** First reconnect delay after a gaveUp connection, doubled per failure up to RECONNECT_MAX_MS, with jitter. */
export const RECONNECT_BASE_MS = 50;
export const RECONNECT_MAX_MS = 1_000;

export type { HostLookup, RedisClientOptions, ResolvedAddress } from './client-options';

// One command on its way: settled by its reply, by the connection's end, or
// by its call's timeout.
interface Pending {
  name: string;
  resolve(value: RespValue): void;
  reject(err: StoreFault): void;
}

// One call (a command or a pipeline) not yet written: it waits for the connection.
interface Call {
  bytes: Buffer;
  pendings: Pending[];
}

export class RedisClient {
  /** `host:port`, as messages name the server. */
  readonly where: string;
  private readonly options: RedisClientOptions;
  private readonly random: () => number;
  private readonly faults: ClientFaults;
  private phase: Phase = 'idle';
  private socket: Socket | undefined;
  /** Written, awaiting replies, oldest first (handshake replies included). */
  private inflight: Pending[] = [];
  /** Not yet written: waiting for the connection to be ready. */
  private queued: Call[] = [];
  private failures = 0;
  private backoffTimer: NodeJS.Timeout | undefined;
  /** Set when a connection's first bytes looked like TLS (a plain-text client at a TLS port). */
  private sawTlsBytes = false;
  /** The protocol the current connection speaks: 3 after HELLO 3, 2 when the server did not offer it. */
  private protocol: 2 | 3 | undefined;
  /** Set by subscribe: where the server's pub/sub messages go (they answer no command). */
  private onMessage: ((channel: string, payload: string) => void) | undefined;
  /** Called whenever a connection ends, so a subscriber can subscribe again. */
  onConnectionLost: ((fault: StoreFault) => void) | undefined;
  /** Whether the current connection's TCP part is up (TLS may still be negotiating). */
  private isTcpConnected = false;
  /** Bumped per connection: lets a caller tell whether two replies came over the same one. */
  private connectionNumber = 0;

  constructor(options: RedisClientOptions) {
    this.options = options;
    this.random = options.random ?? Math.random;
    this.where = describeEndpoint(options);
    this.faults = new ClientFaults(options, this.where, () => ({ phase: this.phase, isTcpConnected: this.isTcpConnected, sawTlsBytes: this.sawTlsBytes }));
  }

  /** The RESP version of the current connection once it is ready (3 when the server offered it). */
  get protocolVersion(): 2 | 3 | undefined {
    return this.protocol;
  }

  /** Which connection is open (0 before the first); changes whenever the client reconnects. */
  get connection(): number {
    return this.connectionNumber;
  }

  /** Sends one command. An error reply rejects as a StoreFault (see faultForReply). */
  async command(args: readonly RespArg[]): Promise<RespValue> {
    const [reply] = await this.pipeline([args]);
    return this.check(reply!, String(args[0]), typeof args[1] === 'string' ? args[1] : undefined);
  }

  /**
   * Sends commands in one write and resolves with their replies in order.
   * Error replies come back as RespError values, so one refused command does
   * not hide the others; a transport failure rejects the whole call.
   */
  pipeline(commands: readonly (readonly RespArg[])[]): Promise<RespValue[]> {
    if (this.phase === 'closed') return Promise.reject(this.faults.fault('store_unreachable', 'this client was closed'));
    if (commands.length === 0) return Promise.resolve([]);
    if (this.queued.length >= MAX_QUEUED_COMMANDS || (this.socket?.writableLength ?? 0) > MAX_UNSENT_BYTES) {
      return Promise.reject(this.faults.fault('store_unreachable', `${MAX_QUEUED_COMMANDS} commands are already waiting for it (or its connection is not draining): check the server's load and the network`));
    }
    let bytes: Buffer;
    try {
      bytes = Buffer.concat(commands.map((c) => encodeCommand(c)));
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<RespValue[]>((resolve, reject) => {
      const replies: RespValue[] = new Array(commands.length);
      let left = commands.length;
      let isSettled = false;
      const settle = (err: StoreFault | undefined): void => {
        if (isSettled) return;
        isSettled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(replies);
        this.refIfBusy();
      };
      const pendings = commands.map((c, i): Pending => ({
        name: String(c[0]).toUpperCase(),
        resolve: (value) => {
          replies[i] = value;
          if (--left === 0) settle(undefined);
        },
        reject: (err) => settle(err),
      }));
      // The bound covers everything: the wait for a connection, the handshake and the reply.
      const timer = setTimeout(() => {
        if (isSettled) return;
        const fault = this.faults.faultForTimeout();
        // Replies come in order, so a connection with a missing reply is of no further use.
        this.teardown(fault);
        settle(fault);
      }, this.options.timeoutMs);
      this.send({ bytes, pendings });
    });
  }

  /**
   * Puts this connection in pub/sub mode on `channel`: resolves once the
   * server confirmed, then `onMessage` gets each message published there.
   * A connection in this mode runs no other command; use a client of its
   * own. A lost connection ends the subscription (see onConnectionLost).
   */
  async subscribe(channel: string, onMessage: (channel: string, payload: string) => void): Promise<void> {
    this.onMessage = onMessage;
    const answer = await this.command(['SUBSCRIBE', channel]);
    if (!isSubscribeConfirmation(answer)) {
      this.teardown(this.faults.fault('store_protocol_error', 'answered SUBSCRIBE with something other than a subscription: check that the URL names a Redis (or Valkey) server'));
      throw this.faults.fault('store_protocol_error', 'answered SUBSCRIBE unexpectedly');
    }
  }

  /** The value, or the fault an error reply stands for; `key` is the key the command named, for WRONGTYPE. */
  check(reply: RespValue, commandName: string, key?: string): RespValue {
    if (reply instanceof RespError) throw this.faultForReply(reply, commandName, key);
    return reply;
  }

  /**
   * A key of the project holds another type than the store keeps there
   * (`expected`, by default the type `commandName` works on), and `found`
   * when it could be told. Nothing was written: a commit checks every key
   * before its first write.
   */
  wrongTypeFault(key: string | undefined, commandName: string, expected = KEY_TYPE_READ_BY[commandName.toUpperCase()], found?: string): StoreFault {
    return this.faults.wrongTypeFault(key, commandName, expected, found);
  }

  /** The fault an error reply stands for: auth, permission, or the server refusing to do it. */
  faultForReply(reply: RespError, commandName: string, key?: string): StoreFault {
    return this.faults.faultForReply(reply, commandName, key);
  }

  /** Closes the connection; calls still waiting fail with store_unreachable. */
  close(): Promise<void> {
    const socket = this.socket;
    this.teardown(this.faults.fault('store_unreachable', 'this client was closed'));
    this.phase = 'closed';
    if (!socket || socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => socket.once('close', () => resolve()));
  }

  private send(call: Call): void {
    if (this.phase === 'ready') {
      this.write(call);
      return;
    }
    this.queued.push(call);
    if (this.phase === 'idle') this.open();
  }

  private write(call: Call): void {
    this.inflight.push(...call.pendings);
    this.socket!.ref();
    this.socket!.write(call.bytes);
  }

  // Opens a connection now, or after the backoff when the last one gaveUp.
  private open(): void {
    if (this.failures === 0) {
      this.connect();
      return;
    }
    const ceiling = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** (this.failures - 1));
    const delay = Math.round(ceiling / 2 + (ceiling / 2) * this.random());
    this.phase = 'waiting';
    this.backoffTimer = setTimeout(() => {
      this.backoffTimer = undefined;
      if (this.phase === 'waiting') this.connect();
    }, delay);
  }

  private connect(): void {
    this.phase = 'connecting';
    this.connectionNumber++;
    this.sawTlsBytes = false;
    this.protocol = undefined;
    const attempt = this.connectionNumber;
    openSocket(this.options, this.faults, {
      isCurrent: () => this.phase === 'connecting' && this.connectionNumber === attempt && this.socket === undefined,
      attach: (socket) => this.attach(socket),
      refuse: (fault) => this.teardown(fault),
      lookupFailed: (err) => this.teardown(this.faults.faultForSocketError(err)),
    });
  }

  private attach(socket: Socket): void {
    const parser = new RespParser({ maxReplyBytes: this.options.maxReplyBytes });
    this.socket = socket;
    this.isTcpConnected = false;
    socket.once('connect', () => {
      if (this.socket === socket) this.isTcpConnected = true;
    });
    socket.setNoDelay(true);
    socket.once(this.options.isTls ? 'secureConnect' : 'connect', () => {
      if (this.socket !== socket) return;
      socket.setKeepAlive(true, 30_000);
      this.handshake();
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.socket === socket) this.receive(parser, chunk);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (this.socket === socket) this.teardown(this.faults.faultForSocketError(err));
    });
    socket.on('close', () => {
      if (this.socket === socket) this.teardown(this.faults.faultForClose());
    });
  }

  // The handshake's steps and their meaning are client-handshake.ts; here
  // they are sent, and the first refusal ends the connection.
  private handshake(): void {
    this.phase = 'handshake';
    const hello: Pending = {
      name: 'HELLO',
      resolve: (value) => {
        const next = afterHello(value, this.options);
        if ('refusal' in next) {
          this.failures = 0; // a refusal is an answer: no backoff before the next try
          this.teardown(this.faultForReply(next.refusal, 'AUTH'));
          return;
        }
        this.protocol = next.protocol;
        this.finishHandshake(next.steps);
      },
      reject: () => undefined, // the queued calls carry the fault
    };
    this.write({ bytes: encodeCommand(helloCommand(this.options)), pendings: [hello] });
  }

  // The rest of the handshake after HELLO (AUTH, SELECT), if any; then the connection is ready.
  private finishHandshake(steps: RespArg[][]): void {
    if (steps.length === 0) {
      this.ready();
      return;
    }
    let left = steps.length;
    let gaveUp = false;
    const pendings = steps.map((step): Pending => ({
      name: String(step[0]),
      resolve: (value) => {
        if (gaveUp) return;
        if (value instanceof RespError) {
          gaveUp = true;
          this.failures = 0; // a refusal is an answer: no backoff before the next try
          this.teardown(this.faultForReply(value, String(step[0])));
          return;
        }
        if (--left === 0) this.ready();
      },
      reject: () => undefined, // the queued calls carry the fault
    }));
    this.write({ bytes: Buffer.concat(steps.map((s) => encodeCommand(s))), pendings });
  }

  private ready(): void {
    this.phase = 'ready';
    this.failures = 0;
    const calls = this.queued;
    this.queued = [];
    for (const call of calls) this.write(call);
    this.refIfBusy();
  }

  private receive(parser: RespParser, chunk: Buffer): void {
    if (this.phase === 'handshake' && !parser.isMidReply && (chunk[0] === 0x15 || chunk[0] === 0x16)) this.sawTlsBytes = true;
    let replies: RespValue[];
    try {
      replies = parser.push(chunk);
    } catch (err) {
      if (!(err instanceof RespProtocolError)) throw err;
      this.teardown(this.sawTlsBytes
        ? this.faults.tlsPortFault()
        : this.faults.fault('store_protocol_error', `sent bytes that are not a Redis reply (${err.message}): check that the URL names a Redis (or Valkey) server`, err));
      return;
    }
    for (const reply of replies) {
      const message = this.onMessage ? pubSubMessage(reply) : undefined;
      if (message) {
        this.onMessage!(message.channel, message.payload);
        continue;
      }
      const pending = this.inflight.shift();
      if (!pending) {
        this.teardown(this.faults.fault('store_protocol_error', 'sent a reply to no command: check that the URL names a Redis (or Valkey) server'));
        return;
      }
      pending.resolve(reply);
    }
  }

  // The connection is over: every command on it, and every call waiting for
  // it, fails with `fault`. The next call opens a new one after a backoff.
  private teardown(fault: StoreFault): void {
    if (this.phase === 'closed') return;
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    this.backoffTimer = undefined;
    const socket = this.socket;
    this.socket = undefined;
    if (socket && !socket.destroyed) socket.destroy();
    if (fault.code === 'store_unreachable' || fault.code === 'store_tls_failed' || fault.code === 'store_protocol_error') this.failures++;
    this.phase = 'idle';
    const inflight = this.inflight;
    const queued = this.queued;
    this.inflight = [];
    this.queued = [];
    for (const pending of inflight) pending.reject(fault);
    for (const call of queued) for (const pending of call.pendings) pending.reject(fault);
    this.onConnectionLost?.(fault);
  }

  // An idle connection must not keep a finished command-line process alive.
  private refIfBusy(): void {
    if (!this.socket) return;
    if (this.inflight.length === 0 && this.queued.length === 0) this.socket.unref();
    else this.socket.ref();
  }
}
