// RESP, the Redis wire protocol: commands out as arrays of bulk strings,
// replies in through an incremental parser that takes bytes in any split and
// never holds more than one reply (bounded by maxReplyBytes) plus one partial
// header line (bounded by MAX_LINE_BYTES). Pure: no node:net, no timers.
//
// We speak RESP2 (every Redis and Valkey does); the parser also understands
// the RESP3 types, so a server that answers in RESP3 is still read correctly.

/** A command argument: text goes out as UTF-8, numbers in decimal. */
export type RespArg = string | number | Buffer;

/** An error reply (`-ERR …`, `-NOPERM …`): returned as a value, so a pipeline keeps its other replies. */
export class RespError {
  constructor(readonly message: string) {}

  /** The first word, which Redis uses as a code: ERR, WRONGPASS, NOPERM, NOSCRIPT and so on */
  get prefix(): string {
    const space = this.message.indexOf(' ');
    return space === -1 ? this.message : this.message.slice(0, space);
  }
}

/** A RESP3 push (out-of-band, e.g. pub/sub), told apart from an ordinary array reply. */
export class RespPush {
  constructor(readonly items: RespValue[]) {}
}

/**
 * A reply. Simple strings are strings, bulk strings are Buffers (binary-safe),
 * integers numbers (bigint past 2^53), null is null, arrays (and RESP3 sets
 * and maps, flattened key, value, …) are arrays.
 */
export type RespValue = string | Buffer | number | bigint | boolean | null | RespError | RespPush | RespValue[];

/** The bytes did not follow RESP, or a reply went past a size guard. The connection cannot be trusted after it. */
export class RespProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RespProtocolError';
  }
}

/** Longest header line (type byte, length or simple string, CRLF) the parser accepts. */
export const MAX_LINE_BYTES = 64 * 1024;
/** Deepest nesting of arrays accepted; our replies nest at most three deep. */
export const MAX_DEPTH = 32;
/** Default bound on one whole reply (every byte of it, headers included). */
export const DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024;
/** Most elements one aggregate may announce (each costs memory before its bytes arrive). */
export const MAX_AGGREGATE_ITEMS = 4 * 1024 * 1024;

/** Every type byte a reply may start with (RESP2 and RESP3, minus attributes). */
const TYPE_BYTES = new Set([...'+-:$*_#,(=!%~>'].map((c) => c.charCodeAt(0)));
/** The first byte of a TLS alert and of a TLS handshake record. */
export const TLS_RECORD_ALERT = 0x15;
export const TLS_RECORD_HANDSHAKE = 0x16;

const CR_BYTE = 0x0d;
const LF_BYTE = 0x0a;
const CRLF = Buffer.from('\r\n');

/** Encodes one command as a RESP array of bulk strings. */
export function encodeCommand(args: readonly RespArg[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = typeof arg === 'string' ? Buffer.from(arg, 'utf8')
      : typeof arg === 'number' ? Buffer.from(encodeNumber(arg))
        : arg;
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, CRLF);
  }
  return Buffer.concat(parts);
}

function encodeNumber(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`cannot send ${value} to Redis`);
  return Number.isInteger(value) ? value.toFixed(0) : String(value);
}

// An aggregate being filled: how many items it still expects, and whether it
// is an ordinary array or a RESP3 push.
interface Frame {
  kind: 'array' | 'push';
  items: RespValue[];
  remaining: number;
}

// A bulk payload being copied in: its bytes, how many arrived, and what it becomes.
interface BulkInProgress {
  bytes: Buffer;
  filled: number;
  kind: 'bulk' | 'verbatim' | 'blob_error';
}

export interface RespParserOptions {
  maxReplyBytes?: number;
}

/**
 * Turns a byte stream into replies. `push` takes any chunk and returns the
 * replies it completed, in order. After a RespProtocolError the parser is
 * spent: the stream has lost its framing.
 */
export class RespParser {
  private readonly maxReplyBytes: number;
  /** A header line not yet ended by CRLF (at most MAX_LINE_BYTES). */
  private partial: Buffer | undefined;
  private bulk: BulkInProgress | undefined;
  /** A bulk payload fully copied in, waiting for its CRLF. */
  private pendingBulk: BulkInProgress | undefined;
  /** CR_BYTE/LF_BYTE bytes still owed after a bulk payload. */
  private crlfOwed = 0;
  private readonly stack: Frame[] = [];
  /** Bytes of the reply in progress, counted as they are consumed. */
  private replyBytes = 0;
  private failed: RespProtocolError | undefined;

  constructor(options: RespParserOptions = {}) {
    this.maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  }

  /** Whether a reply is partly read (bytes are held that belong to no finished reply). */
  get isMidReply(): boolean {
    return this.partial !== undefined || this.bulk !== undefined || this.crlfOwed > 0 || this.stack.length > 0;
  }

  push(chunk: Buffer): RespValue[] {
    if (this.failed) throw this.failed;
    const out: RespValue[] = [];
    try {
      this.consume(chunk, out);
    } catch (err) {
      if (err instanceof RespProtocolError) this.failed = err;
      throw err;
    }
    return out;
  }

  private consume(chunk: Buffer, out: RespValue[]): void {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.bulk) {
        pos = this.fillBulk(chunk, pos);
        continue;
      }
      if (this.crlfOwed > 0) {
        pos = this.eatCrlf(chunk, pos, out);
        continue;
      }
      // A stray first byte is refused at once, not after a line's worth of
      // bytes: a TLS alert from a TLS port has no LF_BYTE to wait for.
      if (this.partial === undefined && !TYPE_BYTES.has(chunk[pos]!)) {
        throw new RespProtocolError(`unknown reply type byte 0x${chunk[pos]!.toString(16).padStart(2, '0')}${chunk[pos] === TLS_RECORD_ALERT || chunk[pos] === TLS_RECORD_HANDSHAKE ? ' (a TLS record: this port speaks TLS)' : ''}`);
      }
      const lineEnd = this.findLineEnd(chunk, pos);
      if (lineEnd === -1) {
        this.keepPartial(chunk.subarray(pos));
        return;
      }
      // The line is partial + chunk[pos, lineEnd); lineEnd points at the LF_BYTE.
      let line: Buffer;
      if (this.partial) {
        line = Buffer.concat([this.partial, chunk.subarray(pos, lineEnd + 1)]);
        this.partial = undefined;
      } else {
        line = chunk.subarray(pos, lineEnd + 1);
      }
      this.count(lineEnd + 1 - pos);
      pos = lineEnd + 1;
      if (line.length < 3 || line[line.length - 2] !== CR_BYTE) throw new RespProtocolError('a reply line did not end with CRLF');
      this.takeLine(line.subarray(0, line.length - 2), out);
    }
  }

  // The LF_BYTE that ends the current header line, or -1. A line split between
  // chunks is continued from `partial`.
  private findLineEnd(chunk: Buffer, pos: number): number {
    const lf = chunk.indexOf(LF_BYTE, pos);
    if (lf === -1) return -1;
    if ((this.partial?.length ?? 0) + (lf - pos) + 1 > MAX_LINE_BYTES) {
      throw new RespProtocolError(`a reply line is longer than ${MAX_LINE_BYTES} bytes`);
    }
    return lf;
  }

  private keepPartial(rest: Buffer): void {
    const size = (this.partial?.length ?? 0) + rest.length;
    if (size > MAX_LINE_BYTES) throw new RespProtocolError(`a reply line is longer than ${MAX_LINE_BYTES} bytes`);
    this.count(rest.length);
    // A copy: the caller's chunk may be reused once push returns.
    this.partial = this.partial ? Buffer.concat([this.partial, rest]) : Buffer.from(rest);
  }

  private count(bytes: number): void {
    this.replyBytes += bytes;
    if (this.replyBytes > this.maxReplyBytes) {
      throw new RespProtocolError(`a reply is larger than the ${this.maxReplyBytes}-byte guard`);
    }
  }

  private takeLine(line: Buffer, out: RespValue[]): void {
    const type = line[0];
    const body = line.toString('utf8', 1);
    switch (type) {
      case 0x2b: // '+'
        return this.finish(body, out);
      case 0x2d: // '-'
        return this.finish(new RespError(body), out);
      case 0x3a: // ':'
        return this.finish(parseInteger(body), out);
      case 0x24: // '$'
        return this.startBulk(body, 'bulk', out);
      case 0x3d: // '=' verbatim string (RESP3)
        return this.startBulk(body, 'verbatim', out);
      case 0x21: // '!' blob error (RESP3)
        return this.startBulk(body, 'blob_error', out);
      case 0x2a: // '*'
      case 0x7e: // '~' set (RESP3)
        return this.startAggregate(body, 1, 'array', out);
      case 0x25: // '%' map (RESP3): key, value, … flattened
        return this.startAggregate(body, 2, 'array', out);
      case 0x3e: // '>' push (RESP3)
        return this.startAggregate(body, 1, 'push', out);
      case 0x5f: // '_' null (RESP3)
        if (body !== '') throw new RespProtocolError('a null carried data');
        return this.finish(null, out);
      case 0x23: // '#' boolean (RESP3)
        if (body !== 't' && body !== 'f') throw new RespProtocolError(`not a boolean: ${JSON.stringify(body.slice(0, 20))}`);
        return this.finish(body === 't', out);
      case 0x2c: // ',' double (RESP3)
        return this.finish(parseDouble(body), out);
      case 0x28: // '(' big number (RESP3)
        if (!/^-?\d+$/.test(body)) throw new RespProtocolError('not a big number');
        return this.finish(BigInt(body), out);
      default: // unreachable: the type byte was checked when the line began
        throw new RespProtocolError(`unknown reply type byte 0x${(type ?? 0).toString(16).padStart(2, '0')}`);
    }
  }

  private startBulk(body: string, kind: BulkInProgress['kind'], out: RespValue[]): void {
    const length = parseLength(body);
    if (length === -1) {
      if (kind !== 'bulk') throw new RespProtocolError('a RESP3 string had length -1');
      return this.finish(null, out);
    }
    // Checked before any allocation: a hostile length cannot make us reserve memory.
    if (this.replyBytes + length + 2 > this.maxReplyBytes) {
      throw new RespProtocolError(`a bulk string of ${length} bytes is larger than the ${this.maxReplyBytes}-byte guard`);
    }
    this.bulk = { bytes: Buffer.allocUnsafe(length), filled: 0, kind };
  }

  private fillBulk(chunk: Buffer, pos: number): number {
    const bulk = this.bulk!;
    const take = Math.min(bulk.bytes.length - bulk.filled, chunk.length - pos);
    chunk.copy(bulk.bytes, bulk.filled, pos, pos + take);
    bulk.filled += take;
    this.count(take);
    if (bulk.filled === bulk.bytes.length) {
      this.bulk = undefined;
      this.crlfOwed = 2;
      this.pendingBulk = bulk;
    }
    return pos + take;
  }

  private eatCrlf(chunk: Buffer, pos: number, out: RespValue[]): number {
    const expected = this.crlfOwed === 2 ? CR_BYTE : LF_BYTE;
    if (chunk[pos] !== expected) throw new RespProtocolError('a bulk string was not followed by CRLF');
    this.count(1);
    this.crlfOwed--;
    if (this.crlfOwed === 0) {
      const bulk = this.pendingBulk!;
      this.pendingBulk = undefined;
      if (bulk.kind === 'bulk') this.finish(bulk.bytes, out);
      else if (bulk.kind === 'blob_error') this.finish(new RespError(bulk.bytes.toString('utf8')), out);
      else this.finish(bulk.bytes.subarray(Math.min(4, bulk.bytes.length)), out); // 'txt:' format prefix dropped
    }
    return pos + 1;
  }

  private startAggregate(body: string, perItem: number, kind: Frame['kind'], out: RespValue[]): void {
    const length = parseLength(body);
    if (length === -1) {
      if (kind !== 'array' || perItem !== 1) throw new RespProtocolError('a RESP3 aggregate had length -1');
      return this.finish(null, out);
    }
    const items = length * perItem;
    if (items > MAX_AGGREGATE_ITEMS) throw new RespProtocolError(`an aggregate of ${items} items is over the ${MAX_AGGREGATE_ITEMS}-item guard`);
    if (this.stack.length >= MAX_DEPTH) throw new RespProtocolError(`replies nested deeper than ${MAX_DEPTH}`);
    if (items === 0) return this.finish(kind === 'push' ? new RespPush([]) : [], out);
    this.stack.push({ kind, items: [], remaining: items });
  }

  // A value is complete: it fills its parent aggregate, or is a whole reply.
  private finish(value: RespValue, out: RespValue[]): void {
    let done = value;
    for (;;) {
      const top = this.stack[this.stack.length - 1];
      if (!top) {
        out.push(done);
        this.replyBytes = 0;
        return;
      }
      top.items.push(done);
      top.remaining--;
      if (top.remaining > 0) return;
      this.stack.pop();
      done = top.kind === 'push' ? new RespPush(top.items) : top.items;
    }
  }
}

function parseLength(body: string): number {
  if (!/^(-1|\d{1,12})$/.test(body)) throw new RespProtocolError(`not a length: ${JSON.stringify(body.slice(0, 20))}`);
  return Number(body);
}

function parseInteger(body: string): number | bigint {
  if (!/^[-+]?\d{1,20}$/.test(body)) throw new RespProtocolError(`not an integer: ${JSON.stringify(body.slice(0, 20))}`);
  const value = Number(body);
  return Number.isSafeInteger(value) ? value : BigInt(body);
}

function parseDouble(body: string): number {
  if (body === 'inf') return Infinity;
  if (body === '-inf') return -Infinity;
  if (body === 'nan') return NaN;
  const value = Number(body);
  if (body === '' || Number.isNaN(value)) throw new RespProtocolError(`not a double: ${JSON.stringify(body.slice(0, 20))}`);
  return value;
}
