// Stand-ins for the hosts' own doors (reference E.9), for the host-door tests:
// a Unix-socket inbox that records what each connection wrote and answers as
// told, and a stub `codex` that records its argv. Plus the real hook CLI, so a
// session's turn record is written exactly as a host's hook would write it.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { runCli, type ServerProcess } from '../helpers/server';
import { until } from '../helpers/wait';

/** How the stand-in answers: say nothing, answer lines (after the auth line), or hang up at once. */
export type InboxMode = { kind: 'accept'; authAnswer?: string } | { kind: 'answer'; afterAuth?: string; afterMessage?: string } | { kind: 'close' };

export interface Connection {
  lines: string[];
  /** Resolves once the peer has closed (or after both lines). */
  done: Promise<void>;
}

export interface InboxStandIn {
  path: string;
  connections: Connection[];
  /** Every line written to the inbox, in order. */
  allLines(): string[];
  /** Resolves with the n-th connection (1-based) once it has written two lines or closed. */
  connection(n: number): Promise<Connection>;
}

/** A short temp folder (a Unix socket path must stay under ~100 bytes). */
function shortDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'oc-door-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function startInbox(t: TestContext, mode: InboxMode): Promise<InboxStandIn> {
  const path = join(shortDir(t), 'inbox.sock');
  const connections: Connection[] = [];
  const server: Server = createServer((socket: Socket) => {
    let finish: () => void = () => undefined;
    const conn: Connection = { lines: [], done: new Promise<void>((resolve) => { finish = resolve; }) };
    connections.push(conn);
    if (mode.kind === 'close') {
      socket.destroy();
      finish();
      return;
    }
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        conn.lines.push(line);
        if (conn.lines.length === 1) {
          const answer = mode.kind === 'accept' ? mode.authAnswer : mode.afterAuth;
          if (answer !== undefined) socket.write(`${answer}\n`);
        }
        if (conn.lines.length === 2) {
          if (mode.kind === 'answer' && mode.afterMessage !== undefined) socket.write(`${mode.afterMessage}\n`);
          finish();
          socket.end();
        }
      }
    });
    socket.on('close', () => finish());
    socket.on('error', () => finish());
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    path,
    connections,
    allLines: () => connections.flatMap((c) => c.lines),
    async connection(n) {
      const conn = await until(`inbox connection #${n}`, () => connections[n - 1]);
      await conn.done;
      return conn;
    },
  };
}

/** A stub `codex` that appends its argv (one JSON line per run) to a file, and exits with `exitCode`. */
export function stubCodex(t: TestContext, exitCode = 0, stderr = ''): { bin: string; runs: () => string[][] } {
  const dir = shortDir(t);
  const log = join(dir, 'argv.jsonl');
  const bin = join(dir, 'codex');
  writeFileSync(bin, [
    `#!${process.execPath}`,
    `require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');`,
    stderr === '' ? '' : `process.stderr.write(${JSON.stringify(`${stderr}\n`)});`,
    `process.exit(${exitCode});`,
  ].join('\n'));
  chmodSync(bin, 0o755);
  return {
    bin,
    runs: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as string[]) : []),
  };
}

/** Runs `opencomms hook` with one event, as a host's hook would, and returns its answer. */
export async function hookEvent(project: string, event: Record<string, unknown>): Promise<Record<string, any>> {
  const run = await runCli(['hook', '--project', project], {
    input: JSON.stringify({ transcript_path: '/tmp/t.jsonl', cwd: project, ...event }),
    env: { OPENCOMMS_MEMBER_ID: undefined, OPENCOMMS_PROJECT_DIR: undefined, OPENCOMMS_HOST: undefined },
  });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Record<string, any>;
}

/** The parsed lines one inbox connection received. */
export function parsed(conn: Connection): Record<string, any>[] {
  return conn.lines.map((l) => JSON.parse(l) as Record<string, any>);
}

/** Waits until `server` has written `text` to stderr and returns how often it did. */
export async function stderrCount(server: ServerProcess, text: string): Promise<number> {
  await server.waitFor(`stderr "${text}"`, () => (server.stderr.includes(text) ? true : undefined));
  return server.stderr.split(text).length - 1;
}
