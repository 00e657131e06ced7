// What a test does with an MCP server, whatever runs it (a child process in
// server.ts, the real runServe in this process in server-in-process.ts): write
// lines, collect the replies line by line, wait for one (re-checked on every
// output, bounded by WAIT_MS), and the usual requests.
import type { Json } from './server';

/** How long a wait for server output lasts by default. */
export const WAIT_MS = 10_000;

export abstract class McpPeer {
  readonly replies: Json[] = [];
  readonly stdoutLines: string[] = [];
  stderr = '';
  private buffered = '';
  private waiters: (() => void)[] = [];
  private nextId = 1;

  /** Writes raw bytes to the server's input. */
  abstract writeRaw(text: string | Buffer): void;
  /** Whether the server has ended (exited or closed): a wait then fails at once. */
  protected abstract hasEnded(): boolean;

  /** Takes a chunk of the server's output: each whole line is a reply. */
  protected takeOutput(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) !== -1) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      this.stdoutLines.push(line);
      this.replies.push(JSON.parse(line));
    }
    this.wake();
  }

  /** Takes what the server logged (its stderr). */
  protected takeLog(text: string): void {
    this.stderr += text;
    this.wake();
  }

  /** Re-runs every pending wait's check. */
  protected wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when `check` holds, re-checked on every output event; rejects after `timeoutMs` or once the server ended. */
  waitFor<T>(what: string, check: () => T | undefined, timeoutMs = WAIT_MS): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`)), timeoutMs);
      const attempt = (): void => {
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        } else if (this.hasEnded()) {
          clearTimeout(timer);
          reject(new Error(`server ended while waiting for ${what}; stderr:\n${this.stderr}`));
        } else {
          this.waiters.push(attempt);
        }
      };
      attempt();
    });
  }

  send(message: Json): void {
    this.writeRaw(`${JSON.stringify(message)}\n`);
  }

  /** The reply whose id is `id`. */
  reply(id: string | number): Promise<Json> {
    return this.waitFor(`reply ${id}`, () => this.replies.find((r) => r.id === id));
  }

  /** The n-th reply overall (0-based), whatever its id. */
  nthReply(n: number): Promise<Json> {
    return this.waitFor(`reply #${n}`, () => this.replies[n]);
  }

  async request(method: string, params?: Json): Promise<Json> {
    const id = this.nextId++;
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.reply(id);
  }

  async initialize(version = '2025-11-25'): Promise<Json> {
    const reply = await this.request('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'test', version: '0' } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply;
  }

  /** Calls a tool and returns its ToolResult (structuredContent). */
  async callTool(name: string, args: Json = {}): Promise<Json> {
    const reply = await this.request('tools/call', { name, arguments: args });
    if (reply.error) throw new Error(`tools/call ${name} failed: ${JSON.stringify(reply.error)}`);
    return reply.result.structuredContent;
  }
}
