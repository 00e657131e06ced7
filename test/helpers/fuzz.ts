// The protocol fuzzer: frames from a seeded generator (valid and broken JSON,
// wrong types in every field, huge ids, values nested up to hundreds of
// thousands of levels in params, arguments and _meta, both eras, random tool
// calls, oversized lines, broken UTF-8) written to the real server, and an
// oracle that says, line by line, which reply each must get. Used by
// test/e2e/fuzz.test.ts (a few thousand frames) and `npm run fuzz`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const MAX_FRAME_BYTES = 1_048_576;
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** mulberry32: small, fast and the same on every platform. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Mostly small, sometimes very large: log-uniform between 1 and max. */
  size(max: number): number {
    return Math.max(1, Math.floor(Math.exp(this.next() * Math.log(max))));
  }
}

/** A value written as raw JSON text (nested structures JSON.stringify could not even build). */
class Raw {
  constructor(readonly text: string) {}
}

function deep(depth: number, shape: 'array' | 'object' | 'mixed', leaf = ''): Raw {
  if (shape === 'array') return new Raw('['.repeat(depth) + leaf + ']'.repeat(depth));
  if (shape === 'object') return new Raw('{"a":'.repeat(depth) + (leaf || '1') + '}'.repeat(depth));
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i += 1) {
    if (i % 2 === 0) { open += '['; close = ']' + close; } else { open += '{"k":'; close = '}' + close; }
  }
  return new Raw(open + (leaf || '0') + close);
}

/** JSON text of a generated value: like JSON.stringify, with Raw spliced in as is. */
function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const TOOLS = [
  'opencomms_create', 'opencomms_join', 'opencomms_send', 'opencomms_inbox', 'opencomms_pull', 'opencomms_status',
  'opencomms_history', 'opencomms_pause', 'opencomms_resume', 'opencomms_disconnect', 'opencomms_update_role',
  'opencomms_kick', 'opencomms_timer', 'opencomms_save_session', 'opencomms_resume_session',
  'opencomms_delete_session', 'opencomms_archive',
];
const UNKNOWN_TOOLS = ['', 'opencomms_frob', 'OPENCOMMS_SEND', '__proto__', 'constructor', 'opencomms_send\n'];
const ARGUMENTS = [
  'channel', 'role', 'role_prompt', 'content', 'type', 'reply_to', 'to', 'broadcast', 'session_description', 'limit',
  'before', 'query', 'thread', 'max_members', 'rate_limit', 'max_hops', 'budget_runtime_ms', 'budget_messages',
  'spawn_push', 'host_session_id', 'target_session_id', 'target_role', 'action', 'limit_ms', 'summary', 'new_name',
  'confirm', 'mode', 'paths', '__proto__', 'constructor', 'unknown_arg',
];
const METHODS = [
  'initialize', 'ping', 'tools/list', 'tools/call', 'server/discover', 'notifications/initialized', 'logging/setLevel',
  'resources/list', 'prompts/list', 'completion/complete', '', 'x'.repeat(300), 'toString', '__proto__', 'hasOwnProperty',
];
const CHANNELS = ['c0', 'c1', 'c2', 'Dev', ' c0 ', 'no such', 'c'.repeat(65), ''];
const ROLES = ['lead', 'reviewer', 'R2', 'toString', '9bad', 'a'.repeat(33), ''];
const TEXT_PIECES = ['hello', 'é', '€', '😀', '\u0000', '\u0001', '\u001b[2J', '\n', '\r\n', '"', '\\', '\u2028', '\u202e', '<<<', '\ud800', '\udc00', ' '];

/** A string from pieces that break naive code: controls, quotes, surrogates, bidi marks. */
function text(r: Random, maxPieces = 12): string {
  let out = '';
  const n = r.int(0, maxPieces);
  for (let i = 0; i < n; i += 1) out += r.pick(TEXT_PIECES);
  return out;
}

function deepValue(r: Random): Raw {
  // Mostly a few levels to a few thousand; often evenly between 2,000 and
  // 12,000, where recursive code meets the stack limit; now and then close to
  // what 1 MiB can hold.
  const band = r.next();
  const depth = band < 0.05 ? r.int(100_000, 300_000) : band < 0.4 ? r.int(2_000, 12_000) : r.size(20_000);
  return deep(depth, r.pick(['array', 'object', 'mixed'] as const));
}

/** Any JSON value, of any type, sometimes huge or deep. */
function anyValue(r: Random): unknown {
  switch (r.int(0, 13)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return r.pick([0, -1, 1.5, 1e308, -1e-308, 2 ** 53 + 2, 100_000, 101, 3]);
    case 3: return text(r);
    case 4: return r.pick(CHANNELS);
    case 5: return 'x'.repeat(r.size(120_000));
    case 6: return [];
    case 7: return {};
    case 8: return [text(r), r.int(0, 9)];
    case 9: return { a: text(r) };
    case 10: return deepValue(r);
    case 11: return r.pick(ROLES);
    case 12: return new Raw(r.pick(['-0', '1e999', '-1e999', '0.0000001', '1E2', '"\\ud800"', '"\\u0000"', '123456789012345678901234567890']));
    default: return r.int(-5, 50);
  }
}

/** Arguments for a tool: mostly plausible, often with one wrong or unknown. */
function toolArguments(r: Random): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  if (r.chance(0.8)) args.channel = r.pick(CHANNELS.slice(0, 3));
  if (r.chance(0.5)) args.role = r.pick(ROLES.slice(0, 3));
  if (r.chance(0.5)) args.role_prompt = r.chance(0.9) ? 'does the work' : text(r);
  if (r.chance(0.5)) args.content = r.chance(0.1) ? 'y'.repeat(r.pick([100_000, 100_001, 150_000])) : `${text(r)} ${r.int(0, 1e9)}`;
  if (r.chance(0.2)) args.action = r.pick(['start', 'stop', 'status', 'switch', 'explode']);
  if (r.chance(0.2)) args.mode = r.pick(['list', 'summary', 'messages', 'all']);
  if (r.chance(0.2)) args.limit = r.pick([1, 5, 100, 101, 0, -1, 2.5]);
  if (r.chance(0.1)) args.confirm = r.chance(0.5);
  if (r.chance(0.1)) args.broadcast = true;
  const wrong = r.int(0, 3);
  for (let i = 0; i < wrong; i += 1) args[r.pick(ARGUMENTS)] = anyValue(r);
  return args;
}

function modernMeta(r: Random): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const version = r.int(0, 9);
  if (version < 5) meta[VERSION_KEY] = '2026-07-28';
  else if (version === 5) meta[VERSION_KEY] = deepValue(r);
  else if (version === 6) meta[VERSION_KEY] = anyValue(r);
  else if (version === 7) meta[VERSION_KEY] = r.pick(['2099-01-01', '2025-06-18', '', 'v'.repeat(r.size(200_000))]);
  else meta[VERSION_KEY] = new Raw(r.pick(['null', '[]', '{}', '2026', '"2026-07-28\\u0000"']));
  if (r.chance(0.85)) meta[CAPABILITIES_KEY] = r.chance(0.8) ? {} : anyValue(r);
  if (r.chance(0.2)) meta['io.modelcontextprotocol/clientInfo'] = anyValue(r);
  if (r.chance(0.1)) meta.progressToken = anyValue(r);
  return meta;
}

/** Where the generator stands: which ids it has used, so none repeats and no cancel can hit one. */
export class FrameGenerator {
  private counter = 0;

  constructor(private readonly r: Random) {}

  /** A fresh id the oracle can track: positive numbers and strings, never used twice. */
  private freshId(): Raw {
    const n = ++this.counter;
    switch (this.r.int(0, 7)) {
      case 0: return new Raw(`"s${n}"`);
      case 1: return new Raw(`"${'i'.repeat(this.r.size(100_000))}${n}"`);
      case 2: return new Raw(`${n}.5`);
      case 3: return new Raw(`${n}e0`);
      case 4: return new Raw(`"\\u0073${n}\\u0000"`);
      case 5: return new Raw(`${n * 1_000_000 + 1}`);
      default: return new Raw(`${n}`);
    }
  }

  private request(method: string, params?: unknown, id: unknown = this.freshId()): Record<string, unknown> {
    const frame: Record<string, unknown> = { jsonrpc: '2.0', id, method };
    if (params !== undefined) frame.params = params;
    return frame;
  }

  private toolCall(): Record<string, unknown> {
    const r = this.r;
    const params: Record<string, unknown> = { name: r.chance(0.9) ? r.pick(TOOLS) : r.pick(UNKNOWN_TOOLS) };
    params.arguments = r.chance(0.9) ? toolArguments(r) : anyValue(r);
    if (r.chance(0.3)) params._meta = r.chance(0.7) ? modernMeta(r) : anyValue(r);
    return this.request('tools/call', params);
  }

  /** One line of bytes, ending in "\n". */
  next(): Buffer {
    const r = this.r;
    const line = (value: unknown): Buffer => Buffer.from(`${toJson(value)}${r.chance(0.05) ? '\r' : ''}\n`, 'utf8');
    const kind = r.int(0, 99);
    if (kind < 25) return line(this.toolCall());
    if (kind < 33) return line(this.request(r.pick(['tools/list', 'server/discover', 'tools/call', 'ping']), { _meta: modernMeta(r) }));
    if (kind < 40) return line(this.request(r.pick(['ping', 'initialize', 'tools/list']), r.chance(0.5) ? undefined : { protocolVersion: anyValue(r), capabilities: anyValue(r) }));
    if (kind < 48) {
      // Deep nesting somewhere in params.
      const where = r.int(0, 4);
      const value = deepValue(r);
      if (where === 0) return line(this.request('ping', { x: value }));
      if (where === 1) return line(this.request('tools/call', { name: r.pick(TOOLS), arguments: { [r.pick(ARGUMENTS)]: value } }));
      if (where === 2) return line(this.request('tools/call', { name: value, arguments: {} }));
      if (where === 3) return line(this.request('tools/list', { _meta: { [VERSION_KEY]: value, [CAPABILITIES_KEY]: {} } }));
      return line(this.request('tools/call', value));
    }
    if (kind < 58) {
      // A wrong type in one field of an otherwise good request.
      const frame = this.request(r.pick(['ping', 'tools/list', 'tools/call']), { name: 'opencomms_status', arguments: {} });
      const field = r.pick(['id', 'jsonrpc', 'method', 'params']);
      if (field === 'id' && r.chance(0.5)) frame.id = new Raw(r.pick(['null', 'true', '{}', '[]', '9007199254740993', '-9007199254740993', '1e400', '"\\ud800"']));
      else if (r.chance(0.2)) delete frame[field];
      else frame[field] = anyValue(r);
      return line(frame);
    }
    if (kind < 62) return line(this.request(r.pick(METHODS), r.chance(0.5) ? anyValue(r) : undefined));
    if (kind < 66) {
      // Notifications: never answered. A cancel names only ids no request uses.
      const method = r.pick(['notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'x/y', '']);
      const params = method === 'notifications/cancelled'
        ? { requestId: r.pick([new Raw(`-${r.int(1, 1e6)}`), `nc-${r.int(0, 1e6)}`, deepValue(r), null]) }
        : anyValue(r);
      return line({ jsonrpc: '2.0', method, params });
    }
    if (kind < 68) return line({ jsonrpc: '2.0', id: this.freshId(), result: anyValue(r) }); // a response: ignored
    if (kind < 70) return line([this.request('ping')]); // a batch
    if (kind < 78) {
      // Broken JSON: a good frame cut short, or with bytes changed.
      const good = Buffer.from(toJson(this.toolCall()), 'utf8');
      const bytes = Buffer.from(good.subarray(0, r.int(0, good.length)));
      for (let i = r.int(0, 3); i > 0 && bytes.length > 0; i -= 1) bytes[r.int(0, bytes.length - 1)] = r.int(0, 255);
      return Buffer.concat([bytes, Buffer.from('\n')]);
    }
    if (kind < 84) {
      // Broken UTF-8 inside a string, or outside any string.
      const bad = r.pick([[0xe2, 0x82], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff], [0xf0, 0x9f, 0x98]]);
      const frame = toJson(this.request('tools/call', { name: 'opencomms_send', arguments: { channel: 'c0', content: 'MARK' } }));
      const [head, tail] = r.chance(0.8) ? frame.split('MARK') : [frame.slice(0, -1), frame.slice(-1)];
      return Buffer.concat([Buffer.from(head!), Buffer.from(bad), Buffer.from(tail!), Buffer.from('\n')]);
    }
    if (kind < 88) return Buffer.from(r.pick(['', '   ', '\t', '\r', '\u00a0', '{', '}', '[', 'null', '42', '"x"', 'true', '{"jsonrpc":"2.0",}', '\ufeff{}']) + '\n', 'utf8');
    if (kind < 90) {
      // Random bytes (never a line break, which would make another line).
      const bytes = Buffer.alloc(r.size(5_000));
      for (let i = 0; i < bytes.length; i += 1) {
        const byte = r.int(0, 255);
        bytes[i] = byte === 0x0a ? 0x20 : byte;
      }
      return Buffer.concat([bytes, Buffer.from('\n')]);
    }
    if (kind === 90 && r.chance(0.25)) {
      // At the size limit: exactly 1 MiB, or one byte more.
      const shell = toJson(this.request('ping', { p: '' }));
      const pad = MAX_FRAME_BYTES - Buffer.byteLength(shell) + (r.chance(0.5) ? 1 : 0);
      return Buffer.from(`${shell.replace('"p":""', `"p":"${'x'.repeat(pad)}"`)}\n`, 'utf8');
    }
    if (kind === 90 && r.chance(0.3)) return Buffer.concat([Buffer.alloc(MAX_FRAME_BYTES + r.int(1, 300_000), 0x61), Buffer.from('\n')]);
    return line(this.toolCall());
  }
}

/** What the server must answer a line with: a reply for this id, one with no id, or nothing. */
export type Expected = { id: string } | 'no-id' | null;

function isTrackedId(id: unknown): boolean {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id) && (!Number.isInteger(id) || Number.isSafeInteger(id)));
}

/** The oracle: PROTOCOL.md 1.1 and 1.2, applied to one line (without its "\n"). */
export function expectedReply(line: Buffer): Expected {
  let bytes = line;
  if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
  if (bytes.length > MAX_FRAME_BYTES) return 'no-id';
  const text = bytes.toString('utf8');
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'no-id';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'no-id';
  const message = value as Record<string, unknown>;
  const hasId = Object.prototype.hasOwnProperty.call(message, 'id');
  if (hasId && !isTrackedId(message.id)) return 'no-id';
  const answer: Expected = hasId ? { id: JSON.stringify(message.id) } : 'no-id';
  if (message.jsonrpc !== '2.0') return answer;
  if (!('method' in message) && hasId && ('result' in message || 'error' in message)) return null;
  if (typeof message.method !== 'string' || message.method === '') return answer;
  if (message.params !== undefined && (message.params === null || typeof message.params !== 'object')) return answer;
  return hasId ? answer : null;
}

export interface FuzzOptions {
  script: string;
  project: string;
  frames: number;
  seed: number;
  /** How long the final ping may take once everything is written. */
  timeoutMs: number;
  env?: Record<string, string | undefined>;
  onProgress?: (written: number) => void;
}

export interface FuzzReport {
  seed: number;
  frames: number;
  lines: number;
  bytes: number;
  requests: number;
  idReplies: number;
  idlessReplies: number;
  notifications: number;
  errorCodes: Record<string, number>;
  elapsedMs: number;
  /** Peak resident memory of the server (Linux only). */
  peakRssKb?: number;
  exitCode: number | null;
}

function peakRssKb(pid: number | undefined): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes `frames` generated frames to a fresh server, then a final ping, and
 * checks every reply against the oracle as it comes: replies in request
 * order, exactly one per tracked id, one id-less error per broken line, no
 * stray output. Rejects on the first difference, an exit, or a hang.
 */
export function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const env: Record<string, string | undefined> = { ...process.env, OPENCOMMS_NO_SPAWN: '1', OPENCOMMS_MEMBER_ID: 'fuzzer', ...options.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, [options.script, '--project', options.project], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  const r = new Random(options.seed);
  const generator = new FrameGenerator(r);
  const expected: Exclude<Expected, null>[] = [];
  let cursor = 0;
  let stdoutRest = '';
  let stderr = '';
  const report: FuzzReport = {
    seed: options.seed, frames: 0, lines: 0, bytes: 0, requests: 0, idReplies: 0, idlessReplies: 0, notifications: 0,
    errorCodes: {}, elapsedMs: 0, exitCode: null,
  };
  const started = Date.now();
  const FINAL = JSON.stringify('fuzz-final-ping');

  return new Promise<FuzzReport>((resolve, reject) => {
    let isDone = false;
    let isFinalAnswered = false;
    let finalTimer: NodeJS.Timeout | undefined;
    // A server that stops answering while replies are owed has hung, wherever the writer is.
    let lastProgress = Date.now();
    const stall = setInterval(() => {
      if (cursor < expected.length && Date.now() - lastProgress > options.timeoutMs) {
        fail(`no reply for ${options.timeoutMs} ms with ${expected.length - cursor} replies owed`);
      }
    }, Math.min(1_000, options.timeoutMs));
    const fail = (why: string): void => {
      if (isDone) return;
      isDone = true;
      clearInterval(stall);
      clearTimeout(finalTimer);
      child.kill('SIGKILL');
      reject(new Error(`fuzz (seed ${options.seed}) after ${report.frames} frames: ${why}\nstderr (last 2000 characters):\n${stderr.slice(-2_000)}`));
    };

    const onMessage = (text: string): void => {
      let message: Record<string, any>;
      try {
        message = JSON.parse(text);
      } catch {
        fail(`the server wrote a line that is not JSON: ${text.slice(0, 200)}`);
        return;
      }
      if (typeof message.method === 'string' && !('id' in message)) {
        report.notifications += 1;
        return;
      }
      if (message.error) report.errorCodes[message.error.code] = (report.errorCodes[message.error.code] ?? 0) + 1;
      lastProgress = Date.now();
      const want = expected[cursor];
      if (want === undefined) {
        fail(`an unexpected reply: ${text.slice(0, 300)}`);
        return;
      }
      cursor += 1;
      if (want === 'no-id') {
        if ('id' in message || !message.error) fail(`expected an error without id, got: ${text.slice(0, 300)}`);
        else report.idlessReplies += 1;
        return;
      }
      if (!('id' in message) || JSON.stringify(message.id) !== want.id) {
        fail(`expected the reply to id ${want.id.slice(0, 80)}, got: ${text.slice(0, 300)}`);
        return;
      }
      if (!('result' in message) && !('error' in message)) fail(`a reply with neither result nor error: ${text.slice(0, 300)}`);
      report.idReplies += 1;
      if (want.id === FINAL) {
        if (cursor !== expected.length) {
          fail(`the final ping was answered with ${expected.length - cursor} replies still missing`);
          return;
        }
        clearTimeout(finalTimer);
        isFinalAnswered = true;
        report.peakRssKb = peakRssKb(child.pid);
        child.stdin.end();
      }
    };

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdoutRest += chunk;
      let nl: number;
      while (!isDone && (nl = stdoutRest.indexOf('\n')) !== -1) {
        const line = stdoutRest.slice(0, nl);
        stdoutRest = stdoutRest.slice(nl + 1);
        onMessage(line);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-20_000);
    });
    child.stdin.on('error', () => undefined); // an early exit is reported by 'exit'
    // 'close', not 'exit': every byte of stdout has been read by then.
    child.on('close', (code, signal) => {
      report.exitCode = code;
      if (isDone) return;
      if (!isFinalAnswered) {
        fail(`the server exited (${code ?? signal}) with ${expected.length - cursor} replies missing`);
        return;
      }
      if (code !== 0) {
        fail(`the server exited with ${code ?? signal} after the last reply`);
        return;
      }
      isDone = true;
      clearInterval(stall);
      report.elapsedMs = Date.now() - started;
      resolve(report);
    });

    const track = (bytes: Buffer): void => {
      // The oracle sees the lines the server will see (a frame may hold no "\n" but its last).
      let start = 0;
      for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
        const want = expectedReply(bytes.subarray(start, nl));
        report.lines += 1;
        if (want !== null) {
          expected.push(want);
          if (want !== 'no-id') report.requests += 1;
        }
        start = nl + 1;
      }
    };

    const write = async (): Promise<void> => {
      for (let i = 0; i < options.frames && !isDone; i += 1) {
        const frame = generator.next();
        track(frame);
        report.frames += 1;
        report.bytes += frame.length;
        if (!child.stdin.write(frame)) {
          await new Promise<void>((done) => {
            const go = (): void => { child.stdin.off('drain', go); child.off('exit', go); done(); };
            if (child.exitCode !== null || child.signalCode !== null) { done(); return; }
            child.stdin.once('drain', go);
            child.once('exit', go);
          });
        }
        if (options.onProgress && (i + 1) % 10_000 === 0) options.onProgress(i + 1);
      }
      if (isDone) return;
      const final = Buffer.from(`{"jsonrpc":"2.0","id":${FINAL},"method":"ping"}\n`);
      track(final);
      child.stdin.write(final);
      finalTimer = setTimeout(() => fail(`no answer to the final ping within ${options.timeoutMs} ms (${expected.length - cursor} replies missing)`), options.timeoutMs);
    };
    write().catch((err: unknown) => fail(`writing failed: ${String(err)}`));
  });
}
